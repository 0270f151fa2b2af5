/**
 * A v0.3 echo agent built only from the generated v0.3 stubs
 * (generated-samples/v0.3.0), "@protoc-gen-a2a/runtime" and
 * @connectrpc/connect-node. It behaves like the v1.0 example agent
 * (examples/echo-agent), translated to A2A v0.3 (package a2a.v1):
 *
 *   - a text message creates a task that goes submitted → working → one
 *     artifact echoing the text → completed; the text "wait" keeps the task
 *     working until it is canceled;
 *   - status updates carry `final: true` at a terminal state and at
 *     input-required (S03 §9.3; FACTS C.8), not at auth-required, which v0.3
 *     calls "not interrupted" (P03:177-180);
 *   - resources are named `tasks/{id}` and `tasks/{id}/pushNotificationConfigs/{cfg}`
 *     (P03 resource names; FACTS B.11). Create accepts the parent `tasks/{id}`
 *     (P03:649, and the plural route that a2a-js and the spec text use) and
 *     also `task/{id}/pushNotificationConfigs`, the value the P03 HTTP
 *     template `/v1/{parent=task/*}/pushNotificationConfigs` yields (P03:79);
 *   - `configuration.blocking` true waits for the work; false or absent
 *     returns at once, the proto3 default (P03:127-131; FACTS B.1, C.11);
 *   - `historyLength` 0 means "unlimited" (P03:124-126; FACTS B.1);
 *   - an unknown task is `A2AError("TaskNotFoundError")`.
 *
 * Served on 127.0.0.1: node:http for the agent card, JSON-RPC (/a2a/jsonrpc)
 * and HTTP+JSON (/a2a/rest, routes under /v1), and HTTP/2 for gRPC
 * (service a2a.v1.A2AService).
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { A2AError, nodeHttpListener, type HandlerContext } from "@protoc-gen-a2a/runtime";
import { createA2AServiceHttpHandler, type A2AServiceHandler } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import {
  AgentCardSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  type AgentCard,
  type Artifact,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../generated-samples/v0.3.0/a2a_pb.js";

export const WAIT_TEXT = "wait";
export const V03_AGENT_NAME = "Echo agent (v0.3)";
export const V03_EXTENDED_SUFFIX = " (extended)";
export const V03_EXTENDED_SKILL_ID = "echo-extended";

// ---------------------------------------------------------------------------
// Task store
// ---------------------------------------------------------------------------

/** States after which a v0.3 stream ends with `final: true`: terminal, plus input-required (S03 §9.3). */
const FINAL_STATES = new Set([
  TaskState.COMPLETED,
  TaskState.CANCELLED,
  TaskState.FAILED,
  TaskState.REJECTED,
  TaskState.INPUT_REQUIRED,
]);

export const isFinal = (state: TaskState) => FINAL_STATES.has(state);

interface Entry {
  task: Task;
  listeners: Set<(event: StreamResponse) => void>;
  pushConfigs: Map<string, TaskPushNotificationConfig>;
}

export class V03TaskStore {
  private readonly tasks = new Map<string, Entry>();

  create(init: MessageInitShape<typeof TaskSchema>): Task {
    const task = create(TaskSchema, init);
    this.tasks.set(task.id, { task, listeners: new Set(), pushConfigs: new Map() });
    return task;
  }

  get(id: string): Task | undefined {
    return this.tasks.get(id)?.task;
  }

  setState(id: string, state: TaskState): void {
    const e = this.tasks.get(id);
    if (!e) return;
    e.task.status = { $typeName: "a2a.v1.TaskStatus", state, timestamp: timestampNow() };
    this.publish(id, {
      payload: {
        case: "statusUpdate",
        value: { taskId: id, contextId: e.task.contextId, status: e.task.status, final: isFinal(state) },
      },
    });
  }

  addArtifact(id: string, artifact: Artifact): void {
    const e = this.tasks.get(id);
    if (!e) return;
    e.task.artifacts.push(artifact);
    this.publish(id, {
      payload: {
        case: "artifactUpdate",
        value: { taskId: id, contextId: e.task.contextId, artifact, lastChunk: true },
      },
    });
  }

  private publish(id: string, init: MessageInitShape<typeof StreamResponseSchema>): void {
    const event = create(StreamResponseSchema, init);
    for (const l of this.tasks.get(id)?.listeners ?? []) l(event);
  }

  /**
   * Events of a task from this call on (the listener is registered now, not
   * when iteration starts), ending after a status update with `final: true`,
   * or when the signal aborts.
   */
  events(id: string, signal: AbortSignal): AsyncIterable<StreamResponse> {
    const e = this.tasks.get(id);
    const queue: StreamResponse[] = [];
    let wake: (() => void) | undefined;
    const listener = (ev: StreamResponse) => {
      queue.push(ev);
      wake?.();
    };
    const onAbort = () => wake?.();
    e?.listeners.add(listener);
    signal.addEventListener("abort", onAbort);
    return (async function* () {
      try {
        if (!e) return;
        for (;;) {
          while (queue.length > 0) {
            const ev = queue.shift()!;
            yield ev;
            if (ev.payload.case === "statusUpdate" && ev.payload.value.final) return;
          }
          if (signal.aborted) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        e?.listeners.delete(listener);
        signal.removeEventListener("abort", onAbort);
      }
    })();
  }

  pushConfigs(taskId: string): Map<string, TaskPushNotificationConfig> | undefined {
    return this.tasks.get(taskId)?.pushConfigs;
  }
}

// ---------------------------------------------------------------------------
// Resource names (P03; FACTS B.11)
// ---------------------------------------------------------------------------

const TASK_NAME = /^tasks\/([^/]+)$/;
const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/;
/** The `parent` value the P03 Create HTTP template yields (P03:79). */
const TEMPLATE_PARENT = /^task\/([^/]+)\/pushNotificationConfigs$/;

export const taskName = (id: string) => `tasks/${id}`;
export const configName = (taskId: string, configId: string) => `tasks/${taskId}/pushNotificationConfigs/${configId}`;

function taskIdOf(name: string): string {
  const m = TASK_NAME.exec(name);
  if (!m) throw new A2AError("InvalidParamsError", `"${name}" is not a task name (tasks/{id})`);
  return m[1]!;
}

function configIdsOf(name: string): { taskId: string; configId: string } {
  const m = CONFIG_NAME.exec(name);
  if (!m)
    throw new A2AError(
      "InvalidParamsError",
      `"${name}" is not a push config name (tasks/{id}/pushNotificationConfigs/{configId})`,
    );
  return { taskId: m[1]!, configId: m[2]! };
}

function parentTaskIdOf(parent: string): string {
  const m = TASK_NAME.exec(parent) ?? TEMPLATE_PARENT.exec(parent);
  if (!m)
    throw new A2AError(
      "InvalidParamsError",
      `"${parent}" is not a task (tasks/{id} or task/{id}/pushNotificationConfigs)`,
    );
  return m[1]!;
}

// ---------------------------------------------------------------------------
// Handler
// ---------------------------------------------------------------------------

function textOf(message: Message | undefined): string {
  return (message?.content ?? []).map((p) => (p.part.case === "text" ? p.part.value : "")).join("");
}

/** A copy of a task with at most `historyLength` messages; 0 means unlimited in v0.3 (P03:124-126). */
function view(task: Task, historyLength: number | undefined): Task {
  const history = !historyLength ? task.history : task.history.slice(-historyLength);
  return { ...task, history, artifacts: [...task.artifacts] };
}

export function createV03EchoHandler(
  options: { store?: V03TaskStore; extendedCard?: () => AgentCard } = {},
): A2AServiceHandler {
  const store = options.store ?? new V03TaskStore();

  const taskOrThrow = (id: string): Task => {
    const t = store.get(id);
    if (!t) throw new A2AError("TaskNotFoundError", `Task ${id} not found`);
    return t;
  };

  const start = (req: SendMessageRequest): Task => {
    const message = req.request;
    if (!message) throw new A2AError("InvalidParamsError", "message is required");
    const existing = message.taskId ? store.get(message.taskId) : undefined;
    if (message.taskId && !existing) throw new A2AError("TaskNotFoundError", `Task ${message.taskId} not found`);
    const contextId = message.contextId || existing?.contextId || crypto.randomUUID();
    const id = crypto.randomUUID();
    return store.create({
      id,
      contextId,
      status: { state: TaskState.SUBMITTED, timestamp: timestampNow() },
      history: [...(existing?.history ?? []), { ...message, contextId, taskId: id }],
    });
  };

  /** Runs the echo work; resolves when the task is completed (or, for "wait", working). */
  const run = async (task: Task, text: string): Promise<void> => {
    await Promise.resolve();
    store.setState(task.id, TaskState.WORKING);
    if (text === WAIT_TEXT) return; // stays working until canceled
    store.addArtifact(task.id, {
      $typeName: "a2a.v1.Artifact",
      artifactId: crypto.randomUUID(),
      name: "echo",
      description: "",
      parts: [{ $typeName: "a2a.v1.Part", part: { case: "text", value: text } }],
      extensions: [],
    });
    store.setState(task.id, TaskState.COMPLETED);
  };

  return {
    async sendMessage(req) {
      const task = start(req);
      const done = run(task, textOf(req.request));
      // v0.3: blocking false or absent (the proto3 default) answers at once.
      if (req.configuration?.blocking) await done;
      return { payload: { case: "task", value: view(taskOrThrow(task.id), req.configuration?.historyLength) } };
    },

    async *sendStreamingMessage(req, ctx: HandlerContext) {
      const task = start(req);
      const events = store.events(task.id, ctx.signal);
      yield { payload: { case: "task", value: view(task, undefined) } };
      void run(task, textOf(req.request));
      yield* events;
    },

    async getTask(req) {
      return view(taskOrThrow(taskIdOf(req.name)), req.historyLength);
    },

    async cancelTask(req) {
      const task = taskOrThrow(taskIdOf(req.name));
      const state = task.status?.state ?? TaskState.UNSPECIFIED;
      if (isFinal(state)) throw new A2AError("TaskNotCancelableError", `Task ${task.id} is ${TaskState[state]}`);
      store.setState(task.id, TaskState.CANCELLED);
      return view(taskOrThrow(task.id), undefined);
    },

    async *taskSubscription(req, ctx) {
      const task = taskOrThrow(taskIdOf(req.name));
      if (isFinal(task.status?.state ?? TaskState.UNSPECIFIED))
        throw new A2AError("UnsupportedOperationError", `Task ${task.id} is already final`);
      const events = store.events(task.id, ctx.signal);
      yield { payload: { case: "task", value: view(task, undefined) } };
      yield* events;
    },

    async createTaskPushNotificationConfig(req) {
      const taskId = parentTaskIdOf(req.parent);
      const configs = store.pushConfigs(taskId);
      if (!configs) throw new A2AError("TaskNotFoundError", `Task ${taskId} not found`);
      const inner = req.config?.pushNotificationConfig;
      if (!inner?.url) throw new A2AError("InvalidParamsError", "config.pushNotificationConfig.url is required");
      const fromName = req.config?.name ? CONFIG_NAME.exec(req.config.name)?.[2] : undefined;
      const id = req.configId || inner.id || fromName || crypto.randomUUID();
      const config = create(TaskPushNotificationConfigSchema, {
        name: configName(taskId, id),
        pushNotificationConfig: { ...inner, id },
      });
      configs.set(id, config);
      return config;
    },

    async getTaskPushNotificationConfig(req) {
      const { taskId, configId } = configIdsOf(req.name);
      const configs = store.pushConfigs(taskId);
      if (!configs) throw new A2AError("TaskNotFoundError", `Task ${taskId} not found`);
      const config = configs.get(configId);
      if (!config) throw new A2AError("TaskNotFoundError", `Push config ${configId} of task ${taskId} not found`);
      return config;
    },

    async listTaskPushNotificationConfig(req) {
      const taskId = taskIdOf(req.parent);
      const configs = store.pushConfigs(taskId);
      if (!configs) throw new A2AError("TaskNotFoundError", `Task ${taskId} not found`);
      return { configs: [...configs.values()], nextPageToken: "" };
    },

    async getAgentCard() {
      if (!options.extendedCard) throw new A2AError("AuthenticatedExtendedCardNotConfiguredError");
      return options.extendedCard();
    },

    async deleteTaskPushNotificationConfig(req) {
      const { taskId, configId } = configIdsOf(req.name);
      const configs = store.pushConfigs(taskId);
      if (!configs) throw new A2AError("TaskNotFoundError", `Task ${taskId} not found`);
      if (!configs.delete(configId))
        throw new A2AError("TaskNotFoundError", `Push config ${configId} of task ${taskId} not found`);
      return {};
    },
  };
}

// ---------------------------------------------------------------------------
// Agent card (v0.3 shape: url + preferredTransport + additionalInterfaces)
// ---------------------------------------------------------------------------

export interface V03AgentUrls {
  readonly jsonrpc: string;
  /** The HTTP+JSON base URL, without "/v1" (clients append "/v1/…"). */
  readonly rest: string;
  /** "host:port". */
  readonly grpc: string;
}

export function v03EchoAgentCard(urls: V03AgentUrls, extended = false): AgentCard {
  return create(AgentCardSchema, {
    protocolVersion: "0.3.0",
    name: V03_AGENT_NAME + (extended ? V03_EXTENDED_SUFFIX : ""),
    description: "Echoes each text message back as an artifact (protoc-gen-a2a, A2A v0.3 stubs).",
    url: urls.jsonrpc,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: urls.jsonrpc, transport: "JSONRPC" },
      { url: urls.rest, transport: "HTTP+JSON" },
      { url: urls.grpc, transport: "GRPC" },
    ],
    version: "0.1.0",
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      { id: "echo", name: "Echo", description: "Repeats the text it is sent.", tags: ["example"] },
      ...(extended
        ? [
            {
              id: V03_EXTENDED_SKILL_ID,
              name: "Echo (extended)",
              description: "Only on the extended card.",
              tags: ["example"],
            },
          ]
        : []),
    ],
    supportsAuthenticatedExtendedCard: true,
  });
}

/**
 * The card document served at /.well-known/agent-card.json. The card has no
 * security schemes, so its ProtoJSON is also the a2a.json (J03) AgentCard
 * shape: the same field names, no enums, no oneofs.
 */
export function v03CardJson(card: AgentCard): JsonValue {
  return toJson(AgentCardSchema, card);
}

// ---------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------

export interface RunningV03Agent {
  readonly urls: V03AgentUrls & { readonly card: string };
  /** The card as served (JSON). */
  readonly card: JsonValue;
  close(): Promise<void>;
}

const listen = (server: Server | Http2Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });

export async function startV03EchoAgent(options: { port?: number; grpcPort?: number } = {}): Promise<RunningV03Agent> {
  let urls: V03AgentUrls | undefined;
  const handler = createV03EchoHandler({ extendedCard: () => v03EchoAgentCard(urls!, true) });
  const http = createServer(
    nodeHttpListener(
      createA2AServiceHttpHandler({
        handler,
        jsonrpcPath: "/a2a/jsonrpc",
        restBasePath: "/a2a/rest",
        agentCard: () => v03CardJson(v03EchoAgentCard(urls!)),
      }),
    ),
  );
  const grpc = createHttp2Server(
    connectNodeAdapter({ routes: a2aServiceGrpcRoutes({ handler }), grpc: true, connect: false, grpcWeb: false }),
  );
  // HTTP/2 sessions outlive calls; close() ends them so the server can stop.
  const sessions = new Set<ServerHttp2Session>();
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  const port = await listen(http, options.port ?? 0);
  const grpcPort = await listen(grpc, options.grpcPort ?? 0);
  urls = {
    jsonrpc: `http://127.0.0.1:${port}/a2a/jsonrpc`,
    rest: `http://127.0.0.1:${port}/a2a/rest`,
    grpc: `127.0.0.1:${grpcPort}`,
  };
  return {
    urls: { ...urls, card: `http://127.0.0.1:${port}/.well-known/agent-card.json` },
    card: v03CardJson(v03EchoAgentCard(urls)),
    close: async () => {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => grpc.close(() => resolve())),
      ]);
    },
  };
}
