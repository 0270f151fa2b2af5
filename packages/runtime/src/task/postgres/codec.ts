/**
 * Protobuf binary for the store's bodies, with the schemas taken from the
 * user's v1.0 service definition (the runtime ships no generated code):
 * every message type reachable from the service's methods is indexed by its
 * full name, and the five the store writes must be there
 * (lf.a2a.v1.Task, Message, Artifact, TaskPushNotificationConfig,
 * StreamResponse), else the definition is refused, naming the missing one.
 *
 * A task is stored in three parts: its history and artifacts one row each,
 * and the rest (status, metadata) as a Task with both lists empty.
 */
import * as crypto from "node:crypto";
import { type DescMessage, fromBinary, type Message as PbMessage, toBinary } from "@bufbuild/protobuf";
import type { A2aServiceDefinition } from "../../core/definition.js";
import type { Artifact, Message, StreamResponse, Task, TaskPushNotificationConfig } from "../a2a-types.js";

export interface Codec<T> {
  encode(value: T): Buffer;
  decode(bytes: Uint8Array): T;
}

export interface StoreCodecs {
  readonly task: Codec<Task>;
  readonly message: Codec<Message>;
  readonly artifact: Codec<Artifact>;
  readonly pushConfig: Codec<TaskPushNotificationConfig>;
  readonly event: Codec<StreamResponse>;
}

function collectMessages(desc: DescMessage, into: Map<string, DescMessage>): void {
  if (into.has(desc.typeName)) return;
  into.set(desc.typeName, desc);
  for (const field of desc.fields) {
    if (field.message !== undefined) collectMessages(field.message, into);
  }
}

function codec<T extends PbMessage>(byName: ReadonlyMap<string, DescMessage>, typeName: T["$typeName"]): Codec<T> {
  const schema = byName.get(typeName);
  if (schema === undefined) {
    throw new Error(`PostgreSQL task store: the service definition has no message ${typeName} (a v1.0 definition?)`);
  }
  return {
    encode: (value) => {
      const bytes = toBinary(schema, value);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    // A plain Uint8Array view, so bytes fields come out as Uint8Array, not as slices of pg's Buffer.
    decode: (bytes) => fromBinary(schema, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as T,
  };
}

/** The codecs of the five stored message types, from the definition's methods. */
export function storeCodecs(definition: A2aServiceDefinition): StoreCodecs {
  const byName = new Map<string, DescMessage>();
  for (const method of definition.service.methods) {
    collectMessages(method.input, byName);
    collectMessages(method.output, byName);
  }
  return {
    task: codec<Task>(byName, "lf.a2a.v1.Task"),
    message: codec<Message>(byName, "lf.a2a.v1.Message"),
    artifact: codec<Artifact>(byName, "lf.a2a.v1.Artifact"),
    pushConfig: codec<TaskPushNotificationConfig>(byName, "lf.a2a.v1.TaskPushNotificationConfig"),
    event: codec<StreamResponse>(byName, "lf.a2a.v1.StreamResponse"),
  };
}

/** The sha256 of a body, to tell changed rows from unchanged ones. */
export function digest(bytes: Uint8Array): Buffer {
  // One call, no Hash object (Node 20.12 on): a third cheaper on a body of a few hundred bytes.
  return oneShot === undefined
    ? crypto.createHash("sha256").update(bytes).digest()
    : oneShot("sha256", bytes, "buffer");
}

type OneShotHash = (algorithm: string, data: Uint8Array, encoding: "buffer") => Buffer;
const oneShot = (crypto as { hash?: OneShotHash }).hash;

/** The task without history and artifacts, as stored in tasks.body. */
export function taskBody(codecs: StoreCodecs, task: Task): Buffer {
  return codecs.task.encode({ ...task, history: [], artifacts: [] });
}

/** The status timestamp in microseconds since the epoch, as a decimal string (0 without one). */
export function statusMicros(task: Task): string {
  const ts = task.status?.timestamp;
  if (ts === undefined) return "0";
  return (ts.seconds * 1_000_000n + BigInt(Math.floor(ts.nanos / 1000))).toString();
}
