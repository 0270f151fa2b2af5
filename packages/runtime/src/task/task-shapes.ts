/**
 * Building and trimming the v1.0 shapes the task runtime writes: agent
 * messages, statuses (always stamped now), the StreamResponse events of a
 * change, and the views of a task a response returns.
 *
 *   historyLength  unset: the whole history; 0: none; n > 0: the last n
 *                  messages (S1 §3.2.4); negative: InvalidParamsError
 *   artifacts      kept, unless the caller asked without them (ListTasks'
 *                  includeArtifacts, false by default, S1 §3.1.4)
 *
 * Changes copy what they touch; a task read from the store is never mutated.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { A2AError } from "../core/a2a-error.js";
import { Role, TaskState, type Message, type StreamResponse, type Task, type TaskStatus } from "./a2a-types.js";
import { withNames } from "../core/records.js";

/** Where a message belongs. */
export interface MessagePlace {
  readonly taskId: string;
  readonly contextId: string;
}

/** An agent message: text becomes one text part; a message gets the task's ids where it has none. */
export function agentMessage(message: Message | string, place: MessagePlace, newId: () => string): Message {
  if (typeof message !== "string") {
    return { ...message, taskId: message.taskId || place.taskId, contextId: message.contextId || place.contextId };
  }
  return {
    $typeName: "lf.a2a.v1.Message",
    messageId: newId(),
    contextId: place.contextId,
    taskId: place.taskId,
    role: Role.AGENT,
    parts: [{ $typeName: "lf.a2a.v1.Part", content: { case: "text", value: message }, filename: "", mediaType: "" }],
    extensions: [],
    referenceTaskIds: [],
  };
}

/** google.protobuf.Timestamp of now, as timestampNow() makes it, built directly (create() is reflective). */
function timestampNow(): Timestamp {
  const ms = Date.now();
  const seconds = Math.floor(ms / 1000);
  return { $typeName: "google.protobuf.Timestamp", seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

export function statusNow(state: TaskState, message?: Message): TaskStatus {
  return { $typeName: "lf.a2a.v1.TaskStatus", state, message, timestamp: timestampNow() };
}

export function statusEvent(task: Task, metadata?: JsonObject): StreamResponse {
  return {
    $typeName: "lf.a2a.v1.StreamResponse",
    payload: {
      case: "statusUpdate",
      value: {
        $typeName: "lf.a2a.v1.TaskStatusUpdateEvent",
        taskId: task.id,
        contextId: task.contextId,
        status: task.status,
        metadata,
      },
    },
  };
}

export function taskEvent(task: Task): StreamResponse {
  return { $typeName: "lf.a2a.v1.StreamResponse", payload: { case: "task", value: task } };
}

export function messageEvent(message: Message): StreamResponse {
  return { $typeName: "lf.a2a.v1.StreamResponse", payload: { case: "message", value: message } };
}

/** The task with a new status; the status message, if any, joins the history. */
export function withStatus(task: Task, state: TaskState, message?: Message): Task {
  const history = message ? [...task.history, message] : task.history;
  return withNames(task, { status: statusNow(state, message), history });
}

/** Refuses a negative historyLength, naming the operation's field. */
export function checkHistoryLength(historyLength: number | undefined, field: string): void {
  if (historyLength !== undefined && historyLength < 0) {
    throw new A2AError("InvalidParamsError", `${field} must be 0 or more, got ${historyLength}`);
  }
}

/** The task as a response shows it (see the header). */
export function taskView(task: Task, historyLength: number | undefined, includeArtifacts = true): Task {
  const history =
    historyLength === undefined ? task.history : historyLength === 0 ? [] : task.history.slice(-historyLength);
  return { ...task, history, artifacts: includeArtifacts ? task.artifacts : [] };
}

/** The state's name as the wire writes it, e.g. TASK_STATE_COMPLETED. */
export function stateName(state: TaskState): string {
  const name = Object.entries(TaskState).find(([, n]) => n === state)?.[0];
  return name ? `TASK_STATE_${name}` : `state ${state}`;
}
