/**
 * Small v1.0 values for the task store tests, built with the generated
 * protobuf-es schemas: a task (state, status time, history, artifacts), and
 * the StreamResponse events a commit carries, and the HandlerContext of an
 * in-process call.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@protoc-gen-a2a/runtime";
import { createContextValues } from "@protoc-gen-a2a/runtime/protocol";
import {
  ArtifactSchema,
  MessageSchema,
  Role,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";

export { TaskState };

export interface TaskSpec {
  readonly contextId?: string;
  readonly state?: TaskState;
  /** Status time, ms since the epoch; none: no timestamp. */
  readonly ms?: number;
  readonly history?: readonly string[];
  readonly artifacts?: readonly (readonly [id: string, text: string])[];
}

export function message(text: string, role: Role = Role.USER): Message {
  return create(MessageSchema, { messageId: `m-${text}`, role, parts: [{ content: { case: "text", value: text } }] });
}

export function artifact(id: string, text: string): Artifact {
  return create(ArtifactSchema, { artifactId: id, name: id, parts: [{ content: { case: "text", value: text } }] });
}

export function task(id: string, spec: TaskSpec = {}): Task {
  const contextId = spec.contextId ?? "ctx";
  return create(TaskSchema, {
    id,
    contextId,
    status: {
      state: spec.state ?? TaskState.SUBMITTED,
      ...(spec.ms === undefined ? {} : { timestamp: timestampFromMs(spec.ms) }),
    },
    history: (spec.history ?? []).map((text) => message(text)),
    artifacts: (spec.artifacts ?? []).map(([aid, text]) => artifact(aid, text)),
    metadata: { spec: id },
  });
}

export function statusEvent(t: Task): StreamResponse {
  return create(StreamResponseSchema, {
    payload: { case: "statusUpdate", value: { taskId: t.id, contextId: t.contextId, status: t.status } },
  });
}

export function artifactEvent(t: Task, a: Artifact): StreamResponse {
  return create(StreamResponseSchema, {
    payload: { case: "artifactUpdate", value: { taskId: t.id, contextId: t.contextId, artifact: a } },
  });
}

/** The HandlerContext of a v1.0 JSON-RPC call without tenant, for calling a handler in-process. */
export function handlerContext(): HandlerContext {
  return {
    signal: new AbortController().signal,
    headers: new Headers(),
    header: () => null,
    protocolVersion: "1.0",
    extensions: [],
    binding: "JSONRPC",
    tenant: undefined,
    query: new URLSearchParams(),
    clientCertificate: undefined,
    values: createContextValues(),
    principal: undefined,
  };
}
