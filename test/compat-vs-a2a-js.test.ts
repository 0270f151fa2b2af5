/**
 * Our cross-version conversions (generated-samples/a2a_compat_messages.ts and
 * a2a_compat_jsonrpc.ts) against the @a2a-js/sdk 1.3.0 `compat/v0_3`
 * translators, on the same inputs, in both directions. Every difference found is asserted on both sides (so
 * the test fails if either implementation changes) and carries, in a comment, the source that decides which
 * side is right. docs/compat-vs-a2a-js.md tabulates the same differences.
 *
 * Paths compared:
 *   ours   v0.3 → v1.0  a2a.json → a2aCompatJson.fromOlder[v0.3 type name](json, undefined, lost) → toJson(lf.a2a.v1)
 *          v1.0 → v0.3  fromJson(lf.a2a.v1) → a2aCompatJson.toOlder[v1.0 type name](message, undefined, lost)
 *          These are the one-pass a2a.json ↔ v1.0 conversions the version bridge runs for v0.3 JSON-RPC, on the
 *          server (bridgeToOlder; bridge.ts directOperation) and on the client (clientForOlder over a JSON-RPC
 *          client; bridge.ts createClientBridge). Types without a one-pass conversion of their own (AgentCard,
 *          the resource-name requests, TaskPushNotificationConfig, the push-config list) have table entries that
 *          go through the v0.3 proto internally. Only what has no table entry uses the proto path directly, built
 *          as bridge.ts builds it: the Create request wrapper {parent, config_id, config} (dialect.decode →
 *          fromJson(v0.3) → a2aCompat.convert, and back convert → toJson(v0.3) → dialect.encode; the bridge
 *          serves and sends tasks/pushNotificationConfig/set this way), and google.protobuf.Empty results
 *          (dialect.encode). REST and gRPC bridging still go through the v0.3 proto for every type.
 *          `lost` holds loss paths: a2a.json keys toward v1.0, v1.0 proto field names toward v0.3.
 *   a2a-js v0.3 → v1.0  LegacyJsonRpcTransportHandler.handle (server; the v1.0 request its handler receives),
 *                       LegacyJsonRpcTransport (client; the v1.0 value it returns for a v0.3 reply),
 *                       parseLegacyAgentCard, legacyPushNotificationToV1StreamResponse
 *          v1.0 → v0.3  LegacyJsonRpcTransportHandler (the v0.3 result for a v1.0 handler value),
 *                       LegacyJsonRpcTransport (the v0.3 params it POSTs)
 *   a2a-js v1.0 values (ts-proto shape) are compared as ProtoJSON of the lf.a2a.v1 type; v0.3 values as a2a.json.
 *
 * Source tags as in ../shared/a2a-spec/FACTS.md §0 (J03 a2a.json, P03/P10 the protos, S03/S10 the specs,
 * SA03 streaming-and-async.md, SDK = @a2a-js/sdk 1.3.0 dist/ file:line; SDK paths below are under
 * dist/compat/v0_3/). COMPAT_DUMP=1 prints both sides of the larger cases.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { create, fromJson, toJson, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import { legacyPushNotificationToV1StreamResponse } from "@a2a-js/sdk/compat/v0_3";
import type { Loss } from "@protoc-gen-a2a/runtime";
import { a2aCompat, a2aCompatJson } from "../generated-samples/a2a_compat.js";
import { A2AServiceV0_3 } from "../generated-samples/v0.3.0/a2a_a2a.js";
import * as v10 from "../generated-samples/v1.0.1/a2a_pb.js";
import * as v03 from "../generated-samples/v0.3.0/a2a_pb.js";
import { sendParams03, task10Json } from "../bench/conversion-inputs.js";
import { fromA2aJsShape, toA2aJsShape } from "../bench/a2a-js-shape.js";

type Obj = Record<string, unknown>;
const dialect = A2AServiceV0_3.jsonrpcCodec!;
const DUMP = process.env["COMPAT_DUMP"] === "1";

// ---------------------------------------------------------------------------
// Our side

type FromOlderJson = (json: unknown, at: undefined, lost: Loss[]) => Message;
type ToOlderJson = (message: Message, at: undefined, lost: Loss[]) => JsonValue;

/**
 * v0.3 JSON-RPC params/result (a2a.json) → v1.0 ProtoJSON. A type with an a2aCompatJson.fromOlder entry goes
 * through it, as the bridge does on JSON-RPC (server params: bridge.ts directOperation; client results:
 * createClientBridge). The Create request has none: it goes through the v0.3 proto as the bridge does for it
 * (bridge.ts toNewerRequest).
 */
function oursToNewer(desc03: DescMessage, json: unknown, desc10: DescMessage): { json: JsonValue; lost: string[] } {
  const lost: Loss[] = [];
  const direct = a2aCompatJson.fromOlder[desc03.typeName] as FromOlderJson | undefined;
  if (direct) {
    const out = direct(json, undefined, lost);
    expect(out.$typeName).toBe(desc10.typeName);
    return { json: toJson(desc10, out), lost: lost.map((l) => l.path) };
  }
  // CreateTaskPushNotificationConfigRequest {parent, config_id, config}: the bridge converts `config`
  // and completes task_id / id from parent / config_id (bridge.ts toNewerRequest).
  const m = fromJson(desc03, dialect.decode(desc03, json as JsonValue), { ignoreUnknownFields: true }) as Message & Obj;
  const inner = Object.values(m).find(
    (v): v is Message =>
      typeof v === "object" &&
      v !== null &&
      "$typeName" in v &&
      a2aCompat.counterpart((v as Message).$typeName) === desc10.typeName,
  )!;
  const out = a2aCompat.convert<Message & Obj>(inner, "toNewer", (l) => lost.push(l)).message;
  const parent = /^tasks\/([^/]+)$/.exec(String(m["parent"] ?? ""));
  if (!out["taskId"] && parent) out["taskId"] = parent[1];
  if (!out["id"] && typeof m["configId"] === "string") out["id"] = m["configId"];
  return { json: toJson(desc10, out), lost: lost.map((l) => l.path) };
}

/**
 * v1.0 ProtoJSON → v0.3 a2a.json. A pair with an a2aCompatJson.toOlder entry goes through it, as the bridge
 * does on JSON-RPC (server results: bridge.ts directOperation; client params: createClientBridge). The v1.0
 * Create request → v0.3 {parent, config_id, config} wrapper has no entry: it goes through the v0.3 proto as
 * bridge.ts toOlderRequest builds it.
 */
function oursToOlder(desc10: DescMessage, json: unknown, desc03: DescMessage): { json: JsonValue; lost: string[] } {
  const m = fromJson(desc10, json as JsonValue) as Message & Obj;
  const lost: Loss[] = [];
  const direct = a2aCompatJson.toOlder[desc10.typeName] as ToOlderJson | undefined;
  if (direct && a2aCompat.counterpart(desc10.typeName) === desc03.typeName) {
    return { json: direct(m, undefined, lost), lost: lost.map((l) => l.path) };
  }
  // v1.0 Create request → v0.3 {parent, config_id, config} (bridge.ts toOlderRequest).
  const inner = a2aCompat.convert(m, "toOlder", (l) => lost.push(l)).message;
  const field = desc03.fields.find((f) => f.fieldKind === "message" && f.message.typeName === inner.$typeName)!;
  const out = create(desc03, {
    [field.localName]: inner,
    parent: `tasks/${String(m["taskId"] ?? "")}`,
    configId: m["id"],
  } as never);
  return { json: dialect.encode(desc03, toJson(desc03, out)), lost: lost.map((l) => l.path) };
}

// ---------------------------------------------------------------------------
// a2a-js side: its v1.0 objects are ts-proto shaped (oneof {$case, value}, Struct and Value as plain JSON,
// Timestamp as a string, bytes as Buffer); bench/a2a-js-shape.js moves between that shape and protobuf-es.

/** An a2a-js v1.0 object as ProtoJSON of the lf.a2a.v1 type. */
const jsToProtoJson = (desc: DescMessage, obj: unknown): JsonValue =>
  toJson(desc, create(desc, fromA2aJsShape(desc, obj as Obj) as never));

/** ProtoJSON of the lf.a2a.v1 type as the a2a-js v1.0 object. */
const protoJsonToJs = (desc: DescMessage, json: unknown): Obj => toA2aJsShape(desc, fromJson(desc, json as JsonValue));

/** A v1.0 request handler for LegacyJsonRpcTransportHandler that records what it receives and answers `reply`. */
function recordingHandler(reply: unknown, events: unknown[] = []) {
  const seen: { method: string; request: unknown }[] = [];
  const unary = (method: string) => async (request: unknown) => {
    seen.push({ method, request });
    return reply;
  };
  const handler = {
    getAgentCard: async () => ({ capabilities: { streaming: true } }),
    getAuthenticatedExtendedAgentCard: unary("getAuthenticatedExtendedAgentCard"),
    sendMessage: unary("sendMessage"),
    getTask: unary("getTask"),
    cancelTask: unary("cancelTask"),
    createTaskPushNotificationConfig: unary("createTaskPushNotificationConfig"),
    getTaskPushNotificationConfig: unary("getTaskPushNotificationConfig"),
    listTaskPushNotificationConfigs: unary("listTaskPushNotificationConfigs"),
    deleteTaskPushNotificationConfig: async (request: unknown) => {
      seen.push({ method: "deleteTaskPushNotificationConfig", request });
    },
    async *sendMessageStream(request: unknown) {
      seen.push({ method: "sendMessageStream", request });
      yield* events;
    },
    async *resubscribe() {},
    listTasks: unary("listTasks"),
  };
  return { handler: new LegacyJsonRpcTransportHandler(handler as never), seen };
}

/** a2a-js server side: a v0.3 JSON-RPC call in, the v1.0 request the handler got and the v0.3 envelope out. */
async function a2aJsServer(method: string, params: unknown, reply: unknown, events: unknown[] = []) {
  const { handler, seen } = recordingHandler(reply, events);
  const res = (await handler.handle(
    { jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) },
    {} as never,
  )) as unknown;
  let envelope: unknown = res;
  if (res && typeof (res as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") {
    const all: unknown[] = [];
    for await (const e of res as AsyncIterable<unknown>) all.push(e);
    envelope = all;
  }
  return { request: seen[0]?.request, envelope: JSON.parse(JSON.stringify(envelope)) as Obj | Obj[] };
}

/** a2a-js client side: the v0.3 params LegacyJsonRpcTransport POSTs for a v1.0 call, and its v1.0 value for `result`. */
async function a2aJsClient(call: (t: LegacyJsonRpcTransport) => Promise<unknown>, result: unknown) {
  const bodies: Obj[] = [];
  const fetchImpl = async (_url: unknown, init: { body: string }) => {
    const body = JSON.parse(init.body) as Obj;
    bodies.push(body);
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: body["id"], result }), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  };
  const t = new LegacyJsonRpcTransport({ endpoint: "http://peer.invalid/a2a", fetchImpl: fetchImpl as never });
  const value = await call(t);
  return { sent: bodies[0]!, value };
}

// ---------------------------------------------------------------------------
// Differences: every leaf where the two JSON values differ, absent shown as "<absent>".

const ABSENT = "<absent>";
type Diff = { path: string; ours: unknown; a2aJs: unknown };
function diff(ours: unknown, theirs: unknown, path = ""): Diff[] {
  const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    const out: Diff[] = [];
    for (let i = 0; i < Math.max(ours.length, theirs.length); i++)
      out.push(...diff(i < ours.length ? ours[i] : ABSENT, i < theirs.length ? theirs[i] : ABSENT, `${path}[${i}]`));
    return out;
  }
  if (isObj(ours) && isObj(theirs)) {
    const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])];
    return keys.flatMap((k) =>
      diff(k in ours ? ours[k] : ABSENT, k in theirs ? theirs[k] : ABSENT, path ? `${path}.${k}` : k),
    );
  }
  return JSON.stringify(ours) === JSON.stringify(theirs) ? [] : [{ path, ours, a2aJs: theirs }];
}

function dump(label: string, value: unknown): void {
  if (DUMP) console.log(`${label}:\n${JSON.stringify(value, null, 1)}`);
}

// a2a-js writes a console.warn when it drops a push-notification scheme; record instead of printing.
let warnings: string[] = [];
beforeEach(() => {
  warnings = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

// ---------------------------------------------------------------------------
// Inputs

/** A typical v0.3 message/send message (a2a.json Message): text, file by URI, file by bytes, data (the benchmark's). */
const message03 = sendParams03().message;

const pushConfig03 = {
  id: "cfg-1",
  url: "https://client.example.com/hook",
  token: "tok-1",
  authentication: { schemes: ["a", "b"], credentials: "secret" },
};

function sendParams(blocking: boolean | undefined, historyLength: number | undefined) {
  const configuration: Obj = {
    acceptedOutputModes: ["text/plain", "application/json"],
    pushNotificationConfig: pushConfig03,
  };
  if (blocking !== undefined) configuration["blocking"] = blocking;
  if (historyLength !== undefined) configuration["historyLength"] = historyLength;
  return { message: message03, configuration };
}

/** A v1.0 Task (ProtoJSON) with 10 artifacts of every part kind: the benchmark's input. */
const task10 = (): Obj => task10Json() as Obj;

const card10 = {
  name: "Summariser",
  description: "Summarises documents",
  supportedInterfaces: [
    { url: "https://agent.example.com/a2a/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "https://agent.example.com/a2a/v1/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    { url: "https://agent.example.com/a2a/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    { url: "https://agent.example.com/a2a/v03/rest", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
  ],
  provider: { url: "https://example.com", organization: "Example Inc." },
  version: "1.2.0",
  documentationUrl: "https://agent.example.com/docs",
  iconUrl: "https://agent.example.com/icon.png",
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
  securitySchemes: {
    oauth: {
      oauth2SecurityScheme: {
        flows: {
          authorizationCode: {
            authorizationUrl: "https://auth.example.com/authorize",
            tokenUrl: "https://auth.example.com/token",
            scopes: { read: "Read access" },
          },
        },
      },
    },
    key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
  },
  securityRequirements: [{ schemes: { oauth: { list: ["read"] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [
    {
      id: "summarise",
      name: "Summarise",
      description: "Summarises a document",
      tags: ["summary"],
      examples: ["Summarise this PDF"],
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    },
  ],
};
const card03 = {
  protocolVersion: "0.3.0",
  name: "Summariser",
  description: "Summarises documents",
  url: "https://agent.example.com/a2a/v03",
  preferredTransport: "JSONRPC",
  additionalInterfaces: [
    { url: "https://agent.example.com/a2a/v03", transport: "JSONRPC" },
    { url: "https://agent.example.com/a2a/v03/rest", transport: "HTTP+JSON" },
    { url: "https://agent.example.com/a2a/grpc", transport: "GRPC" },
  ],
  provider: { url: "https://example.com", organization: "Example Inc." },
  version: "1.2.0",
  documentationUrl: "https://agent.example.com/docs",
  iconUrl: "https://agent.example.com/icon.png",
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: true },
  supportsAuthenticatedExtendedCard: true,
  securitySchemes: {
    oauth: {
      type: "oauth2",
      flows: {
        authorizationCode: {
          authorizationUrl: "https://auth.example.com/authorize",
          tokenUrl: "https://auth.example.com/token",
          scopes: { read: "Read access" },
        },
        clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { read: "Read access" } },
      },
    },
    key: { type: "apiKey", in: "header", name: "X-API-Key" },
  },
  security: [{ oauth: ["read"] }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [
    {
      id: "summarise",
      name: "Summarise",
      description: "Summarises a document",
      tags: ["summary"],
      examples: ["Summarise this PDF"],
      security: [{ key: [] }],
    },
  ],
};

/** The v1.0 form of message03, for the client direction. */
const message10 = {
  messageId: "msg-1",
  contextId: "ctx-1",
  role: "ROLE_USER",
  parts: [
    { text: "Summarise the attached report." },
    { url: "https://files.example.com/report.pdf", mediaType: "application/pdf", filename: "report.pdf" },
    { raw: "aGVsbG8gd29ybGQ=", mediaType: "text/plain", filename: "notes.txt" },
    { data: { format: "bullet-points", maxWords: 200 } },
  ],
  metadata: { requestSource: "web" },
};

const aMessageReply = {
  messageId: "reply-1",
  contextId: "",
  taskId: "",
  role: 2,
  parts: [],
  extensions: [],
  referenceTaskIds: [],
  metadata: undefined,
};
const SCHEME_WARNING = "Multiple schemes declared (a, b), but only the first one ('a') will be kept.";
const blockingCases: [boolean | undefined, number | undefined][] = [];
for (const b of [true, false, undefined]) for (const h of [0, 5, undefined]) blockingCases.push([b, h]);

// ---------------------------------------------------------------------------

describe("message/send: v0.3 params → v1.0 SendMessageRequest (a2a-js: LegacyJsonRpcTransportHandler)", () => {
  it.each(blockingCases)("blocking %s, historyLength %s", async (blocking, historyLength) => {
    const params = sendParams(blocking, historyLength);
    const ours = oursToNewer(v03.SendMessageRequestSchema, params, v10.SendMessageRequestSchema);
    const theirs = await a2aJsServer("message/send", params, aMessageReply);
    const a2aJs = jsToProtoJson(v10.SendMessageRequestSchema, theirs.request) as Obj;
    dump(`send ${blocking} ${historyLength}`, { ours, a2aJs });

    expect(diff(ours.json, a2aJs)).toEqual([
      // AGREEMENT (file name; doc row #1, resolved). J03 FileBase.name (a2a.json l.814) → P10 Part.filename #6
      // (FACTS C.3): both keep it (a2a-js: compat/v0_3/server/index.js:758-814 toCorePart; ours: the one-pass
      // conversion's dialectFields Part.filename ↔ file.name). P03 FilePart has no name, so v0.3 REST and gRPC,
      // which go through the proto, still cannot carry it. Asserted on ours below.
      // DIFFERENCE (historyLength 0). Ours: v0.3 0 = "unlimited" → v1.0 unset (P03:124-126 "if 0, the history
      // will be unlimited"; FACTS B.1 "Map v0.3-proto 0 → v1 unset"; compat-proto-transforms.ts historyLength).
      // a2a-js passes 0 through (server/index.js:1069-1076), which v1.0 reads as "no messages" (S10 §3.2.4;
      // P10:150-154). J03 MessageSendConfiguration.historyLength (l.1683) gives 0 no special meaning, so the
      // literal JSON-RPC reading is a2a-js's. Both defensible: ours follows the v0.3 proto, a2a-js the schema text.
      ...(historyLength === 0 ? [{ path: "configuration.historyLength", ours: ABSENT, a2aJs: 0 }] : []),
    ]);

    // AGREEMENT (blocking default): absent `blocking` = non-blocking on both sides, so returnImmediately is
    // true (P03 proto3 default, P03:127-131; a2a-js server/index.js:1074; FACTS B.1, G.4 ✅; debatable only
    // against the P03:32-33 RPC comment, FACTS F.1 #28). blocking:true → returnImmediately false (omitted).
    // AGREEMENT (schemes [a, b]): both keep the first (FACTS B.6, C.13); ours reports a Loss, a2a-js console.warn.
    expect((ours.json as Obj)["configuration"]).toEqual({
      acceptedOutputModes: ["text/plain", "application/json"],
      taskPushNotificationConfig: {
        id: "cfg-1",
        url: "https://client.example.com/hook",
        token: "tok-1",
        authentication: { scheme: "a", credentials: "secret" },
      },
      ...(historyLength === 5 ? { historyLength: 5 } : {}),
      ...(blocking === true ? {} : { returnImmediately: true }),
    });
    expect((a2aJs["configuration"] as Obj)["returnImmediately"]).toBe(blocking === true ? undefined : true);
    expect(((ours.json as Obj)["message"] as Obj)["parts"]).toEqual([
      { text: "Summarise the attached report." },
      { url: "https://files.example.com/report.pdf", mediaType: "application/pdf", filename: "report.pdf" },
      { raw: "aGVsbG8gd29ybGQ=", mediaType: "text/plain", filename: "notes.txt" },
      { data: { format: "bullet-points", maxWords: 200 } },
    ]);
    expect(ours.lost).toEqual(["configuration.pushNotificationConfig.authentication.schemes"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(SCHEME_WARNING);
  });

  it("a2a.json-only message fields (referenceTaskIds, part metadata) reach v1.0 on both sides", async () => {
    const params = {
      message: {
        ...message03,
        referenceTaskIds: ["task-0"],
        extensions: ["https://ext.example.com/x"],
        parts: [{ kind: "text", text: "x", metadata: { lang: "en" } }],
      },
    };
    const ours = oursToNewer(v03.SendMessageRequestSchema, params, v10.SendMessageRequestSchema);
    const theirs = await a2aJsServer("message/send", params, aMessageReply);
    // AGREEMENT (doc row #5, resolved). J03 PartBase.metadata (l.1843) and Message.referenceTaskIds (l.1641)
    // exist in P10 (Part.metadata #5, Message.reference_task_ids #8) but not in P03 (FACTS C.1, C.3, F.1 #21).
    // Both carry them (a2a-js: server/index.js:876-899, 758-814; ours: the one-pass conversion's dialectFields).
    // v0.3 REST and gRPC, which go through P03, still cannot carry them. (extensions survive on both: P03 has
    // them.)
    expect(diff(ours.json, jsToProtoJson(v10.SendMessageRequestSchema, theirs.request))).toEqual([]);
    expect(ours.json).toEqual({
      message: {
        messageId: "msg-1",
        contextId: "ctx-1",
        role: "ROLE_USER",
        parts: [{ text: "x", metadata: { lang: "en" } }],
        metadata: { requestSource: "web" },
        extensions: ["https://ext.example.com/x"],
        referenceTaskIds: ["task-0"],
      },
    });
    expect(ours.lost).toEqual([]);
  });
});

describe("message/send: v1.0 SendMessageRequest → v0.3 params (a2a-js: LegacyJsonRpcTransport)", () => {
  it.each(blockingCases)("returnImmediately %s, historyLength %s", async (returnImmediately, historyLength) => {
    const configuration: Obj = {
      taskPushNotificationConfig: {
        url: "https://client.example.com/hook",
        authentication: { scheme: "Bearer", credentials: "secret" },
      },
    };
    if (returnImmediately !== undefined) configuration["returnImmediately"] = returnImmediately;
    if (historyLength !== undefined) configuration["historyLength"] = historyLength;
    const request = { message: message10, configuration };
    const ours = oursToOlder(v10.SendMessageRequestSchema, request, v03.SendMessageRequestSchema);
    const theirs = await a2aJsClient(
      (t) => t.sendMessage(protoJsonToJs(v10.SendMessageRequestSchema, request) as never),
      { kind: "message", messageId: "reply-1", role: "agent", parts: [] },
    );
    dump(`send10 ${returnImmediately} ${historyLength}`, { ours, a2aJs: theirs.sent });

    expect(theirs.sent["method"]).toBe("message/send");
    expect(diff(ours.json, theirs.sent["params"])).toEqual([
      // AGREEMENT (file name; doc row #2, resolved). v1.0 filename → J03 FileBase.name (l.814): both write it
      // (a2a-js: server/index.js:815-868, the same translator in client/index.js:919-973; ours: dialectFields
      // Part.filename ↔ file.name). Toward v0.3 REST and gRPC the proto path still drops it and reports it
      // (P03 FilePart has no name, FACTS C.3). Asserted on ours below.
      // DIFFERENCE (empty list). a2a-js always writes acceptedOutputModes (client/index.js:1125-1135); ours omits
      // an empty list (ProtoJSON). J03 MessageSendConfiguration.acceptedOutputModes is optional (l.1669): both fine.
      { path: "configuration.acceptedOutputModes", ours: ABSENT, a2aJs: [] },
      // DIFFERENCE (historyLength 0, the reverse of the case above). v1.0 0 = "no messages" has no v0.3-proto
      // spelling (P03:124-126: 0 = unlimited): ours omits it and reports the Loss; a2a-js sends 0
      // (client/index.js:1130). Both defensible; see FACTS B.1 and key fact 5.
      ...(historyLength === 0 ? [{ path: "configuration.historyLength", ours: ABSENT, a2aJs: 0 }] : []),
    ]);
    // AGREEMENT: blocking = !returnImmediately, always written (FACTS G.4 ✅; our dialect alwaysEmit blocking).
    expect((ours.json as Obj)["configuration"]).toEqual({
      pushNotificationConfig: {
        url: "https://client.example.com/hook",
        authentication: { schemes: ["Bearer"], credentials: "secret" },
      },
      ...(historyLength === 5 ? { historyLength: 5 } : {}),
      blocking: returnImmediately !== true,
    });
    expect(((ours.json as Obj)["message"] as Obj)["parts"]).toEqual(message03.parts);
    expect(ours.lost).toEqual(historyLength === 0 ? ["configuration.history_length"] : []);
  });
});

describe("v1.0 Task with 10 artifacts ↔ v0.3 Task", () => {
  it("v1.0 → v0.3 (tasks/get result; a2a-js: LegacyJsonRpcTransportHandler → toCompatTask)", async () => {
    const task = task10();
    const ours = oursToOlder(v10.TaskSchema, task, v03.TaskSchema);
    const theirs = await a2aJsServer("tasks/get", { id: "task-1" }, protoJsonToJs(v10.TaskSchema, task));
    const a2aJs = (theirs.envelope as Obj)["result"] as Obj;
    dump("task", { ours, a2aJs });

    // AGREEMENT (file name; doc row #2, resolved), as for message/send: J03 FileBase.name (l.814); both write it
    // (ours: dialectFields Part.filename ↔ file.name; toward REST and gRPC the proto path still drops and reports it).
    expect(diff(ours.json, a2aJs)).toEqual([]);
    // AGREEMENT (text part mediaType): both drop it, since a J03 TextPart (l.2518) has no media type
    // (FACTS G.4 ⚠️); ours reports each as a Loss, a2a-js drops it silently.
    expect(ours.lost).toEqual(Array.from({ length: 10 }, (_, i) => `artifacts[${i}].parts[0].media_type`));
    const parts03 = [
      { kind: "text", text: "Summary of section 3." },
      {
        kind: "file",
        file: { uri: "https://files.example.com/out/3.pdf", mimeType: "application/pdf", name: "section-3.pdf" },
      },
      { kind: "file", file: { bytes: Buffer.from("chart 3").toString("base64"), mimeType: "image/png" } },
      { kind: "data", data: { section: 3, words: 123, tags: ["a", "b"] } },
    ];
    const artifacts03 = (ours.json as Obj)["artifacts"] as Obj[];
    expect(artifacts03[3]).toEqual({
      artifactId: "art-3",
      name: "section-3",
      description: "Section 3 of the summary",
      parts: parts03,
      metadata: { index: 3 },
    });
    expect((a2aJs["artifacts"] as Obj[])[3]!["parts"]).toEqual(parts03);
    expect({ kind: a2aJs["kind"], status: a2aJs["status"] }).toEqual({
      kind: "task",
      status: {
        state: "completed",
        timestamp: "2025-06-01T12:00:00.123Z",
        message: {
          kind: "message",
          messageId: "status-1",
          contextId: "ctx-1",
          taskId: "task-1",
          role: "agent",
          parts: [{ kind: "text", text: "Done." }],
        },
      },
    });
  });

  it("v0.3 → v1.0 (tasks/get result; a2a-js: LegacyJsonRpcTransport.getTask)", async () => {
    // The v0.3 Task is a2a-js's own rendering of task10() (file parts carry `name`).
    const task03 = (
      (await a2aJsServer("tasks/get", { id: "task-1" }, protoJsonToJs(v10.TaskSchema, task10()))).envelope as Obj
    )["result"];
    const ours = oursToNewer(v03.TaskSchema, task03, v10.TaskSchema);
    const theirs = await a2aJsClient(
      (t) => t.getTask({ tenant: "", id: "task-1", historyLength: undefined } as never),
      task03,
    );
    // AGREEMENT (file name; doc row #1, resolved), v0.3 → v1.0: both keep it (J03 l.814 → P10 filename #6; ours:
    // dialectFields). Both give back task10() except the text parts' mediaType, which the v0.3 Task could not
    // hold (in the second diff below, the "a2aJs" side is task10() itself).
    expect(diff(ours.json, jsToProtoJson(v10.TaskSchema, theirs.value))).toEqual([]);
    expect(diff(ours.json, task10())).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        path: `artifacts[${i}].parts[0].mediaType`,
        ours: ABSENT,
        a2aJs: "text/markdown",
      })),
    );
    expect(ours.lost).toEqual([]);
  });

  it("tasks/get historyLength 0 and 5, both directions", async () => {
    // v0.3 → v1.0. DIFFERENCE for 0 (see message/send): ours unset, a2a-js 0 (server/index.js:1109-1115). Both defensible.
    for (const [historyLength, expectedOurs, expectedA2aJs] of [
      [0, { id: "task-1" }, { id: "task-1", historyLength: 0 }],
      [5, { id: "task-1", historyLength: 5 }, { id: "task-1", historyLength: 5 }],
    ] as const) {
      const params = { id: "task-1", historyLength };
      const ours = oursToNewer(v03.GetTaskRequestSchema, params, v10.GetTaskRequestSchema);
      const theirs = await a2aJsServer("tasks/get", params, protoJsonToJs(v10.TaskSchema, task10()));
      expect(ours.json).toEqual(expectedOurs);
      expect(jsToProtoJson(v10.GetTaskRequestSchema, theirs.request)).toEqual(expectedA2aJs);
    }
    // v1.0 → v0.3. DIFFERENCE for 0: ours omits it and reports the Loss; a2a-js sends 0 (client/index.js:1180-1184).
    for (const [historyLength, expectedOurs, expectedA2aJs, lost] of [
      [0, { id: "task-1" }, { id: "task-1", historyLength: 0 }, ["history_length"]],
      [5, { id: "task-1", historyLength: 5 }, { id: "task-1", historyLength: 5 }, []],
    ] as const) {
      const request = { id: "task-1", historyLength };
      const ours = oursToOlder(v10.GetTaskRequestSchema, request, v03.GetTaskRequestSchema);
      const theirs = await a2aJsClient(
        (t) => t.getTask(protoJsonToJs(v10.GetTaskRequestSchema, request) as never),
        ((await a2aJsServer("tasks/get", { id: "task-1" }, protoJsonToJs(v10.TaskSchema, task10()))).envelope as Obj)[
          "result"
        ],
      );
      expect(ours.json).toEqual(expectedOurs);
      expect(ours.lost).toEqual(lost);
      expect(theirs.sent["params"]).toEqual(expectedA2aJs);
    }
  });

  it("v1.0 parts and messages that a v0.3 Part or Message cannot hold (v1.0 → v0.3)", async () => {
    const message = {
      messageId: "msg-9",
      role: "ROLE_UNSPECIFIED",
      referenceTaskIds: ["task-0"],
      parts: [
        { text: "t", mediaType: "text/markdown", filename: "a.md", metadata: { lang: "en" } },
        { data: [1, 2] },
        { data: "plain" },
        { data: { a: 1 }, mediaType: "application/json" },
      ],
    };
    const ours = oursToOlder(v10.MessageSchema, message, v03.MessageSchema);
    const theirs = await a2aJsServer(
      "message/send",
      sendParams(undefined, undefined),
      protoJsonToJs(v10.MessageSchema, message),
    );
    const a2aJs = (theirs.envelope as Obj)["result"];
    dump("edge", { ours, a2aJs });
    expect(diff(ours.json, a2aJs)).toEqual([
      // AGREEMENT (ROLE_UNSPECIFIED): J03 Message.role is "agent" | "user" only (l.1648; FACTS C.2); both write
      // "agent" (ours: the dialect's enums table, override jsonrpc-dialect; a2a-js: server/index.js:743-745).
      // AGREEMENT (part metadata, referenceTaskIds; doc row #6, resolved): J03 PartBase.metadata (l.1843) and
      // Message.referenceTaskIds (l.1641); both write them (ours: dialectFields; toward REST and gRPC the proto
      // path still drops and reports them, P03 has neither).
      // DIFFERENCE (non-object data). J03 DataPart.data is an object (l.694); P10 data is any Value (FACTS C.3).
      // Both wrap the value as {value: X} (a2a-js: server/index.js:748-868; FACTS G.4 ✅). a2a-js also marks the
      // part with metadata.data_part_compat = true to unwrap it on the way back; ours does not mark it (even
      // though the one-pass path now writes part metadata) and reports the wrap as a Loss instead. Both are valid J03.
      { path: "parts[1].metadata", ours: ABSENT, a2aJs: { data_part_compat: true } },
      { path: "parts[2].metadata", ours: ABSENT, a2aJs: { data_part_compat: true } },
    ]);
    // AGREEMENT: mediaType/filename on a text part, and mediaType on a data part, are dropped by both (J03 TextPart
    // l.2518 and DataPart l.694 have no such fields; FACTS G.4 ⚠️). Ours reports them; a2a-js is silent.
    expect(ours.json).toEqual({
      kind: "message",
      messageId: "msg-9",
      role: "agent",
      parts: [
        { kind: "text", text: "t", metadata: { lang: "en" } },
        { kind: "data", data: { value: [1, 2] } },
        { kind: "data", data: { value: "plain" } },
        { kind: "data", data: { a: 1 } },
      ],
      referenceTaskIds: ["task-0"],
    });
    expect(ours.lost).toEqual([
      "parts[0].media_type",
      "parts[0].filename",
      "parts[1].data",
      "parts[2].data",
      "parts[3].media_type",
    ]);
  });

  it("a v0.3 data part marked data_part_compat (v0.3 → v1.0)", async () => {
    // a2a-js's own v0.3 rendering of a v1.0 data part holding [1, 2] (see the case above), sent back to v1.0.
    const params = {
      message: {
        kind: "message",
        messageId: "msg-9",
        role: "agent",
        parts: [{ kind: "data", data: { value: [1, 2] }, metadata: { data_part_compat: true } }],
      },
    };
    const ours = oursToNewer(v03.SendMessageRequestSchema, params, v10.SendMessageRequestSchema);
    const theirs = await a2aJsServer("message/send", params, aMessageReply);
    // DIFFERENCE (non-object data, the way back; doc row #7). a2a-js unwraps {value: X} when the part carries
    // its marker and removes the marker (server/index.js:793-809). Ours keeps the J03 object as it is: the
    // wrapped value, and (one-pass path: part metadata is carried) the marker as ordinary part metadata.
    // Neither J03 nor P10 defines the marker; a2a-js round-trips its own output, ours keeps what was sent.
    expect(diff(ours.json, jsToProtoJson(v10.SendMessageRequestSchema, theirs.request))).toEqual([
      { path: "message.parts[0].data", ours: { value: [1, 2] }, a2aJs: [1, 2] },
      { path: "message.parts[0].metadata", ours: { data_part_compat: true }, a2aJs: ABSENT },
    ]);
    expect(jsToProtoJson(v10.SendMessageRequestSchema, theirs.request)).toEqual({
      message: { messageId: "msg-9", role: "ROLE_AGENT", parts: [{ data: [1, 2] }] },
    });
    expect(ours.lost).toEqual([]);
  });
});

describe("stream events", () => {
  const stateNames = [
    "UNSPECIFIED",
    "SUBMITTED",
    "WORKING",
    "COMPLETED",
    "FAILED",
    "CANCELED",
    "INPUT_REQUIRED",
    "REJECTED",
    "AUTH_REQUIRED",
  ];
  const j03 = [
    "unknown",
    "submitted",
    "working",
    "completed",
    "failed",
    "canceled",
    "input-required",
    "rejected",
    "auth-required",
  ];

  it.each(stateNames.map((n, i) => [n, i] as const))(
    "status-update TASK_STATE_%s, v1.0 → v0.3 (a2a-js: message/stream)",
    async (name, state) => {
      const event = {
        statusUpdate: {
          taskId: "task-1",
          contextId: "ctx-1",
          status: { state: `TASK_STATE_${name}`, timestamp: "2025-06-01T12:00:00.123Z" },
        },
      };
      const ours = oursToOlder(v10.StreamResponseSchema, event, v03.StreamResponseSchema);
      const theirs = await a2aJsServer("message/stream", sendParams(undefined, undefined), undefined, [
        protoJsonToJs(v10.StreamResponseSchema, event),
      ]);
      const a2aJs = (theirs.envelope as Obj[])[0]!["result"];
      const expected: Diff[] = [];
      // AGREEMENT (UNSPECIFIED): J03 TaskStatus.state is required (l.2455) and "unknown" is its spelling of 0
      // (FACTS C.6); both write "unknown" (ours: alwaysEmit TaskStatus.state in the dialect table).
      // DIFFERENCE (final at input-required). v0.3 sends final:true at a terminal state OR input-required and then
      // closes the stream (SA03:19; S03 §9.3-9.4 l.1472-1478; P03:41, 690-698 "interrupted or terminal"; FACTS C.8).
      // Ours: COMPLETED, CANCELED, FAILED, REJECTED, INPUT_REQUIRED (compat-proto-transforms.ts finalFromState).
      // a2a-js: terminal states only (FINAL_LEGACY_STATES, server/index.js:1005-1010, 1045; FACTS G.4 ⚠️), so a
      // v0.3 client that stops reading on `final` waits at input-required. Who is right: SA03 + S03 → ours.
      // auth-required is false on both: P03:177-180 calls it "not an interrupted or terminal state" (FACTS F.1 #29).
      if (state === 6) expected.push({ path: "final", ours: true, a2aJs: false });
      expect(diff(ours.json, a2aJs)).toEqual(expected);
      expect(ours.json).toEqual({
        kind: "status-update",
        taskId: "task-1",
        contextId: "ctx-1",
        status: { state: j03[state], timestamp: "2025-06-01T12:00:00.123Z" },
        final: [3, 4, 5, 6, 7].includes(state),
      });
      expect(ours.lost).toEqual([]);
    },
  );

  it.each(j03.map((s, i) => [s, i] as const))(
    "status-update %s, v0.3 → v1.0 (a2a-js: legacyPushNotificationToV1StreamResponse)",
    (state03, state) => {
      const event = {
        kind: "status-update",
        taskId: "task-1",
        contextId: "ctx-1",
        status: { state: state03, timestamp: "2025-06-01T12:00:00.123Z" },
        final: [3, 4, 5, 6, 7].includes(state),
      };
      const ours = oursToNewer(v03.StreamResponseSchema, event, v10.StreamResponseSchema);
      const a2aJs = jsToProtoJson(v10.StreamResponseSchema, legacyPushNotificationToV1StreamResponse(event));
      // AGREEMENT: `final` has no v1.0 field (P10:296-305; FACTS C.8); both drop it. "canceled" → TASK_STATE_CANCELED,
      // "unknown" → UNSPECIFIED (omitted in ProtoJSON) on both (FACTS C.6).
      expect(diff(ours.json, a2aJs)).toEqual([]);
      expect(ours.json).toEqual({
        statusUpdate: {
          taskId: "task-1",
          contextId: "ctx-1",
          status: {
            ...(state === 0 ? {} : { state: `TASK_STATE_${stateNames[state]}` }),
            timestamp: "2025-06-01T12:00:00.123Z",
          },
        },
      });
    },
  );

  it("artifact-update append/lastChunk false, v1.0 → v0.3", async () => {
    const event = {
      artifactUpdate: {
        taskId: "task-1",
        contextId: "ctx-1",
        artifact: { artifactId: "art-0", parts: [{ text: "chunk" }] },
      },
    };
    const ours = oursToOlder(v10.StreamResponseSchema, event, v03.StreamResponseSchema);
    const theirs = await a2aJsServer("message/stream", sendParams(undefined, undefined), undefined, [
      protoJsonToJs(v10.StreamResponseSchema, event),
    ]);
    // DIFFERENCE (defaults). a2a-js always writes append and lastChunk (server/index.js:1051-1067); ours omits them
    // at false (ProtoJSON; the dialect's alwaysEmit lists only task_id, context_id). J03 TaskArtifactUpdateEvent
    // (l.2261) makes both optional: equivalent, both fine.
    expect(diff(ours.json, (theirs.envelope as Obj[])[0]!["result"])).toEqual([
      { path: "append", ours: ABSENT, a2aJs: false },
      { path: "lastChunk", ours: ABSENT, a2aJs: false },
    ]);
  });
});

describe("push notification configs", () => {
  const flat10 = {
    taskId: "task-1",
    id: "cfg-1",
    url: "https://client.example.com/hook",
    token: "tok-1",
    authentication: { scheme: "Bearer", credentials: "secret" },
  };
  const wrapped03 = {
    taskId: "task-1",
    pushNotificationConfig: {
      id: "cfg-1",
      url: "https://client.example.com/hook",
      token: "tok-1",
      authentication: { schemes: ["Bearer"], credentials: "secret" },
    },
  };
  const second10 = { taskId: "task-1", id: "cfg-2", url: "https://client.example.com/hook2" };

  it("v0.3 → v1.0 requests, v1.0 → v0.3 results (a2a-js: LegacyJsonRpcTransportHandler)", async () => {
    // set: {taskId, pushNotificationConfig{…, authentication{schemes:[a,b]}}} → flat config. AGREEMENT (FACTS B.6):
    // both keep schemes[0]; ours reports a Loss, a2a-js warns (server/index.js:924-934).
    const setParams = { taskId: "task-1", pushNotificationConfig: pushConfig03 };
    const set = await a2aJsServer(
      "tasks/pushNotificationConfig/set",
      setParams,
      protoJsonToJs(v10.TaskPushNotificationConfigSchema, flat10),
    );
    const oursSet = oursToNewer(
      v03.CreateTaskPushNotificationConfigRequestSchema,
      setParams,
      v10.TaskPushNotificationConfigSchema,
    );
    expect(diff(oursSet.json, jsToProtoJson(v10.TaskPushNotificationConfigSchema, set.request))).toEqual([]);
    expect(oursSet.json).toEqual({
      taskId: "task-1",
      id: "cfg-1",
      url: "https://client.example.com/hook",
      token: "tok-1",
      authentication: { scheme: "a", credentials: "secret" },
    });
    expect(oursSet.lost).toEqual(["push_notification_config.authentication.schemes"]);
    expect(warnings.some((w) => w.includes(SCHEME_WARNING))).toBe(true);
    // set/get result: flat → {taskId, pushNotificationConfig{…, schemes:[scheme]}}. AGREEMENT.
    const oursResult = oursToOlder(v10.TaskPushNotificationConfigSchema, flat10, v03.TaskPushNotificationConfigSchema);
    expect(diff(oursResult.json, (set.envelope as Obj)["result"])).toEqual([]);
    expect(oursResult.json).toEqual(wrapped03);

    // get with and without pushNotificationConfigId. AGREEMENT: id → taskId, pushNotificationConfigId → id; an
    // absent config id becomes "" on both (server/index.js:1129-1133), though P10 marks id REQ (FACTS B.7, G.5 ⚠️).
    for (const [params, expected] of [
      [
        { id: "task-1", pushNotificationConfigId: "cfg-1" },
        { taskId: "task-1", id: "cfg-1" },
      ],
      [{ id: "task-1" }, { taskId: "task-1" }],
    ] as const) {
      const get = await a2aJsServer(
        "tasks/pushNotificationConfig/get",
        params,
        protoJsonToJs(v10.TaskPushNotificationConfigSchema, flat10),
      );
      const ours = oursToNewer(
        v03.GetTaskPushNotificationConfigRequestSchema,
        params,
        v10.GetTaskPushNotificationConfigRequestSchema,
      );
      expect(ours.json).toEqual(expected);
      expect(jsToProtoJson(v10.GetTaskPushNotificationConfigRequestSchema, get.request)).toEqual(expected);
      expect((get.envelope as Obj)["result"]).toEqual(wrapped03);
    }

    // list: {id} → {taskId}; result {configs} → bare array (J03 l.1575). AGREEMENT (FACTS B.8, G.5 ✅).
    const listResult10 = { configs: [flat10, second10] };
    const list = await a2aJsServer(
      "tasks/pushNotificationConfig/list",
      { id: "task-1" },
      protoJsonToJs(v10.ListTaskPushNotificationConfigsResponseSchema, listResult10),
    );
    expect(
      oursToNewer(
        v03.ListTaskPushNotificationConfigRequestSchema,
        { id: "task-1" },
        v10.ListTaskPushNotificationConfigsRequestSchema,
      ).json,
    ).toEqual({ taskId: "task-1" });
    expect(jsToProtoJson(v10.ListTaskPushNotificationConfigsRequestSchema, list.request)).toEqual({ taskId: "task-1" });
    const oursList = oursToOlder(
      v10.ListTaskPushNotificationConfigsResponseSchema,
      listResult10,
      v03.ListTaskPushNotificationConfigResponseSchema,
    );
    expect(oursList.json).toEqual([
      wrapped03,
      { taskId: "task-1", pushNotificationConfig: { id: "cfg-2", url: "https://client.example.com/hook2" } },
    ]);
    expect(diff(oursList.json, (list.envelope as Obj)["result"])).toEqual([]);

    // delete: {id, pushNotificationConfigId} → {taskId, id}; result null (J03 l.786). AGREEMENT.
    const delParams = { id: "task-1", pushNotificationConfigId: "cfg-1" };
    const del = await a2aJsServer("tasks/pushNotificationConfig/delete", delParams, undefined);
    expect(
      oursToNewer(
        v03.DeleteTaskPushNotificationConfigRequestSchema,
        delParams,
        v10.DeleteTaskPushNotificationConfigRequestSchema,
      ).json,
    ).toEqual({ taskId: "task-1", id: "cfg-1" });
    expect(jsToProtoJson(v10.DeleteTaskPushNotificationConfigRequestSchema, del.request)).toEqual({
      taskId: "task-1",
      id: "cfg-1",
    });
    expect(dialect.encode(EmptySchema, {})).toBeNull();
    expect((del.envelope as Obj)["result"]).toBeNull();
  });

  it("v1.0 → v0.3 requests, v0.3 → v1.0 results (a2a-js: LegacyJsonRpcTransport)", async () => {
    // create: AGREEMENT on the params. The tenant is dropped by both (v0.3 has none, FACTS E.6); ours reports it.
    const create10 = { tenant: "acme", ...flat10 };
    const createRes = await a2aJsClient(
      (t) => t.createTaskPushNotificationConfig(protoJsonToJs(v10.TaskPushNotificationConfigSchema, create10) as never),
      { taskId: "task-1", pushNotificationConfig: pushConfig03 },
    );
    const oursCreate = oursToOlder(
      v10.TaskPushNotificationConfigSchema,
      create10,
      v03.CreateTaskPushNotificationConfigRequestSchema,
    );
    expect(createRes.sent["method"]).toBe("tasks/pushNotificationConfig/set");
    expect(diff(oursCreate.json, createRes.sent["params"])).toEqual([]);
    expect(oursCreate.json).toEqual(wrapped03);
    expect(oursCreate.lost).toEqual(["tenant"]);
    // the v0.3 reply (schemes [a, b]) → v1.0: AGREEMENT, first scheme kept.
    const oursBack = oursToNewer(
      v03.TaskPushNotificationConfigSchema,
      { taskId: "task-1", pushNotificationConfig: pushConfig03 },
      v10.TaskPushNotificationConfigSchema,
    );
    expect(diff(oursBack.json, jsToProtoJson(v10.TaskPushNotificationConfigSchema, createRes.value))).toEqual([]);
    expect(oursBack.json).toEqual({
      taskId: "task-1",
      id: "cfg-1",
      url: "https://client.example.com/hook",
      token: "tok-1",
      authentication: { scheme: "a", credentials: "secret" },
    });

    // get with a config id: AGREEMENT.
    const get = await a2aJsClient(
      (t) =>
        t.getTaskPushNotificationConfig(
          protoJsonToJs(v10.GetTaskPushNotificationConfigRequestSchema, { taskId: "task-1", id: "cfg-1" }) as never,
        ),
      wrapped03,
    );
    expect(
      oursToOlder(
        v10.GetTaskPushNotificationConfigRequestSchema,
        { taskId: "task-1", id: "cfg-1" },
        v03.GetTaskPushNotificationConfigRequestSchema,
      ).json,
    ).toEqual({ id: "task-1", pushNotificationConfigId: "cfg-1" });
    expect(get.sent["params"]).toEqual({ id: "task-1", pushNotificationConfigId: "cfg-1" });
    // get with an empty config id. DIFFERENCE: J03 makes pushNotificationConfigId optional (the TaskIdParams arm,
    // l.968-1029; FACTS B.7). a2a-js omits it (client/index.js:1207-1215); ours sends "" (the resource name
    // tasks/{id}/pushNotificationConfigs/ parsed back by the dialect). Who is right: J03 → a2a-js (an empty id
    // names no config). The v1.0 input is itself invalid (P10 id REQ).
    const getEmpty = await a2aJsClient(
      (t) =>
        t.getTaskPushNotificationConfig(
          protoJsonToJs(v10.GetTaskPushNotificationConfigRequestSchema, { taskId: "task-1" }) as never,
        ),
      wrapped03,
    );
    const oursGetEmpty = oursToOlder(
      v10.GetTaskPushNotificationConfigRequestSchema,
      { taskId: "task-1" },
      v03.GetTaskPushNotificationConfigRequestSchema,
    );
    expect(diff(oursGetEmpty.json, getEmpty.sent["params"])).toEqual([
      { path: "pushNotificationConfigId", ours: "", a2aJs: ABSENT },
    ]);

    // list with a page size. DIFFERENCE: J03 ListTaskPushNotificationConfigParams has only id and metadata
    // (l.1513); P03 ListTaskPushNotificationConfigRequest has page_size/page_token (P03:661-676, "Usually not
    // used/needed"). Ours writes the P03 field into the JSON-RPC params; a2a-js drops it silently
    // (client/index.js:1224-1231). Who is right: J03 → a2a-js; ours is harmless to a lenient v0.3 server.
    const list = await a2aJsClient(
      (t) =>
        t.listTaskPushNotificationConfig(
          protoJsonToJs(v10.ListTaskPushNotificationConfigsRequestSchema, { taskId: "task-1", pageSize: 10 }) as never,
        ),
      [wrapped03],
    );
    const oursList = oursToOlder(
      v10.ListTaskPushNotificationConfigsRequestSchema,
      { taskId: "task-1", pageSize: 10 },
      v03.ListTaskPushNotificationConfigRequestSchema,
    );
    expect(diff(oursList.json, list.sent["params"])).toEqual([{ path: "pageSize", ours: 10, a2aJs: ABSENT }]);
    expect(oursList.lost).toEqual([]);
    // the bare-array reply → {configs}: AGREEMENT (nextPageToken "" is omitted in ProtoJSON).
    const oursListBack = oursToNewer(
      v03.ListTaskPushNotificationConfigResponseSchema,
      [wrapped03],
      v10.ListTaskPushNotificationConfigsResponseSchema,
    );
    expect(oursListBack.json).toEqual({ configs: [flat10] });
    expect(
      diff(oursListBack.json, jsToProtoJson(v10.ListTaskPushNotificationConfigsResponseSchema, list.value)),
    ).toEqual([]);

    // delete: AGREEMENT.
    const del = await a2aJsClient(
      (t) =>
        t.deleteTaskPushNotificationConfig(
          protoJsonToJs(v10.DeleteTaskPushNotificationConfigRequestSchema, { taskId: "task-1", id: "cfg-1" }) as never,
        ),
      null,
    );
    expect(
      oursToOlder(
        v10.DeleteTaskPushNotificationConfigRequestSchema,
        { taskId: "task-1", id: "cfg-1" },
        v03.DeleteTaskPushNotificationConfigRequestSchema,
      ).json,
    ).toEqual({ id: "task-1", pushNotificationConfigId: "cfg-1" });
    expect(del.sent["params"]).toEqual({ id: "task-1", pushNotificationConfigId: "cfg-1" });
  });

  it("authentication without a scheme, v1.0 → v0.3 (message/send params, set result)", async () => {
    // AGREEMENT: J03 PushNotificationAuthenticationInfo.schemes is required (l.1879, l.1894). A v1.0 scheme ""
    // (itself invalid: P10 scheme REQ) becomes `schemes: []` on both sides (ours: the dialect's alwaysEmit
    // AuthenticationInfo.schemes; a2a-js: server/index.js:937, client/index.js:1041).
    const noScheme10 = { ...flat10, authentication: { credentials: "secret" } };
    const noScheme03 = {
      ...wrapped03,
      pushNotificationConfig: {
        ...wrapped03.pushNotificationConfig,
        authentication: { schemes: [], credentials: "secret" },
      },
    };
    const request = { message: message10, configuration: { taskPushNotificationConfig: noScheme10 } };
    const send = await a2aJsClient(
      (t) => t.sendMessage(protoJsonToJs(v10.SendMessageRequestSchema, request) as never),
      { kind: "message", messageId: "reply-1", role: "agent", parts: [] },
    );
    const oursSend = oursToOlder(v10.SendMessageRequestSchema, request, v03.SendMessageRequestSchema);
    const sentConfig = (send.sent["params"] as Obj)["configuration"] as Obj;
    expect(((oursSend.json as Obj)["configuration"] as Obj)["pushNotificationConfig"]).toEqual(
      noScheme03.pushNotificationConfig,
    );
    expect(sentConfig["pushNotificationConfig"]).toEqual(noScheme03.pushNotificationConfig);
    // The config's taskId has no place in a v0.3 PushNotificationConfig (J03 l.1899); both leave it out, and ours
    // does not report it: the task is implied by the request (compat override send-message-configuration).
    expect(oursSend.lost).toEqual([]);
    const set = await a2aJsServer(
      "tasks/pushNotificationConfig/set",
      noScheme03,
      protoJsonToJs(v10.TaskPushNotificationConfigSchema, noScheme10),
    );
    const oursResult = oursToOlder(
      v10.TaskPushNotificationConfigSchema,
      noScheme10,
      v03.TaskPushNotificationConfigSchema,
    );
    expect(oursResult.json).toEqual(noScheme03);
    expect((set.envelope as Obj)["result"]).toEqual(noScheme03);
  });
});

describe("agent card", () => {
  it("v1.0 card with 1.0 and 0.3 interfaces → v0.3 (a2a-js: agent/getAuthenticatedExtendedCard → toCompatAgentCard)", async () => {
    const ours = oursToOlder(v10.AgentCardSchema, card10, v03.AgentCardSchema);
    const theirs = await a2aJsServer(
      "agent/getAuthenticatedExtendedCard",
      undefined,
      protoJsonToJs(v10.AgentCardSchema, card10),
    );
    const a2aJs = (theirs.envelope as Obj)["result"] as Obj;
    dump("card10", { ours, a2aJs });
    expect(diff(ours.json, a2aJs)).toEqual([
      // DIFFERENCE (additionalInterfaces). S03 §5.6.2 l.392 and §5.6.4 l.409: additionalInterfaces SHOULD include
      // the main url/preferredTransport. Ours lists every kept 0.x interface, the main one first
      // (compat-proto-transforms.ts cardInterfaces); a2a-js lists only the others (slice(1), server/index.js:655).
      // Who is right: S03 → ours. (url, preferredTransport, protocolVersion "0.3" agree.)
      {
        path: "additionalInterfaces[0].url",
        ours: "https://agent.example.com/a2a/v03",
        a2aJs: "https://agent.example.com/a2a/v03/rest",
      },
      { path: "additionalInterfaces[0].transport", ours: "JSONRPC", a2aJs: "HTTP+JSON" },
      {
        path: "additionalInterfaces[1]",
        ours: { url: "https://agent.example.com/a2a/v03/rest", transport: "HTTP+JSON" },
        a2aJs: ABSENT,
      },
      // AGREEMENT (security schemes and requirements): both write J03's flat schemes with `type`, `in`, `flows`
      // (l.1947, l.80, l.1757) and requirements as [{"<scheme>": [scopes]}] (l.207, l.435) (ours: the dialect's
      // typedUnions, renames and listMaps rules; a2a-js: server/index.js:450-525).
      // AGREEMENT (iconUrl). J03 AgentCard.iconUrl (l.177) exists; P03 has none (FACTS C.15, F.1 #21). Both keep it
      // (a2a-js: server/index.js:684; ours: the card's dialectFields, written around the P03 path).
    ]);
    expect((ours.json as Obj)["iconUrl"]).toBe("https://agent.example.com/icon.png");
    expect(ours.lost).toEqual([]);
    // AGREEMENT: the first 0.x interface gives url/preferredTransport/protocolVersion; extendedAgentCard →
    // supportsAuthenticatedExtendedCard (FACTS G.3).
    expect({
      url: a2aJs["url"],
      preferredTransport: a2aJs["preferredTransport"],
      protocolVersion: a2aJs["protocolVersion"],
      supportsAuthenticatedExtendedCard: a2aJs["supportsAuthenticatedExtendedCard"],
    }).toEqual({
      url: "https://agent.example.com/a2a/v03",
      preferredTransport: "JSONRPC",
      protocolVersion: "0.3",
      supportsAuthenticatedExtendedCard: true,
    });
  });

  it("v1.0 card with 1.0 interfaces only → v0.3", async () => {
    const only10 = { ...card10, supportedInterfaces: card10.supportedInterfaces.slice(0, 2) };
    const ours = oursToOlder(v10.AgentCardSchema, only10, v03.AgentCardSchema);
    const theirs = await a2aJsServer(
      "agent/getAuthenticatedExtendedCard",
      undefined,
      protoJsonToJs(v10.AgentCardSchema, only10),
    );
    // DIFFERENCE. a2a-js refuses with VersionNotSupportedError -32009 (server/index.js:649-653; FACTS G.3), as
    // S10 §3.6.2 l.737 asks of an interface that does not support the requested version. Ours still writes a
    // v0.3 card that points a v0.3 client at the 1.0 interfaces, with protocolVersion "1.0", and reports the
    // Loss (compat-proto-transforms.ts cardInterfaces). Who is right: S10 §3.6 → a2a-js; ours at least reports it.
    expect((theirs.envelope as Obj)["error"]).toEqual({
      code: -32009,
      message: "AgentCard must have at least one interface with a protocol version in [0.3, 1.0).",
    });
    expect(ours.lost).toEqual(["supported_interfaces"]);
    const o = ours.json as Obj;
    expect({
      url: o["url"],
      preferredTransport: o["preferredTransport"],
      protocolVersion: o["protocolVersion"],
      additionalInterfaces: o["additionalInterfaces"],
    }).toEqual({
      url: "https://agent.example.com/a2a/v1",
      preferredTransport: "JSONRPC",
      protocolVersion: "1.0",
      additionalInterfaces: [
        { url: "https://agent.example.com/a2a/v1", transport: "JSONRPC" },
        { url: "https://agent.example.com/a2a/v1/rest", transport: "HTTP+JSON" },
      ],
    });
  });

  it("v0.3 card (url, preferredTransport, additionalInterfaces, supportsAuthenticatedExtendedCard) → v1.0 (a2a-js: parseLegacyAgentCard)", () => {
    const ours = oursToNewer(v03.AgentCardSchema, card03, v10.AgentCardSchema);
    const a2aJs = jsToProtoJson(v10.AgentCardSchema, parseLegacyAgentCard(card03)) as Obj;
    dump("card03", { ours, a2aJs });
    expect(diff(ours.json, a2aJs)).toEqual([
      // DIFFERENCE (patch version). S10 §3.6 l.708: patch numbers SHOULD NOT appear in cards; v1.0
      // AgentInterface.protocol_version is Major.Minor (P10:354). Ours cuts "0.3.0" to "0.3"; a2a-js keeps
      // "0.3.0" on the primary interface (client/index.js:630-635; FACTS G.3 ⚠️), which its own exact-match
      // negotiation then never matches (FACTS G.2). Who is right: S10 → ours.
      { path: "supportedInterfaces[0].protocolVersion", ours: "0.3", a2aJs: "0.3.0" },
      // DIFFERENCE (duplicate interface). additionalInterfaces repeats the main url, as S03 §5.6.4 l.409 asks.
      // a2a-js appends every additional interface after the primary (client/index.js:636-637), so the main one
      // appears twice; ours skips an entry equal to one already listed. P10:361-398 supported_interfaces is an
      // ordered list, first preferred: a duplicate is harmless but redundant. Both defensible; ours is the cleaner.
      {
        path: "supportedInterfaces[1].url",
        ours: "https://agent.example.com/a2a/v03/rest",
        a2aJs: "https://agent.example.com/a2a/v03",
      },
      { path: "supportedInterfaces[1].protocolBinding", ours: "HTTP+JSON", a2aJs: "JSONRPC" },
      {
        path: "supportedInterfaces[2].url",
        ours: "https://agent.example.com/a2a/grpc",
        a2aJs: "https://agent.example.com/a2a/v03/rest",
      },
      { path: "supportedInterfaces[2].protocolBinding", ours: "GRPC", a2aJs: "HTTP+JSON" },
      {
        path: "supportedInterfaces[3]",
        ours: ABSENT,
        a2aJs: { url: "https://agent.example.com/a2a/grpc", protocolBinding: "GRPC", protocolVersion: "0.3" },
      },
      // AGREEMENT (security schemes, and the "first OAuth flow kept" rule): both read J03's flat schemes into the
      // P10 oneofs and keep the first of several OAuth flows (P10 OAuthFlows is a oneof; FACTS G.3). Ours reports
      // the flows it does not keep in `lost`; a2a-js drops them silently (client/index.js:462-557).
      // AGREEMENT (iconUrl): J03 l.177 → P10 icon_url #14; both keep it (ours: the card's dialectFields, read
      // around the P03 path, which has no icon_url).
    ]);
    expect((ours.json as Obj)["iconUrl"]).toBe("https://agent.example.com/icon.png");
    // The losses, at a2a.json paths (the dialect decode reports what P03 cannot hold).
    expect(ours.lost).toEqual(["capabilities.stateTransitionHistory", "securitySchemes.oauth.flows.clientCredentials"]);
    // AGREEMENT: supportsAuthenticatedExtendedCard → capabilities.extendedAgentCard; stateTransitionHistory is
    // dropped by both (no P10 field, FACTS C.16); ours reports it.
    expect((ours.json as Obj)["capabilities"]).toEqual({
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
    });
    expect(a2aJs["capabilities"]).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: true });
    expect((ours.json as Obj)["securitySchemes"]).toEqual(a2aJs["securitySchemes"]);
    expect((ours.json as Obj)["securityRequirements"]).toEqual(a2aJs["securityRequirements"]);
  });
});
