/**
 * The example agent's behaviour, written against the generated v1.0 handler
 * type only. A text message creates a task that goes submitted → working →
 * one artifact echoing the text → completed. The text "wait" keeps the task
 * working until it is canceled, so cancel and subscribe can be tried.
 */
import { create } from "@bufbuild/protobuf";
import { A2AError, type HandlerContext } from "@protoc-gen-a2a/runtime";
import type { A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import {
  AgentCardSchema,
  TaskPushNotificationConfigSchema,
  TaskState,
  type AgentCard,
  type Message,
  type SendMessageRequest,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { isFinal, TaskStore } from "./task-store.js";

export const WAIT_TEXT = "wait";

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
}

/** A copy of a task with at most `historyLength` messages (unset: all) and, if asked, no artifacts. */
function view(task: Task, historyLength: number | undefined, includeArtifacts = true): Task {
  const history =
    historyLength === undefined ? task.history : historyLength === 0 ? [] : task.history.slice(-historyLength);
  return { ...task, history, artifacts: includeArtifacts ? task.artifacts : [] };
}

export function createEchoHandler(
  options: { store?: TaskStore; extendedCard?: () => AgentCard } = {},
): A2AServiceHandler {
  const store = options.store ?? new TaskStore();

  const start = (req: SendMessageRequest): Task => {
    if (!req.message) throw new A2AError("InvalidParamsError", "message is required");
    const existing = req.message.taskId ? store.get(req.message.taskId) : undefined;
    if (req.message.taskId && !existing)
      throw new A2AError("TaskNotFoundError", `Task ${req.message.taskId} not found`);
    const contextId = req.message.contextId || existing?.contextId || crypto.randomUUID();
    const task = store.create({
      id: crypto.randomUUID(),
      contextId,
      status: { state: TaskState.SUBMITTED },
      history: [{ ...req.message, contextId }],
    });
    return task;
  };

  /** Runs the echo work; resolves when the task is final. */
  const run = async (task: Task, text: string): Promise<void> => {
    await Promise.resolve();
    store.setState(task.id, TaskState.WORKING);
    if (text === WAIT_TEXT) return; // stays working until canceled
    store.addArtifact(task.id, {
      $typeName: "lf.a2a.v1.Artifact",
      artifactId: crypto.randomUUID(),
      name: "echo",
      description: "",
      parts: [
        { $typeName: "lf.a2a.v1.Part", content: { case: "text", value: text }, filename: "", mediaType: "text/plain" },
      ],
      extensions: [],
    });
    store.setState(task.id, TaskState.COMPLETED);
  };

  const taskOrThrow = (id: string): Task => {
    const t = store.get(id);
    if (!t) throw new A2AError("TaskNotFoundError", `Task ${id} not found`);
    return t;
  };

  return {
    async sendMessage(req) {
      const task = start(req);
      const done = run(task, textOf(req.message));
      if (!req.configuration?.returnImmediately) await done;
      return { payload: { case: "task", value: view(taskOrThrow(task.id), req.configuration?.historyLength) } };
    },

    async *sendStreamingMessage(req, ctx: HandlerContext) {
      const task = start(req);
      const events = store.events(task.id, ctx.signal);
      yield { payload: { case: "task", value: { ...task } } };
      void run(task, textOf(req.message));
      yield* events;
    },

    async getTask(req) {
      return view(taskOrThrow(req.id), req.historyLength);
    },

    async listTasks(req) {
      let tasks = store.all();
      if (req.contextId) tasks = tasks.filter((t) => t.contextId === req.contextId);
      if (req.status !== TaskState.UNSPECIFIED) tasks = tasks.filter((t) => t.status?.state === req.status);
      const after = req.statusTimestampAfter;
      if (after) tasks = tasks.filter((t) => (t.status?.timestamp?.seconds ?? 0n) >= after.seconds);
      const pageSize = Math.min(Math.max(req.pageSize ?? 50, 1), 100);
      const offset = req.pageToken ? Number.parseInt(req.pageToken, 10) : 0;
      if (!Number.isInteger(offset) || offset < 0) throw new A2AError("InvalidParamsError", "pageToken is not valid");
      const page = tasks.slice(offset, offset + pageSize);
      return {
        tasks: page.map((t) => view(t, req.historyLength, req.includeArtifacts ?? false)),
        nextPageToken: offset + pageSize < tasks.length ? String(offset + pageSize) : "",
        pageSize,
        totalSize: tasks.length,
      };
    },

    async cancelTask(req) {
      const task = taskOrThrow(req.id);
      if (isFinal(task.status?.state ?? TaskState.UNSPECIFIED))
        throw new A2AError("TaskNotCancelableError", `Task ${req.id} is ${TaskState[task.status!.state]}`);
      store.setState(task.id, TaskState.CANCELED);
      return taskOrThrow(req.id);
    },

    async *subscribeToTask(req, ctx) {
      const task = taskOrThrow(req.id);
      if (isFinal(task.status?.state ?? TaskState.UNSPECIFIED))
        throw new A2AError("UnsupportedOperationError", `Task ${req.id} is already final`);
      const events = store.events(task.id, ctx.signal);
      yield { payload: { case: "task", value: { ...task } } };
      yield* events;
    },

    async createTaskPushNotificationConfig(req) {
      const configs = store.pushConfigs(req.taskId);
      if (!configs) throw new A2AError("TaskNotFoundError", `Task ${req.taskId} not found`);
      const config = create(TaskPushNotificationConfigSchema, { ...req, id: req.id || crypto.randomUUID() });
      configs.set(config.id, config);
      return config;
    },

    async getTaskPushNotificationConfig(req) {
      const config = store.pushConfigs(req.taskId)?.get(req.id);
      if (!config) throw new A2AError("TaskNotFoundError", `Push config ${req.id} of task ${req.taskId} not found`);
      return config;
    },

    async listTaskPushNotificationConfigs(req) {
      const configs = store.pushConfigs(req.taskId);
      if (!configs) throw new A2AError("TaskNotFoundError", `Task ${req.taskId} not found`);
      return { configs: [...configs.values()], nextPageToken: "" };
    },

    async deleteTaskPushNotificationConfig(req) {
      const configs = store.pushConfigs(req.taskId);
      if (!configs?.delete(req.id))
        throw new A2AError("TaskNotFoundError", `Push config ${req.id} of task ${req.taskId} not found`);
      return {};
    },

    async getExtendedAgentCard() {
      if (!options.extendedCard) throw new A2AError("ExtendedAgentCardNotConfiguredError");
      return create(AgentCardSchema, options.extendedCard());
    },
  };
}
