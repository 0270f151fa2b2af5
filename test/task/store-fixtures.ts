/**
 * Builders for the TaskStore tests: v1.0 tasks, events and push configs as
 * protobuf-es plain objects (with a bigint Timestamp, bytes and metadata, so
 * copies and round trips are checked on every kind of field).
 */
import { randomUUID } from "node:crypto";
import type {
  Message,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from "../../packages/runtime/src/task/a2a-types.js";
import type { StoredPushConfig } from "../../packages/runtime/src/task/store.js";

/** 2023-11-14T22:13:20Z: a base instant for status timestamps, in milliseconds. */
export const BASE_MS = 1_700_000_000_000;

/** A tenant no other test uses, so tests can share one backend (a database) without cleaning it. */
export function freshTenant(): string {
  return `tenant-${randomUUID()}`;
}

export interface TaskShape {
  readonly contextId?: string;
  readonly state?: number;
  /** Status timestamp in milliseconds since the epoch (sub-millisecond parts allowed). */
  readonly ms?: number;
  readonly text?: string;
}

export function message(text: string): Message {
  return {
    $typeName: "lf.a2a.v1.Message",
    messageId: `m-${text}`,
    contextId: "",
    taskId: "",
    role: 1,
    parts: [
      { $typeName: "lf.a2a.v1.Part", content: { case: "text", value: text }, filename: "", mediaType: "" },
      {
        $typeName: "lf.a2a.v1.Part",
        content: { case: "raw", value: new Uint8Array([1, 2, 3]) },
        filename: "f.bin",
        mediaType: "application/octet-stream",
      },
    ],
    metadata: { nested: { list: [1, "two", true, null] } },
    extensions: [],
    referenceTaskIds: [],
  };
}

export function makeTask(id: string, shape: TaskShape = {}): Task {
  const ms = shape.ms ?? BASE_MS;
  const seconds = Math.floor(ms / 1000);
  return {
    $typeName: "lf.a2a.v1.Task",
    id,
    contextId: shape.contextId ?? "ctx",
    status: {
      $typeName: "lf.a2a.v1.TaskStatus",
      state: shape.state ?? 1,
      timestamp: {
        $typeName: "google.protobuf.Timestamp",
        seconds: BigInt(seconds),
        nanos: Math.round((ms - seconds * 1000) * 1e6),
      },
    },
    artifacts: [],
    history: [message(shape.text ?? `hello ${id}`)],
    metadata: { shape: "task" },
  };
}

export function taskEvent(task: Task): StreamResponse {
  return { $typeName: "lf.a2a.v1.StreamResponse", payload: { case: "task", value: task } };
}

export function statusEvent(task: Task): StreamResponse {
  return {
    $typeName: "lf.a2a.v1.StreamResponse",
    payload: {
      case: "statusUpdate",
      value: {
        $typeName: "lf.a2a.v1.TaskStatusUpdateEvent",
        taskId: task.id,
        contextId: task.contextId,
        status: task.status,
      },
    },
  };
}

export function pushConfig(
  tenant: string,
  taskId: string,
  id: string,
  url = "https://example.com/hook",
): StoredPushConfig {
  const config: TaskPushNotificationConfig = {
    $typeName: "lf.a2a.v1.TaskPushNotificationConfig",
    tenant,
    id,
    taskId,
    url,
    token: `token-${id}`,
    authentication: { $typeName: "lf.a2a.v1.AuthenticationInfo", scheme: "Bearer", credentials: "secret" },
  };
  return { config, protocolVersion: "1.0" };
}
