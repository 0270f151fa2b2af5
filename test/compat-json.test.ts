/**
 * The direct JSON-RPC conversions (generated-samples/a2a_compat_jsonrpc.ts, the
 * `fromOlderJson` / `toOlderJson` functions and the a2aCompatJson table):
 * a2a.json (v0.3 JSON-RPC) ↔ v1.0 messages in one pass. They must give what
 * the proto path gives (dialect codec → fromJson → a2aCompat, and back) on
 * every input, report the same losses, refuse the same bad values, carry the
 * a2a.json-only fields (dialectFields) that the proto path loses, and write
 * payloads that validate against a2a.json.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { create, equals, fromJson, toJson, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { TimestampSchema, ValueSchema, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { nodeHttpListener } from "@protoc-gen-a2a/runtime";
import type { Loss } from "@protoc-gen-a2a/runtime";
import { CompatJsonError } from "@protoc-gen-a2a/runtime/protocol";
import { base64, bytes, timestampJson, valueJson } from "@protoc-gen-a2a/runtime/compat-json";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import * as direct from "../generated-samples/a2a_compat.js";
import { a2aCompat, bridgeToOlder, clientForOlder } from "../generated-samples/a2a_compat.js";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v0.3.0/a2a_rest.js";
import { startV03EchoAgent } from "./helpers/v03-echo-agent.js";
import { createEchoHandler } from "../examples/echo-agent/echo-handler.js";
import {
  A2AServiceV0_3,
  createA2AServiceHttpHandler as createV03HttpHandler,
} from "../generated-samples/v0.3.0/a2a_a2a.js";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as v10 from "../generated-samples/v1.0.1/a2a_pb.js";
import * as v03 from "../generated-samples/v0.3.0/a2a_pb.js";
import { repoRoot } from "./helpers/run.js";

const dialect = A2AServiceV0_3.jsonrpcCodec!;

/** The proto path toward v1.0: the dialect codec, fromJson of the v0.3 message, then the plan converter. */
function viaProtoToNewer(desc03: DescMessage, json: unknown): { message: Message; reasons: string[] } {
  const reasons: string[] = [];
  const older = fromJson(
    desc03,
    dialect.decode(desc03, json as JsonValue, (_path, reason) => reasons.push(reason)),
    { ignoreUnknownFields: true },
  );
  const c = a2aCompat.convert(older, "toNewer");
  return { message: c.message, reasons: [...reasons, ...c.lost.map((l) => l.reason)].sort() };
}

/** The proto path toward v0.3: the plan converter, toJson of the v0.3 message, then the dialect codec. */
function viaProtoToOlder(desc03: DescMessage, message: Message): { json: JsonValue; lost: Loss[] } {
  const c = a2aCompat.convert(message, "toOlder");
  return { json: dialect.encode(desc03, toJson(desc03, c.message)), lost: c.lost };
}

/** JSON with object keys sorted, to compare values regardless of key order. */
const canonical = (v: unknown) =>
  JSON.stringify(v, (_, x) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );
const sortedLosses = (l: readonly Loss[]) => l.map((x) => `${x.path}: ${x.reason}`).sort();

// ---- v1.0 messages ----

const id = fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/);
const text = fc.string({ maxLength: 12 });
const jsonObject = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 3,
}) as fc.Arbitrary<Record<string, JsonValue>>;
const mediaType = fc.constantFrom("", "text/plain", "image/png");

/** Parts without what only a2a.json can carry (file name, metadata): the proto path must give the same. */
const plainPart10 = fc.oneof(
  fc.tuple(text, mediaType).map(([t, m]) => ({ content: { case: "text" as const, value: t }, mediaType: m })),
  fc.tuple(fc.webUrl(), mediaType).map(([u, m]) => ({ content: { case: "url" as const, value: u }, mediaType: m })),
  fc
    .tuple(fc.uint8Array({ maxLength: 8 }), mediaType)
    .map(([b, m]) => ({ content: { case: "raw" as const, value: b }, mediaType: m })),
  fc.tuple(fc.jsonValue({ maxDepth: 2 }), mediaType).map(([d, m]) => ({
    content: { case: "data" as const, value: fromJson(ValueSchema, d as JsonValue) },
    mediaType: m,
  })),
);
const dialectExtras = fc.record({
  filename: fc.option(id, { nil: undefined }),
  metadata: fc.option(jsonObject, { nil: undefined }),
});
const part10 = (withExtras: boolean) =>
  withExtras ? fc.tuple(plainPart10, dialectExtras).map(([p, x]) => ({ ...p, ...x })) : plainPart10;
const role10 = (full: boolean) =>
  full
    ? fc.constantFrom(v10.Role.USER, v10.Role.AGENT)
    : fc.constantFrom(v10.Role.UNSPECIFIED, v10.Role.USER, v10.Role.AGENT);
/** A message field: always there when `full` (REQUIRED in the proto, as a2a.json requires it). */
const required = <T>(full: boolean, a: fc.Arbitrary<T>) => (full ? a : fc.option(a, { nil: undefined }));
const state10 = fc.constantFrom(...([0, 1, 2, 3, 4, 5, 6, 7, 8] as v10.TaskState[]));
const timestamp = fc
  .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) => timestampFromDate(d));
const message10 = (x: boolean) =>
  fc.record({
    messageId: id,
    contextId: fc.constantFrom("", "ctx-1"),
    taskId: fc.constantFrom("", "task-1"),
    role: role10(x),
    parts: fc.array(part10(x), { maxLength: 3 }),
    metadata: fc.option(jsonObject, { nil: undefined }),
    extensions: fc.array(fc.webUrl(), { maxLength: 1 }),
    referenceTaskIds: x ? fc.array(id, { maxLength: 2 }) : fc.constant([]),
  });
const status10 = (x: boolean) =>
  fc.record({
    state: state10,
    message: fc.option(message10(x), { nil: undefined }),
    timestamp: fc.option(timestamp, { nil: undefined }),
  });
const artifact10 = (x: boolean) =>
  fc.record({
    artifactId: id,
    name: text,
    description: text,
    parts: fc.array(part10(x), { maxLength: 3 }),
    metadata: fc.option(jsonObject, { nil: undefined }),
    extensions: fc.array(fc.webUrl(), { maxLength: 1 }),
  });
const task10 = (x: boolean) =>
  fc.record({
    id,
    contextId: id,
    status: required(x, status10(x)),
    artifacts: fc.array(artifact10(x), { maxLength: 3 }),
    history: fc.array(message10(x), { maxLength: 2 }),
    metadata: fc.option(jsonObject, { nil: undefined }),
  });
const pushConfig10 = fc.record({
  tenant: fc.constantFrom("", "acme"),
  id: fc.constantFrom("", "cfg-1"),
  taskId: fc.constantFrom("", "task-1"),
  url: fc.webUrl(),
  token: fc.constantFrom("", "tok"),
  authentication: fc.option(
    fc.record({ scheme: fc.constantFrom("", "Bearer"), credentials: fc.constantFrom("", "secret") }),
    { nil: undefined },
  ),
});
const sendRequest10 = (x: boolean) =>
  fc.record({
    tenant: fc.constantFrom("", "acme"),
    message: required(x, message10(x)),
    configuration: fc.option(
      fc.record({
        acceptedOutputModes: fc.array(fc.constantFrom("text/plain", "application/json"), { maxLength: 2 }),
        taskPushNotificationConfig: fc.option(pushConfig10, { nil: undefined }),
        historyLength: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
        returnImmediately: fc.boolean(),
      }),
      { nil: undefined },
    ),
    metadata: fc.option(jsonObject, { nil: undefined }),
  });
const statusEvent10 = (x: boolean) =>
  fc.record({
    taskId: id,
    contextId: id,
    status: required(x, status10(x)),
    metadata: fc.option(jsonObject, { nil: undefined }),
  });
const artifactEvent10 = (x: boolean) =>
  fc.record({
    taskId: id,
    contextId: id,
    artifact: required(x, artifact10(x)),
    append: fc.boolean(),
    lastChunk: fc.boolean(),
    metadata: fc.option(jsonObject, { nil: undefined }),
  });

interface Case {
  readonly name: string;
  readonly desc10: DescMessage;
  readonly desc03: DescMessage;
  /** With `full`: also what only a2a.json carries (dialectFields), every REQUIRED message field set, no ROLE_UNSPECIFIED. */
  readonly init: (full: boolean) => fc.Arbitrary<object>;
  readonly toOlder: (m: never) => { json: JsonValue; lost: Loss[] };
  readonly fromOlder: (j: JsonValue) => { message: Message; lost: Loss[] };
  /** The a2a.json definition its v0.3 JSON is an instance of. */
  readonly definition: string;
}

const sendResponse10 = (x: boolean) =>
  fc.oneof(
    task10(x).map((value) => ({ payload: { case: "task" as const, value } })),
    message10(x).map((value) => ({ payload: { case: "message" as const, value } })),
  );
const streamResponse10 = (x: boolean) =>
  fc.oneof(
    sendResponse10(x),
    statusEvent10(x).map((value) => ({ payload: { case: "statusUpdate" as const, value } })),
    artifactEvent10(x).map((value) => ({ payload: { case: "artifactUpdate" as const, value } })),
  );

const cases: Case[] = [
  {
    name: "SendMessageRequest",
    desc10: v10.SendMessageRequestSchema,
    desc03: v03.SendMessageRequestSchema,
    init: sendRequest10,
    toOlder: direct.toOlderJson,
    fromOlder: (j: JsonValue) => direct.fromOlderJson(v10.SendMessageRequestSchema, j),
    definition: "MessageSendParams",
  },
  {
    name: "Task",
    desc10: v10.TaskSchema,
    desc03: v03.TaskSchema,
    init: task10,
    toOlder: direct.toOlderJson,
    fromOlder: (j: JsonValue) => direct.fromOlderJson(v10.TaskSchema, j),
    definition: "Task",
  },
  {
    name: "Message",
    desc10: v10.MessageSchema,
    desc03: v03.MessageSchema,
    init: message10,
    toOlder: direct.toOlderJson,
    fromOlder: (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
    definition: "Message",
  },
  {
    name: "TaskStatusUpdateEvent",
    desc10: v10.TaskStatusUpdateEventSchema,
    desc03: v03.TaskStatusUpdateEventSchema,
    init: statusEvent10,
    toOlder: direct.toOlderJson,
    fromOlder: (j: JsonValue) => direct.fromOlderJson(v10.TaskStatusUpdateEventSchema, j),
    definition: "TaskStatusUpdateEvent",
  },
  {
    name: "SendMessageResponse",
    desc10: v10.SendMessageResponseSchema,
    desc03: v03.SendMessageResponseSchema,
    init: sendResponse10,
    toOlder: direct.toOlderJson,
    fromOlder: (j: JsonValue) => direct.fromOlderJson(v10.SendMessageResponseSchema, j),
    definition: "SendMessageSuccessResponse/properties/result",
  },
  {
    name: "StreamResponse",
    desc10: v10.StreamResponseSchema,
    desc03: v03.StreamResponseSchema,
    init: streamResponse10,
    toOlder: direct.toOlderJson,
    fromOlder: (j: JsonValue) => direct.fromOlderJson(v10.StreamResponseSchema, j),
    definition: "SendStreamingMessageSuccessResponse/properties/result",
  },
  {
    name: "TaskArtifactUpdateEvent",
    desc10: v10.TaskArtifactUpdateEventSchema,
    desc03: v03.TaskArtifactUpdateEventSchema,
    init: artifactEvent10,
    toOlder: direct.toOlderJson,
    fromOlder: (j: JsonValue) => direct.fromOlderJson(v10.TaskArtifactUpdateEventSchema, j),
    definition: "TaskArtifactUpdateEvent",
  },
];

/** Some a2a.json variation the dialect allows: no `kind`, proto enum names, the proto key of a rename, null for unset, unknown keys. */
function vary(
  json: JsonValue,
  how: { dropKind: boolean; protoEnums: boolean; extraKey: boolean; nulls: boolean },
): JsonValue {
  const spelled: Record<string, string> = {
    working: "TASK_STATE_WORKING",
    completed: "TASK_STATE_COMPLETED",
    canceled: "TASK_STATE_CANCELLED",
    user: "ROLE_USER",
  };
  const walk = (v: JsonValue, key: string | undefined): JsonValue => {
    if (Array.isArray(v)) return v.map((x) => walk(x, undefined));
    if (v === null || typeof v !== "object")
      return how.protoEnums && (key === "state" || key === "role") && typeof v === "string" ? (spelled[v] ?? v) : v;
    const out: Record<string, JsonValue> = {};
    for (const [k, x] of Object.entries(v)) {
      if (how.dropKind && k === "kind") continue;
      out[k === "pushNotificationConfig" && how.protoEnums ? "pushNotification" : k] = walk(x, k);
    }
    if (how.extraKey) out["zzUnknown"] = 1;
    if (how.nulls && !("taskId" in out)) out["taskId"] = null;
    return out;
  };
  return walk(json, undefined);
}

const variation = fc.record({
  dropKind: fc.boolean(),
  protoEnums: fc.boolean(),
  extraKey: fc.boolean(),
  nulls: fc.boolean(),
});

describe("the direct conversions give what the proto path gives", () => {
  for (const c of cases) {
    it(`${c.name}: v1.0 → a2a.json, the same JSON and the same losses`, () => {
      fc.assert(
        fc.property(c.init(false), (init) => {
          const m = create(c.desc10, init as never);
          const ours = c.toOlder(m as never);
          const ref = viaProtoToOlder(c.desc03, m);
          expect(canonical(ours.json)).toBe(canonical(ref.json));
          expect(sortedLosses(ours.lost)).toEqual(sortedLosses(ref.lost));
        }),
        { numRuns: 300 },
      );
    });

    it(`${c.name}: a2a.json → v1.0, the same message and the same losses`, () => {
      fc.assert(
        fc.property(c.init(false), variation, (init, how) => {
          const json = vary(viaProtoToOlder(c.desc03, create(c.desc10, init as never)).json, how);
          const ours = c.fromOlder(json);
          const ref = viaProtoToNewer(c.desc03, json);
          expect(equals(c.desc10, ours.message, ref.message)).toBe(true);
          expect(ours.lost.map((l) => l.reason).sort()).toEqual(ref.reasons);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("the agent card and resource-name requests give what the proto path gives, their dialectFields carried", () => {
    const card = {
      name: "a",
      description: "d",
      url: "http://h/a2a",
      version: "1",
      protocolVersion: "0.3.0",
      iconUrl: "http://h/i.png",
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
      zz: 1,
    };
    const ours = direct.fromOlderJson(v10.AgentCardSchema, card);
    const ref = viaProtoToNewer(v03.AgentCardSchema, card);
    // The proto path loses iconUrl (P03 has no icon_url); ours carries it (dialectFields) and says nothing of it.
    expect(
      equals(v10.AgentCardSchema, ours.message, { ...(ref.message as v10.AgentCard), iconUrl: "http://h/i.png" }),
    ).toBe(true);
    expect(ours.lost).toEqual([{ path: "zz", reason: "a2a.v1.AgentCard has no field for it" }]);
    expect(ref.reasons).toEqual(["a2a.v1.AgentCard has no field for it", "a2a.v1.AgentCard has no field for it"]);
    const back = direct.toOlderJson(ours.message);
    expect([(back.json as Record<string, unknown>)["iconUrl"], back.lost]).toEqual(["http://h/i.png", []]);
    const get = direct.fromOlderJson(v10.GetTaskRequestSchema, { id: "t-1", historyLength: 2 });
    expect([get.message.id, get.message.historyLength]).toEqual(["t-1", 2]);
  });
});

describe("messages the dialect writes whole, and resource names", () => {
  it("a typed union (SecurityScheme) and a list map (Security), both ways", () => {
    const scheme = { type: "oauth2", flows: { clientCredentials: { tokenUrl: "t", scopes: { read: "r" } } } };
    const read = direct.fromOlderJson(v10.SecuritySchemeSchema, scheme);
    expect(read.lost).toEqual([]);
    expect(read.message.scheme.case).toBe("oauth2SecurityScheme");
    expect(direct.toOlderJson(read.message)).toEqual({ json: scheme, lost: [] });
    const unknown = direct.fromOlderJson(v10.SecuritySchemeSchema, { type: "magic" });
    expect(unknown.lost).toEqual([{ path: "type", reason: 'unknown a2a.v1.SecurityScheme type "magic"' }]);
    const security = { oauth: ["read", "write"], key: [] };
    const req = direct.fromOlderJson(v10.SecurityRequirementSchema, security);
    expect(req.message.schemes["oauth"]?.list).toEqual(["read", "write"]);
    expect(direct.toOlderJson(req.message)).toEqual({ json: security, lost: [] });
    expect(() => direct.fromOlderJson(v10.SecurityRequirementSchema, { oauth: "read" })).toThrow(CompatJsonError);
  });

  it("an array result (the push config list): the bare list; a page token has no place in it", () => {
    const list = [{ taskId: "t", pushNotificationConfig: { id: "c", url: "http://h/cb" } }];
    const read = direct.fromOlderJson(v10.ListTaskPushNotificationConfigsResponseSchema, list);
    expect(read.message.configs.map((c) => [c.taskId, c.id, c.url])).toEqual([["t", "c", "http://h/cb"]]);
    const back = direct.toOlderJson({ ...read.message, nextPageToken: "p" });
    expect(back.json).toEqual(list);
    expect(back.lost.map((l) => l.path)).toEqual(["next_page_token"]);
  });

  it("resource names: the ids a2a.json spells, both ways, as they are (an id with a slash too)", () => {
    const get = direct.fromOlderJson(v10.GetTaskPushNotificationConfigRequestSchema, {
      id: "t",
      pushNotificationConfigId: "c",
    });
    expect([get.message.taskId, get.message.id, get.lost]).toEqual(["t", "c", []]);
    expect(direct.toOlderJson(get.message).json).toEqual({ id: "t", pushNotificationConfigId: "c" });
    // a2a.json and v1.0 both hold the ids apart; only the v0.3 proto's name could not hold this one.
    const odd = direct.fromOlderJson(v10.DeleteTaskPushNotificationConfigRequestSchema, {
      id: "a/b",
      pushNotificationConfigId: "c/d",
    });
    expect([odd.message.taskId, odd.message.id, odd.lost]).toEqual(["a/b", "c/d", []]);
    expect(direct.toOlderJson(odd.message).json).toEqual({ id: "a/b", pushNotificationConfigId: "c/d" });
    const cancel = direct.fromOlderJson(v10.CancelTaskRequestSchema, { id: "t", name: "tasks/t" });
    expect(cancel.lost).toEqual([{ path: "name", reason: "a2a.v1.CancelTaskRequest has no field for it" }]);
    // The v0.3 proto (REST and gRPC) names it tasks/a/b/pushNotificationConfigs/c/d: reported, each id.
    const slash = 'a v0.3 resource name holds each id as one segment; an id with "/" is not read back from it';
    const named = a2aCompat.convert(odd.message, "toOlder");
    expect(named.message).toMatchObject({ name: "tasks/a/b/pushNotificationConfigs/c/d" });
    expect(named.lost).toEqual([
      { path: "task_id", reason: slash },
      { path: "id", reason: slash },
    ]);
    expect(a2aCompat.convert(create(v10.GetTaskRequestSchema, { id: "t" }), "toOlder").lost).toEqual([]);
  });
});

describe("what a2a.json carries and the v0.3 proto cannot (dialectFields)", () => {
  it("file names, part metadata and referenceTaskIds survive a2a.json → v1.0 → a2a.json, unreported", () => {
    fc.assert(
      fc.property(message10(true), (init) => {
        const m = create(v10.MessageSchema, init as never);
        const there = direct.toOlderJson(m);
        const back = direct.fromOlderJson(v10.MessageSchema, there.json);
        expect(back.lost).toEqual([]);
        // What v0.3 cannot hold either way: media types of text and data parts, file names on them, non-object data.
        const kept = there.lost.length === 0;
        if (kept) expect(equals(v10.MessageSchema, back.message, m)).toBe(true);
        expect(back.message.referenceTaskIds).toEqual(m.referenceTaskIds);
        for (const [i, p] of m.parts.entries()) expect(back.message.parts[i]!.metadata).toEqual(p.metadata);
      }),
      { numRuns: 300 },
    );
  });

  it("the proto path reports them lost; the direct one keeps them", () => {
    const json = {
      kind: "message",
      messageId: "m",
      role: "user",
      referenceTaskIds: ["t0"],
      parts: [
        {
          kind: "file",
          file: { uri: "https://x/r.pdf", name: "r.pdf", mimeType: "application/pdf" },
          metadata: { page: 1 },
        },
      ],
    };
    const ours = direct.fromOlderJson(v10.MessageSchema, json);
    expect(ours.lost).toEqual([]);
    expect(ours.message.referenceTaskIds).toEqual(["t0"]);
    expect([ours.message.parts[0]!.filename, ours.message.parts[0]!.metadata]).toEqual(["r.pdf", { page: 1 }]);
    expect(viaProtoToNewer(v03.MessageSchema, json).reasons).toEqual(
      [
        "the v0.3 proto FilePart has no file name",
        "the v0.3 proto Part has no metadata",
        "a2a.v1.Message has no field for it",
      ].sort(),
    );
    expect(direct.toOlderJson(ours.message).json).toEqual(json);
  });

  it("a file name on a text part has no place in a2a.json and is reported", () => {
    const m = create(v10.MessageSchema, {
      messageId: "m",
      role: v10.Role.USER,
      parts: [{ content: { case: "text", value: "hi" }, filename: "a.txt" }],
    });
    expect(direct.toOlderJson(m).lost).toEqual([
      { path: "parts[0].filename", reason: "a v0.3 text part has no file name" },
    ]);
  });
});

describe("bad input", () => {
  const bad: [string, DescMessage, (j: JsonValue) => unknown, JsonValue, RegExp][] = [
    [
      "a number for a string",
      v03.MessageSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
      { messageId: 5, role: "user", parts: [] },
      /a2a\.v1\.Message\.message_id/,
    ],
    [
      "parts not a list",
      v03.MessageSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
      { messageId: "m", role: "user", parts: {} },
      /a2a\.v1\.Message\.content/,
    ],
    [
      "a file with both uri and bytes",
      v03.MessageSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
      { messageId: "m", parts: [{ kind: "file", file: { uri: "u", bytes: "AA==" } }] },
      /parts\[0\]\.file/,
    ],
    [
      "bytes that are not base64",
      v03.MessageSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
      { messageId: "m", parts: [{ kind: "file", file: { bytes: "%%%" } }] },
      /file_with_bytes/,
    ],
    [
      "a boolean state",
      v03.TaskSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.TaskSchema, j),
      { id: "t", contextId: "c", status: { state: true } },
      /at status/,
    ],
    [
      "a fractional historyLength",
      v03.SendMessageRequestSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.SendMessageRequestSchema, j),
      { message: { messageId: "m", parts: [] }, configuration: { historyLength: 1.5 } },
      /history_length/,
    ],
    [
      "metadata that is not an object",
      v03.TaskSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.TaskSchema, j),
      { id: "t", contextId: "c", metadata: "x" },
      /a2a\.v1\.Task\.metadata/,
    ],
    [
      "a null in a string list",
      v03.SendMessageRequestSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.SendMessageRequestSchema, j),
      { message: { messageId: "m", parts: [] }, configuration: { acceptedOutputModes: [null] } },
      /accepted_output_modes/,
    ],
    [
      "a data part that is not an object",
      v03.MessageSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
      { messageId: "m", parts: [{ kind: "data", data: [1] }] },
      /DataPart/,
    ],
    [
      "a message that is not an object",
      v03.TaskSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.TaskSchema, j),
      { id: "t", contextId: "c", history: ["m"] },
      /history\[0\]/,
    ],
    [
      "an enum number out of the int32 range",
      v03.MessageSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
      { messageId: "m", role: 3e9, parts: [] },
      /a2a\.v1\.Message\.role/,
    ],
    [
      "an int32 string with spaces",
      v03.SendMessageRequestSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.SendMessageRequestSchema, j),
      { message: { messageId: "m", parts: [] }, configuration: { historyLength: " 5" } },
      /history_length/,
    ],
    [
      "a null in a message's string list",
      v03.MessageSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.MessageSchema, j),
      { messageId: "m", parts: [], extensions: ["a", null] },
      /at extensions\[1\]/,
    ],
    [
      "a push config url that is not a string",
      v03.SendMessageRequestSchema,
      (j: JsonValue) => direct.fromOlderJson(v10.SendMessageRequestSchema, j),
      { message: { messageId: "m", parts: [] }, configuration: { pushNotificationConfig: { url: 5 } } },
      /url at configuration\.pushNotificationConfig/,
    ],
  ];
  for (const [name, desc03, fromOlder, json, where] of bad) {
    it(`${name}: refused by both paths; ours names the field and where`, () => {
      expect(() => viaProtoToNewer(desc03, json)).toThrow();
      let thrown: unknown;
      try {
        fromOlder(json);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(CompatJsonError);
      expect((thrown as Error).message).toMatch(where);
    });
  }
});

describe("what both paths read alike", () => {
  it("null is unset, also for a oneof member: it takes no slot from the next one", () => {
    const flows = { authorizationCode: null, implicit: { authorizationUrl: "https://a", scopes: {} } };
    const ours = direct.fromOlderJson(v10.OAuthFlowsSchema, flows);
    const ref = viaProtoToNewer(v03.OAuthFlowsSchema, flows);
    expect(equals(v10.OAuthFlowsSchema, ours.message, ref.message as v10.OAuthFlows)).toBe(true);
    expect(ours.message.flow.case).toBe("implicit");
    expect([ours.lost, ref.reasons]).toEqual([[], []]);
  });

  it("a key an a2a.json part or its file does not have is reported on both paths, for the same reason", () => {
    const part = { kind: "file", file: { uri: "https://h/f", size: 3 }, note: "x" };
    const ours = direct.fromOlderJson(v10.PartSchema, part);
    const ref = viaProtoToNewer(v03.PartSchema, part);
    expect(equals(v10.PartSchema, ours.message, ref.message as v10.Part)).toBe(true);
    expect(ours.lost).toEqual([
      { path: "note", reason: "a2a.v1.Part has no field for it" },
      { path: "file.size", reason: "a2a.v1.FilePart has no field for it" },
    ]);
    const drops: [string, string][] = [];
    dialect.decode(v03.PartSchema, part, (path, reason) => drops.push([path, reason]));
    expect(drops).toEqual([
      ["note", "a2a.v1.Part has no field for it"],
      ["file.size", "a2a.v1.FilePart has no field for it"],
    ]);
    expect(ref.reasons).toEqual(["a2a.v1.FilePart has no field for it", "a2a.v1.Part has no field for it"]);
  });

  it("reads a status timestamp without a UTC offset as UTC, and reports it", () => {
    const json = {
      kind: "task",
      id: "t",
      contextId: "c",
      status: { state: "working", timestamp: "2025-04-02T16:59:25.5" },
    };
    const { message, lost } = direct.fromOlderJson(v10.TaskSchema, json);
    expect(toJson(TimestampSchema, message.status!.timestamp!)).toBe("2025-04-02T16:59:25.500Z");
    expect(lost).toEqual([{ path: "status.timestamp", reason: "the date-time has no UTC offset; read as UTC" }]);
  });

  it("a file name on a part that is not a file part is reported, not dropped", () => {
    const { lost } = direct.fromOlderJson(v10.PartSchema, { kind: "text", text: "x", file: { name: "n.txt" } });
    expect(lost).toEqual([
      { path: "file", reason: "a text part holds no file; not kept" },
      { path: "file.name", reason: "a file name on a part that is not a file part has no place in v1.0" },
    ]);
  });

  it("the content of another kind than the part's is reported, not dropped", () => {
    const read = (json: JsonValue) => direct.fromOlderJson(v10.PartSchema, json);
    const text = read({ kind: "text", text: "keep", data: { a: 1 } });
    expect([text.message.content, text.lost]).toEqual([
      { case: "text", value: "keep" },
      [{ path: "data", reason: "a text part holds no data; not kept" }],
    ]);
    expect(read({ kind: "data", data: { a: 1 }, text: "x" }).lost).toEqual([
      { path: "text", reason: "a data part holds no text; not kept" },
    ]);
    // Without a kind, the first content found decides (text, file, data), as the codec reads it too.
    expect(read({ text: "x", file: { uri: "https://f.example/a" } }).lost).toEqual([
      { path: "file", reason: "a text part holds no file; not kept" },
    ]);
  });
});

describe("user data", () => {
  it("keys named __proto__ in metadata and data stay own keys, both ways, and pollute nothing", () => {
    const json = JSON.parse(
      '{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":{"__proto__":{"x":1}}}],"metadata":{"__proto__":{"polluted":true}}}',
    );
    const m = direct.fromOlderJson(v10.MessageSchema, json).message;
    expect(Object.keys(m.metadata!)).toEqual(["__proto__"]);
    const back = direct.toOlderJson(m).json as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(back)).toBe(JSON.stringify(json));
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(back["metadata"])).toBe(Object.prototype);
  });
});

describe("a2a.json", () => {
  const schema = JSON.parse(readFileSync(join(repoRoot, "../shared/a2a-spec/v0.3.0/a2a.json"), "utf8")) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema(schema, "a2a");
  for (const c of cases) {
    it(`every ${c.name} written is an a2a.json ${c.definition}, file names and metadata included`, () => {
      const validate = ajv.getSchema(`a2a#/definitions/${c.definition}`)!;
      fc.assert(
        fc.property(c.init(true), (init) => {
          const json = c.toOlder(create(c.desc10, init as never) as never).json;
          if (!validate(json)) throw new Error(`${canonical(json)}\n${ajv.errorsText(validate.errors)}`);
        }),
        { numRuns: 200 },
      );
    });
  }
});

/** Serves `listener` on 127.0.0.1 for the length of `body`. */
async function serving(
  listener: Parameters<typeof createServer>[1],
  body: (url: string) => Promise<void>,
): Promise<void> {
  const srv: Server = createServer(listener);
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  try {
    await body(`http://127.0.0.1:${(srv.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  }
}

describe("the version bridge", () => {
  it("server side: what a request carries that v1.0 cannot hold reaches the server's onLoss; a stream with bad params is refused before any event", async () => {
    const losses: string[] = [];
    const handler = createV03HttpHandler({
      ...bridgeToOlder(createEchoHandler()),
      jsonrpcPath: "/rpc",
      onLoss: (op, l) => losses.push(`${op} ${l.path}`),
    });
    await serving(nodeHttpListener(handler), async (url) => {
      const post = (method: string, params: unknown) =>
        fetch(`${url}/rpc`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
        });
      const ok = (await (
        await post("message/send", {
          message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "hi" }], zz: 1 },
          configuration: { blocking: true },
        })
      ).json()) as { result: { kind: string } };
      expect(ok.result.kind).toBe("task");
      expect(losses).toEqual(["SendMessage message.zz"]);
      // v0.3 JSON-RPC answers a streaming method with a stream, an error before any event as its one event.
      const bad = await post("message/stream", { message: { messageId: 5, role: "user", parts: [] } });
      expect(bad.headers.get("content-type")).toBe("text/event-stream");
      const text = await bad.text();
      expect(text).toMatch(/^data: [^\n]+\n\n$/);
      const err = JSON.parse(text.slice("data: ".length)) as { id: number; error: { code: number; message: string } };
      expect([err.id, err.error.code]).toEqual([7, -32602]);
      expect(err.error.message).toMatch(/message_id at message/);
    });
  });

  it("server side with an interceptor: v0.3 messages, which drop what a2a.json adds, told to onLoss", async () => {
    const losses: string[] = [];
    const seen: string[] = [];
    const handler = createV03HttpHandler({
      ...bridgeToOlder(createEchoHandler()),
      jsonrpcPath: "/rpc",
      interceptors: [
        (next) => (call) => {
          seen.push(call.request.$typeName);
          return next(call);
        },
      ],
      onLoss: (op, l) => losses.push(`${op} ${l.path}`),
    });
    await serving(nodeHttpListener(handler), async (url) => {
      const parts = [{ kind: "text", text: "hi", metadata: { k: "v" } }];
      const message = { kind: "message", messageId: "m", role: "user", parts, referenceTaskIds: ["t-1"] };
      const answer = await fetch(`${url}/rpc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "message/send", params: { message } }),
      });
      const sent = (await answer.json()) as { result: { history: { referenceTaskIds?: string[] }[] } };
      expect(seen).toEqual(["a2a.v1.SendMessageRequest"]);
      expect(sent.result.history[0]?.referenceTaskIds).toBeUndefined();
      expect(losses).toEqual(["SendMessage message.parts[0].metadata", "SendMessage message.referenceTaskIds"]);
    });
  });

  it("client side: what a v0.3 result carries that v1.0 cannot hold reaches the JSON-RPC client's onLoss", async () => {
    const peer = nodeHttpListener(async () => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        result: { kind: "task", id: "t", contextId: "c", status: { state: "completed" }, zz: 1 },
      }),
    }));
    await serving(peer, async (url) => {
      const losses: string[] = [];
      const client = clientForOlder(
        createA2AServiceJsonRpcClient({ url, onLoss: (op, l) => losses.push(`${op} ${l.path}`) }),
      );
      const task = await client.getTask({ id: "t" });
      expect([task.id, task.status?.state]).toEqual(["t", v10.TaskState.COMPLETED]);
      expect(losses).toEqual(["GetTask zz"]);
    });
  });

  it("client side: a v1.0 call to a v0.3 agent over JSON-RPC sends a2a.json in one pass, file names and referenceTaskIds included", async () => {
    const agent = await startV03EchoAgent();
    try {
      const sent: JsonValue[] = [];
      const recording: typeof fetch = (input, init) => {
        sent.push(JSON.parse(String(init?.body)).params);
        return fetch(input, init);
      };
      const losses: string[] = [];
      const request = {
        message: {
          messageId: "m-1",
          role: v10.Role.USER,
          referenceTaskIds: ["t-0"],
          parts: [
            { content: { case: "text" as const, value: "hello" }, metadata: { k: 1 } },
            {
              content: { case: "url" as const, value: "https://h/r.pdf" },
              filename: "r.pdf",
              mediaType: "application/pdf",
            },
          ],
        },
        configuration: { returnImmediately: false },
      };
      const overJsonRpc = clientForOlder(
        createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc, fetch: recording }),
        (op, l) => losses.push(`${op} ${l.path}`),
      );
      const res = await overJsonRpc.sendMessage(request);
      expect(res.payload.case).toBe("task");
      expect(sent[0]).toEqual({
        message: {
          kind: "message",
          messageId: "m-1",
          role: "user",
          referenceTaskIds: ["t-0"],
          parts: [
            { kind: "text", text: "hello", metadata: { k: 1 } },
            { kind: "file", file: { uri: "https://h/r.pdf", mimeType: "application/pdf", name: "r.pdf" } },
          ],
        },
        configuration: { blocking: true },
      });
      expect(losses).toEqual([]);
      // Over REST the v0.3 proto carries the request, and says what it cannot.
      const overRest = clientForOlder(createA2AServiceRestClient({ url: agent.urls.rest }), (op, l) =>
        losses.push(`${op} ${l.path}`),
      );
      await overRest.sendMessage(request);
      expect(losses.sort()).toEqual([
        "SendMessage message.parts[0].metadata",
        "SendMessage message.parts[1].filename",
        "SendMessage message.reference_task_ids",
      ]);
    } finally {
      await agent.close();
    }
  });

  it("serves v0.3 JSON-RPC in one pass for every operation whose request pairs with the v1.0 request", () => {
    // With an extended card, so the handler has every operation (GetAgentCard too).
    const extendedCard = () => create(v10.AgentCardSchema, { name: "extended" });
    const { jsonrpcOperations } = bridgeToOlder(createEchoHandler({ extendedCard }));
    // Not Create (its v0.3 request wraps the config: {parent, config_id, config}) nor Delete (its result is
    // google.protobuf.Empty, written as null): those take the proto path.
    expect([...jsonrpcOperations.keys()].sort()).toEqual([
      "CancelTask",
      "GetAgentCard",
      "GetTask",
      "GetTaskPushNotificationConfig",
      "ListTaskPushNotificationConfig",
      "SendMessage",
      "SendStreamingMessage",
      "TaskSubscription",
    ]);
  });
});

describe("helpers", () => {
  it("timestamps are written as toJson writes them", () => {
    fc.assert(
      fc.property(
        fc.bigInt(-62135596800n, 253402300799n),
        fc.oneof(
          fc.constant(0),
          fc.integer({ min: 0, max: 999_999_999 }),
          fc.integer({ min: 0, max: 999 }).map((x) => x * 1_000_000),
        ),
        (seconds, nanos) => {
          const t = create(TimestampSchema, { seconds, nanos });
          expect(timestampJson(t)).toBe(toJson(TimestampSchema, t));
        },
      ),
      { numRuns: 2000 },
    );
    expect(() => timestampJson(create(TimestampSchema, { seconds: 253402300800n }))).toThrow();
  });

  it("a google.protobuf.Value is written as toJson writes it, and a number JSON cannot hold refused as it is", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (j) => {
        const v = fromJson(ValueSchema, j as JsonValue);
        expect(valueJson(v)).toEqual(toJson(ValueSchema, v));
      }),
      { numRuns: 1000 },
    );
    // NaN in a list, in a struct, and alone: toJson throws, and JSON.stringify would have written null.
    const number = (n: number) => create(ValueSchema, { kind: { case: "numberValue", value: n } });
    const list = (n: number) =>
      create(ValueSchema, { kind: { case: "listValue", value: { values: [number(1), number(n)] } } });
    const struct = (n: number) =>
      create(ValueSchema, { kind: { case: "structValue", value: { fields: { a: number(1), b: list(n) } } } });
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      for (const v of [number(n), list(n), struct(n)]) {
        expect(() => toJson(ValueSchema, v)).toThrow("google.protobuf.Value cannot be NaN or Infinity");
        expect(() => valueJson(v)).toThrow("google.protobuf.Value cannot be NaN or Infinity");
      }
  });

  it("reads Struct and Value JSON 100 levels deep and refuses deeper, rather than exhaust the stack", () => {
    const nested = (levels: number): JsonValue => {
      let v: JsonValue = {};
      for (let i = 1; i < levels; i++) v = i % 2 ? [v] : { x: v };
      return v;
    };
    const send = (metadata: JsonValue, data: JsonValue) => ({
      message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "data", data }], metadata },
    });
    const read = (j: JsonValue) => direct.fromOlderJson(v10.SendMessageRequestSchema, j);
    // 100 levels: the message metadata (a Struct) and a data part (a Value), as protobuf-es reads them.
    expect(read(send({ m: nested(99) }, { d: nested(99) })).lost).toEqual([]);
    for (const levels of [101, 100_000]) {
      for (const j of [send({ m: nested(levels) }, {}), send({}, { d: nested(levels) })]) {
        expect(() => read(j)).toThrow(CompatJsonError);
        expect(() => read(j)).toThrow(/nests deeper than 100 levels of objects and arrays$/);
      }
    }
  });

  it("names a hostile kind, enum value or scheme type in a few characters, whatever its size or depth", () => {
    let deep: JsonValue = "x";
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const huge = "k".repeat(5_000_000);
    const bounded = (run: () => { lost: Loss[] }) => {
      let message = "";
      try {
        message = run()
          .lost.map((l) => l.reason)
          .join();
      } catch (e) {
        expect(e).toBeInstanceOf(CompatJsonError);
        message = (e as Error).message;
      }
      expect(message.length).toBeLessThan(300);
      return message;
    };
    for (const kind of [deep, huge]) {
      const message = { kind, messageId: "m", role: "user", parts: [] };
      expect(bounded(() => direct.fromOlderJson(v10.MessageSchema, message))).toMatch(/unknown kind/);
      const state = { id: "t", contextId: "c", status: { state: kind } };
      expect(bounded(() => direct.fromOlderJson(v10.TaskSchema, state))).toMatch(/cannot decode/);
      const card = { name: "n", securitySchemes: { s: { type: kind } } };
      expect(bounded(() => direct.fromOlderJson(v10.AgentCardSchema, card))).toMatch(/unknown .* type/);
      expect(() => dialect.decode(v03.MessageSchema, message)).toThrow(CompatJsonError);
    }
  });

  it("bytes are written and read as protobuf-es writes and reads them", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        expect(base64(b)).toBe(base64Encode(b));
      }),
      { numRuns: 2000 },
    );
    /** Both readers give the same bytes, or both refuse. */
    const sameAsProtobufEs = (s: string) => {
      let theirs: Uint8Array | Error;
      try {
        theirs = base64Decode(s);
      } catch (e) {
        theirs = e as Error;
      }
      if (theirs instanceof Error) expect(() => bytes(s, undefined, "x")).toThrow(CompatJsonError);
      else expect([...bytes(s, undefined, "x")]).toEqual([...theirs]);
    };
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40 }),
        fc.constantFrom("std", "std_raw", "url") as fc.Arbitrary<"std" | "std_raw" | "url">,
        (b, enc) => sameAsProtobufEs(base64Encode(b, enc)),
      ),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z0-9+/=_ \n-]{0,12}$/), sameAsProtobufEs), { numRuns: 3000 });
    for (const s of ["A", "AB=C", "%%%", "YQ", "YQ==", "YWI=", "Y Q = =", "YQ==YQ=="]) sameAsProtobufEs(s);
  });

  it("the message/send and task paths of the benchmark are converted directly, not through the proto", () => {
    const source = readFileSync(join(repoRoot, "generated-samples/a2a_compat_jsonrpc.ts"), "utf8");
    const directly = [...source.matchAll(/^function (\w+)(FromOlderJson|ToOlderJson)\(/gm)].map((m) => m[1]! + m[2]!);
    for (const name of [
      "sendMessageRequest",
      "sendMessageConfiguration",
      "sendMessageResponse",
      "streamResponse",
      "message",
      "part",
      "task",
      "taskStatus",
      "artifact",
      "authenticationInfo",
      "taskStatusUpdateEvent",
      "taskArtifactUpdateEvent",
    ]) {
      expect(directly).toContain(`${name}FromOlderJson`);
      expect(directly).toContain(`${name}ToOlderJson`);
    }
  });
});
