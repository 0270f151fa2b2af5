/**
 * Conversions between v0.3 and v1.0 never coerce silently (issue 9, item 12),
 * on every path: the JSON-RPC v0.3 server on a v1.0 handler (the bridge's
 * one-pass a2a.json conversions), the plain v0.3 JSON-RPC server (the dialect
 * codec), the REST and gRPC v0.3 bridges (the plan converter) and the exported
 * conversion functions.
 *
 *   requests   an unknown kind, a part without its content, an unknown enum
 *              value: InvalidParams naming the path; the handler is not called
 *   results    an enum number v0.3 has no value for: reported, written as the
 *              value 0 (never a number); a part without content: reported and,
 *              in a2a.json, left out; a union that sets nothing: reported
 *   card       toOlderJson writes every key a2a.json requires
 *   cancel     tasks/cancel metadata crosses the JSON-RPC bridge both ways
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { Ajv } from "ajv";
import { create, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2ATransportError, nodeHttpListener, type Loss } from "@protoc-gen-a2a/runtime";
import type { CoreRequest } from "@protoc-gen-a2a/runtime/protocol";
import { CompatJsonError } from "@protoc-gen-a2a/runtime/protocol";
import { PART_LEFT_OUT } from "@protoc-gen-a2a/runtime/compat-json";
import {
  a2aCompat,
  bridgeToOlder,
  clientForOlder,
  fromOlderJson,
  toOlderJson,
} from "../generated-samples/a2a_compat.js";
import {
  A2AServiceV0_3,
  createA2AServiceHttpHandler as createV03HttpHandler,
  type A2AServiceHandler as V03Handler,
} from "../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../generated-samples/v0.3.0/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v0.3.0/a2a_rest.js";
import type { A2AServiceHandler } from "../generated-samples/v1.0.1/a2a_a2a.js";
import * as v03 from "../generated-samples/v0.3.0/a2a_pb.js";
import * as v10 from "../generated-samples/v1.0.1/a2a_pb.js";
import { repoRoot } from "./helpers/run.js";

// ---- a v1.0 handler that records what reaches it, served as v0.3 in every binding ----

/** What the handler last saw, and what it answers with. */
const seen: { requests: unknown[]; result: () => v10.Task; stream: () => v10.StreamResponse[] } = {
  requests: [],
  result: () => create(v10.TaskSchema, { id: "t", contextId: "c" }),
  stream: () => [],
};

const handler: A2AServiceHandler = {
  async sendMessage(req) {
    seen.requests.push(req);
    return create(v10.SendMessageResponseSchema, { payload: { case: "task", value: seen.result() } });
  },
  async *sendStreamingMessage(req) {
    seen.requests.push(req);
    for (const ev of seen.stream()) yield ev;
  },
  async cancelTask(req) {
    seen.requests.push(req);
    return seen.result();
  },
};

/** The same, written against v0.3 itself: the plain v0.3 server (dialect codec, no conversion to v1.0). */
const v03Handler: V03Handler = {
  async sendMessage(req) {
    seen.requests.push(req);
    return create(v03.SendMessageResponseSchema, {
      payload: {
        case: "task",
        value: {
          id: "t",
          contextId: "c",
          status: { state: 99 as v03.TaskState },
          artifacts: [{ artifactId: "a", parts: [{ part: { case: "text", value: "x" } }, {}] }],
        },
      },
    });
  },
};

const losses: string[] = [];
const onLoss = (op: string, l: Loss) => losses.push(`${op} ${l.path}: ${l.reason}`);

let http: Server;
let plain: Server;
let grpc: Http2Server;
const sessions = new Set<ServerHttp2Session>();
let base = "";
let plainBase = "";
let grpcUrl = "";

const listen = (s: Server | Http2Server) =>
  new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  const older = bridgeToOlder(handler, onLoss);
  http = createServer(
    nodeHttpListener(createV03HttpHandler({ ...older, jsonrpcPath: "/rpc", restBasePath: "/rest", onLoss })),
  );
  plain = createServer(nodeHttpListener(createV03HttpHandler({ handler: v03Handler, jsonrpcPath: "/rpc", onLoss })));
  grpc = createHttp2Server(
    connectNodeAdapter({
      routes: a2aServiceGrpcRoutes({ handler: older.handler }),
      grpc: true,
      connect: false,
      grpcWeb: false,
    }),
  );
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  base = `http://127.0.0.1:${await listen(http)}`;
  plainBase = `http://127.0.0.1:${await listen(plain)}`;
  grpcUrl = `http://127.0.0.1:${await listen(grpc)}`;
});

afterAll(async () => {
  for (const s of sessions) s.destroy();
  for (const s of [http, plain]) s.closeAllConnections();
  await Promise.all(
    [http, plain, grpc].map((s) => new Promise<void>((resolve) => (s as Server).close(() => resolve()))),
  );
});

/** Runs `body` with a clean record; what the handler saw and the losses reported are returned. */
async function recording<T>(body: () => Promise<T>): Promise<{ out: T; requests: unknown[]; losses: string[] }> {
  seen.requests = [];
  losses.length = 0;
  const out = await body();
  return { out, requests: [...seen.requests], losses: [...losses] };
}

async function rpc(url: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  expect(res.status).toBe(200);
  if (res.headers.get("content-type") !== "text/event-stream") return (await res.json()) as Record<string, unknown>;
  // A v0.3 streaming method refused before its first event: the stream's one event (api.streamStart).
  const text = await res.text();
  expect(text).toMatch(/^data: [^\n]+\n\n$/);
  return JSON.parse(text.slice("data: ".length)) as Record<string, unknown>;
}

async function rest(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}/rest${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const grpcClient = () => createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: grpcUrl }), {});

/** The id of the JSON-RPC request a peer got, to answer it with. */
async function requestId(req: CoreRequest): Promise<number> {
  return (JSON.parse(new TextDecoder().decode(await req.body(1 << 20))) as { id: number }).id;
}

async function thrown(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CompatJsonError);
    return (e as Error).message;
  }
  throw new Error("not refused");
}

// ---- requests: refused, never defaulted ----

/** a2a.json MessageSendParams whose message holds `parts` (and, optionally, another role or kind). */
const sendParams = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { kind: "message", messageId: "m", role: "user", parts, ...extra },
});

/** `server`: what the servers answer when their input rules refuse the request before it is converted. */
const jsonRpcCases: { name: string; params: unknown; message: string; server?: string }[] = [
  {
    name: "an unknown part kind",
    params: sendParams([
      { kind: "text", text: "hi" },
      { kind: "video", url: "https://h/v.mp4" },
    ]),
    message: 'cannot decode a2a.v1.Part at message.parts[1].kind from JSON: unknown kind "video" (text, file or data)',
  },
  {
    name: "a part with neither kind nor content",
    params: sendParams([{}]),
    message: "cannot decode a2a.v1.Part at message.parts[0].kind from JSON: no kind (text, file or data)",
    // Servers check the request's input rules (validate.ts) before converting it.
    server: "message.parts[0].kind is required",
  },
  {
    name: "a file part with neither uri nor bytes",
    params: sendParams([{ kind: "file", file: { mimeType: "image/png" } }]),
    message: "cannot decode a2a.v1.FilePart at message.parts[0].file from JSON: a file needs uri or bytes",
  },
  {
    name: "a file part with both uri and bytes",
    params: sendParams([{ kind: "file", file: { uri: "https://h/f", bytes: "AA==" } }]),
    message:
      "cannot decode oneof a2a.v1.FilePart.file (set by both uri and bytes) at message.parts[0].file from JSON: object",
  },
  {
    name: "a file part without its file",
    params: sendParams([{ kind: "file" }]),
    message: "cannot decode a2a.v1.FilePart at message.parts[0].file from JSON: no value (expected an object)",
  },
  {
    name: "a text part without text",
    params: sendParams([{ kind: "text" }]),
    message: "cannot decode a2a.v1.Part.text at message.parts[0] from JSON: no value (expected a string)",
  },
  {
    name: "a data part without data",
    params: sendParams([{ kind: "data" }]),
    message: "cannot decode a2a.v1.DataPart.data at message.parts[0] from JSON: no value (expected an object)",
  },
  {
    name: "an unknown role",
    params: sendParams([{ kind: "text", text: "hi" }], { role: "robot" }),
    message: 'cannot decode a2a.v1.Message.role at message.role from JSON: unknown value "robot"',
    server: 'message.role: unknown value "robot" for a2a.v1.Role',
  },
  {
    name: "a role number v0.3 does not have",
    params: sendParams([{ kind: "text", text: "hi" }], { role: 7 }),
    message: "cannot decode a2a.v1.Message.role at message.role from JSON: unknown value 7",
  },
  {
    name: "a message with another kind",
    params: sendParams([{ kind: "text", text: "hi" }], { kind: "task" }),
    message: 'cannot decode a2a.v1.Message at message.kind from JSON: unknown kind "task" (message)',
  },
];

describe("requests that cannot convert are InvalidParams naming the path", () => {
  for (const c of jsonRpcCases) {
    it(`${c.name}: the same refusal from the bridge, the plain v0.3 server and the exported function`, async () => {
      for (const url of [base, plainBase]) {
        const { out, requests } = await recording(() => rpc(url, "message/send", c.params));
        expect(out["error"]).toEqual({
          code: -32602,
          message: `Invalid params for message/send: ${c.server ?? c.message}`,
        });
        expect(requests).toEqual([]);
      }
      // The streaming method is refused before its first event, in the same words.
      const stream = await recording(() => rpc(base, "message/stream", c.params));
      expect(stream.out["error"]).toEqual({
        code: -32602,
        message: `Invalid params for message/stream: ${c.server ?? c.message}`,
      });
      expect(stream.requests).toEqual([]);
      expect(refusal(() => fromOlderJson(v10.SendMessageRequestSchema, c.params as JsonValue))).toBe(c.message);
    });
  }

  it("a task id that is not a string or a number is refused, not read as a missing id", async () => {
    for (const id of [{}, true, ["t"]]) {
      const message = `cannot decode a2a.v1.GetTaskRequest id at id from JSON: ${Array.isArray(id) ? "array" : typeof id === "object" ? "object" : id} (expected a string)`;
      expect(refusal(() => fromOlderJson(v10.GetTaskRequestSchema, { id }))).toBe(message);
      expect(refusal(() => A2AServiceV0_3.jsonrpcCodec!.decode(v03.GetTaskRequestSchema, { id }))).toBe(message);
      for (const url of [base, plainBase]) {
        const { out } = await recording(() => rpc(url, "tasks/get", { id }));
        expect(out["error"]).toEqual({ code: -32602, message: `Invalid params for tasks/get: ${message}` });
      }
    }
    // A number is an id as written; null, like no id, is named by the request's check.
    expect(fromOlderJson(v10.GetTaskRequestSchema, { id: 42 }).message.id).toBe("42");
    expect(fromOlderJson(v10.GetTaskRequestSchema, { id: null }).message.id).toBe("");
  });

  it("an unknown task state is refused by the exported function and by the dialect codec", () => {
    const task = { kind: "task", id: "t", contextId: "c", status: { state: "paused" } };
    const message = 'cannot decode a2a.v1.TaskStatus.state at status.state from JSON: unknown value "paused"';
    expect(refusal(() => fromOlderJson(v10.TaskSchema, task))).toBe(message);
    expect(refusal(() => A2AServiceV0_3.jsonrpcCodec!.decode(v03.TaskSchema, task))).toBe(message);
  });

  it("a card's security requirement that is not a list is refused on every path; a __proto__ scheme is kept", () => {
    const card = (security: JsonValue) => ({ name: "n", description: "d", version: "1", security, skills: [] });
    const viaCodec = (j: JsonValue) =>
      fromJson(v03.AgentCardSchema, A2AServiceV0_3.jsonrpcCodec!.decode(v03.AgentCardSchema, j), {
        ignoreUnknownFields: true,
      });
    for (const bad of ["read", 5, true, { scope: "read" }, null]) {
      const j = card([{ oauth: bad }]);
      const message = refusal(() => fromOlderJson(v10.AgentCardSchema, j));
      expect(message).toMatch(
        /^cannot decode a2a\.v1\.Security\.schemes at security\[0\]\.oauth .*\(expected an array\)$/,
      );
      expect(refusal(() => viaCodec(j))).toBe(message);
    }
    // An own key named __proto__ is a scheme like any other, not the object's prototype.
    const proto = JSON.parse('[{"__proto__": ["read"]}]') as JsonValue;
    const ours = fromOlderJson(v10.AgentCardSchema, card(proto)).message;
    expect(Object.keys(ours.securityRequirements[0]!.schemes)).toEqual(["__proto__"]);
    expect(Object.keys(viaCodec(card(proto)).security[0]!.schemes)).toEqual(["__proto__"]);
  });

  it("an unknown kind in a v0.3 result is refused where the client reads it", async () => {
    const peer = createServer(
      nodeHttpListener(async (req) => ({
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: await requestId(req),
          result: { kind: "note", id: "t", contextId: "c" },
        }),
      })),
    );
    const url = `http://127.0.0.1:${await listen(peer)}`;
    try {
      const client = clientForOlder(createA2AServiceJsonRpcClient({ url }));
      const e = await thrown(
        client.sendMessage({ message: { messageId: "m", parts: [{ content: { case: "text", value: "hi" } }] } }),
      );
      // An answer the client cannot read, as the plain clients report one; the refusal is its cause.
      expect(e).toBeInstanceOf(A2ATransportError);
      expect((e as Error).cause).toBeInstanceOf(CompatJsonError);
      expect((e as Error).message).toBe(
        "SendMessage: the protocol 0.3 answer cannot be read: " +
          'cannot decode a2a.v1.SendMessageResponse at kind from JSON: unknown kind "note" (task, message)',
      );
    } finally {
      peer.closeAllConnections();
      await new Promise<void>((resolve) => peer.close(() => resolve()));
    }
  });

  it("a result holding a lone surrogate is refused by the JSON-RPC client, bridged or not", async () => {
    // Escaped in the JSON text, so the body is valid UTF-8 and JSON.parse gives the lone surrogate.
    const task = '{"kind":"task","id":"t\\ud800","contextId":"c","status":{"state":"working"}}';
    const peer = createServer(
      nodeHttpListener(async (req) => ({
        status: 200,
        headers: { "content-type": "application/json" },
        body: `{"jsonrpc":"2.0","id":${await requestId(req)},"result":${task}}`,
      })),
    );
    const url = `http://127.0.0.1:${await listen(peer)}`;
    try {
      const older = createA2AServiceJsonRpcClient({ url });
      for (const call of [() => clientForOlder(older).getTask({ id: "t" }), () => older.getTask({ name: "tasks/t" })]) {
        const e = await thrown(call());
        expect(e).toBeInstanceOf(A2ATransportError);
        expect((e as Error).message).toBe(
          `GetTask: POST ${url} (tasks/get) answered a result that cannot be read: ` +
            "result.id holds a lone surrogate, which UTF-8 cannot carry",
        );
      }
    } finally {
      peer.closeAllConnections();
      await new Promise<void>((resolve) => peer.close(() => resolve()));
    }
  });

  /** v0.3 proto requests (REST ProtoJSON, gRPC binary) the plan converter cannot take. */
  /** `server`: what the servers answer when their input rules refuse the request before it is converted. */
  const protoCases: { name: string; message: v03.Message; json: unknown; reason: string; server?: string }[] = [
    {
      name: "an empty part",
      message: create(v03.MessageSchema, { messageId: "m", role: v03.Role.USER, content: [{}] }),
      json: { messageId: "m", role: "ROLE_USER", content: [{}] },
      reason: "cannot decode a2a.v1.Part at request.content[0] (a part needs text, a file or data)",
      server: "message.content[0] must set one of text, file, data",
    },
    {
      name: "a file part without uri or bytes",
      message: create(v03.MessageSchema, {
        messageId: "m",
        role: v03.Role.USER,
        content: [{ part: { case: "file", value: { mimeType: "image/png" } } }],
      }),
      json: { messageId: "m", role: "ROLE_USER", content: [{ file: { mimeType: "image/png" } }] },
      reason: "cannot decode a2a.v1.FilePart at request.content[0].file (a file needs uri or bytes)",
    },
    {
      name: "a role number v0.3 does not have",
      message: create(v03.MessageSchema, {
        messageId: "m",
        role: 7 as v03.Role,
        content: [{ part: { case: "text", value: "hi" } }],
      }),
      json: { messageId: "m", role: 7, content: [{ text: "hi" }] },
      reason: "cannot decode a2a.v1.Message.role at request.role (unknown value 7)",
      server: "message.role: unknown value 7 for a2a.v1.Role",
    },
  ];
  for (const c of protoCases) {
    it(`${c.name}: refused by the REST and gRPC bridges, and by the converter`, async () => {
      const overRest = await recording(() => rest("/v1/message:send", { message: c.json }));
      expect(overRest.out.status).toBe(400);
      const said = `Invalid request for SendMessage: ${c.server ?? c.reason}`;
      expect(JSON.stringify(overRest.out.json)).toContain(said);
      expect(overRest.requests).toEqual([]);
      const raw = createClient(v03.A2AService, createGrpcTransport({ baseUrl: grpcUrl }));
      const overGrpc = await recording(() => thrown(raw.sendMessage({ request: c.message })));
      // Read with a plain connect client: the status and message as sent.
      expect(overGrpc.out).toBeInstanceOf(ConnectError);
      expect([(overGrpc.out as ConnectError).code, (overGrpc.out as ConnectError).rawMessage]).toEqual([
        Code.InvalidArgument,
        said,
      ]);
      expect(overGrpc.requests).toEqual([]);
      const request = create(v03.SendMessageRequestSchema, { request: c.message });
      expect(refusal(() => a2aCompat.convert(request, "toNewer"))).toBe(c.reason);
    });
  }

  // A resource name of another form names nothing: refused, never read as an empty id (which found no task).
  it.each(["tasks/a/b", "nottasks/x", "tasks", "zzz"])("a task name %j: refused by the gRPC bridge", async (name) => {
    const raw = createClient(v03.A2AService, createGrpcTransport({ baseUrl: grpcUrl }));
    const overGrpc = await recording(() => thrown(raw.cancelTask({ name })));
    const reason = "cannot decode a2a.v1.CancelTaskRequest.name at name (a task name is tasks/{id})";
    expect([(overGrpc.out as ConnectError).code, (overGrpc.out as ConnectError).rawMessage]).toEqual([
      Code.InvalidArgument,
      `Invalid request for CancelTask: ${reason}`,
    ]);
    expect(overGrpc.requests).toEqual([]);
    expect(refusal(() => a2aCompat.convert(create(v03.CancelTaskRequestSchema, { name }), "toNewer"))).toBe(reason);
  });

  it("push config names and parents of another form: refused by the converter, naming the field", () => {
    const config = "a push config name is tasks/{task_id}/pushNotificationConfigs/{id}";
    const get = create(v03.GetTaskPushNotificationConfigRequestSchema, { name: "tasks/t1/configs/c1" });
    expect(refusal(() => a2aCompat.convert(get, "toNewer"))).toBe(
      `cannot decode a2a.v1.GetTaskPushNotificationConfigRequest.name at name (${config})`,
    );
    const list = create(v03.ListTaskPushNotificationConfigRequestSchema, { parent: "tasks/t1/x" });
    expect(refusal(() => a2aCompat.convert(list, "toNewer"))).toBe(
      "cannot decode a2a.v1.ListTaskPushNotificationConfigRequest.parent at parent (a task name is tasks/{id})",
    );
    const fine = create(v03.GetTaskPushNotificationConfigRequestSchema, {
      name: "tasks/t1/pushNotificationConfigs/c1",
    });
    expect(a2aCompat.convert(fine, "toNewer").message).toMatchObject({ taskId: "t1", id: "c1" });
  });
});

// ---- results: reported, never a number ----

/** A task with what v0.3 has no form for: a state and a role without a v0.3 value, a part without content. */
const oddTask = () =>
  create(v10.TaskSchema, {
    id: "t",
    contextId: "c",
    status: { state: 99 as v10.TaskState },
    history: [{ messageId: "m", role: 42 as v10.Role, parts: [{ content: { case: "text", value: "hi" } }] }],
    artifacts: [{ artifactId: "a", parts: [{ content: { case: "text", value: "x" } }, {}] }],
  });

const STATE_LOST = "no a2a.v1.TaskState value for 99; written as TASK_STATE_UNSPECIFIED";
const ROLE_LOST = "no a2a.v1.Role value for 42; written as ROLE_UNSPECIFIED";

describe("results v0.3 cannot hold are reported, and no enum is written as a number", () => {
  it("the exported function and the proto path write the value 0, leave the part out, and report both", () => {
    const { json, lost } = toOlderJson(oddTask());
    expect(json).toEqual({
      kind: "task",
      id: "t",
      contextId: "c",
      status: { state: "unknown" },
      history: [{ kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text", text: "hi" }] }],
      artifacts: [{ artifactId: "a", parts: [{ kind: "text", text: "x" }] }],
    });
    const expected = [
      { path: "status.state", reason: STATE_LOST },
      { path: "artifacts[0].parts[1]", reason: PART_LEFT_OUT },
      { path: "history[0].role", reason: ROLE_LOST },
    ];
    expect(lost).toEqual(expected);
    // The plan converter (REST, gRPC) writes v0.3 value 0 and says so; the part stays, empty, in the proto.
    const older = a2aCompat.convert(oddTask(), "toOlder");
    expect(older.lost).toEqual([expected[0], expected[2]]);
    const olderTask = older.message as v03.Task;
    expect([olderTask.status?.state, olderTask.history[0]?.role, olderTask.artifacts[0]?.parts.length]).toEqual([
      0, 0, 2,
    ]);
    // Then the dialect codec leaves the empty part out of a2a.json, and says so.
    const dropped: string[] = [];
    const viaCodec = A2AServiceV0_3.jsonrpcCodec!.encode(
      v03.TaskSchema,
      toJson(v03.TaskSchema, olderTask),
      (path, reason) => dropped.push(`${path}: ${reason}`),
    );
    expect(viaCodec).toEqual(json);
    expect(dropped).toEqual([`artifacts[0].parts[1]: ${PART_LEFT_OUT}`]);
  });

  it("the JSON-RPC bridge answers a2a.json and reports to its onLoss", async () => {
    seen.result = oddTask;
    const { out, losses: reported } = await recording(() =>
      rpc(base, "message/send", sendParams([{ kind: "text", text: "hi" }])),
    );
    expect(out["result"]).toEqual(toOlderJson(oddTask()).json);
    expect(reported).toEqual([
      `SendMessage task.status.state: ${STATE_LOST}`,
      `SendMessage task.artifacts[0].parts[1]: ${PART_LEFT_OUT}`,
      `SendMessage task.history[0].role: ${ROLE_LOST}`,
    ]);
  });

  it("the REST and gRPC bridges write TASK_STATE_UNSPECIFIED and ROLE_UNSPECIFIED, and report them", async () => {
    seen.result = oddTask;
    const params = { message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hi" }] } };
    const overRest = await recording(() => rest("/v1/message:send", params));
    expect(overRest.out.status).toBe(200);
    expect(JSON.stringify(overRest.out.json)).not.toMatch(/"(state|role)":\d/);
    expect(overRest.out.json["task"]).toMatchObject({ status: {}, history: [{ messageId: "m" }] });
    const expected = [`SendMessage task.status.state: ${STATE_LOST}`, `SendMessage task.history[0].role: ${ROLE_LOST}`];
    expect(overRest.losses).toEqual(expected);
    const overGrpc = await recording(() =>
      grpcClient().sendMessage({
        request: { messageId: "m", role: v03.Role.USER, content: [{ part: { case: "text", value: "hi" } }] },
      }),
    );
    const task = (overGrpc.out as v03.SendMessageResponse).payload.value as v03.Task;
    expect([task.status?.state, task.history[0]?.role]).toEqual([v03.TaskState.UNSPECIFIED, v03.Role.UNSPECIFIED]);
    expect(overGrpc.losses).toEqual(expected);
  });

  it("the plain v0.3 JSON-RPC server writes no number either, and reports to its onLoss", async () => {
    const { out, losses: reported } = await recording(() =>
      rpc(plainBase, "message/send", sendParams([{ kind: "text", text: "hi" }])),
    );
    expect(out["result"]).toEqual({
      kind: "task",
      id: "t",
      contextId: "c",
      status: { state: "unknown" },
      artifacts: [{ artifactId: "a", parts: [{ kind: "text", text: "x" }] }],
    });
    expect(reported).toEqual([
      "SendMessage status.state: no a2a.v1.TaskState value for 99; written as TASK_STATE_UNSPECIFIED",
      `SendMessage artifacts[0].parts[1]: ${PART_LEFT_OUT}`,
    ]);
  });

  it("a stream event that sets no payload is reported, by the exported function and by the bridge", async () => {
    const empty = create(v10.StreamResponseSchema, {});
    const reason = "a2a.v1.StreamResponse sets none of payload; a2a.json has no form for it";
    expect(toOlderJson(empty)).toEqual({ json: {}, lost: [{ path: "payload", reason }] });
    seen.stream = () => [empty];
    const res = await recording(async () => {
      const r = await fetch(`${base}/rpc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "message/stream",
          params: sendParams([{ kind: "text", text: "hi" }]),
        }),
      });
      return r.text();
    });
    expect(res.out).toContain('"result":{}');
    expect(res.losses).toEqual([`SendStreamingMessage payload: ${reason}`]);
  });
});

// ---- the agent card ----

describe("toOlderJson writes every key a2a.json requires", () => {
  const schema = JSON.parse(readFileSync(join(repoRoot, "../shared/a2a-spec/v0.3.0/a2a.json"), "utf8")) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema(schema, "a2a");
  const validate = ajv.getSchema("a2a#/definitions/AgentCard")!;
  const valid = (json: JsonValue) => {
    if (!validate(json)) throw new Error(`${JSON.stringify(json)}\n${ajv.errorsText(validate.errors)}`);
  };

  it("a card's interfaces: the 1.x ones left out, a kept one's tenant reported lost, on both paths", () => {
    const card = create(v10.AgentCardSchema, {
      supportedInterfaces: [
        { url: "https://a.example/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "https://a.example/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "t1" },
      ],
    });
    const expected = [{ path: "supported_interfaces[1].tenant", reason: "v0.3 interfaces have no tenant" }];
    const { json, lost } = toOlderJson(card);
    expect((json as { additionalInterfaces: unknown }).additionalInterfaces).toEqual([
      { url: "https://a.example/v03", transport: "JSONRPC" },
    ]);
    expect(lost).toEqual(expected);
    expect(a2aCompat.convert(card, "toOlder").lost).toEqual(expected);
    valid(json);
  });

  it("a card with nothing set", () => {
    const { json, lost } = toOlderJson(create(v10.AgentCardSchema, {}));
    expect(json).toEqual({
      protocolVersion: "",
      name: "",
      description: "",
      url: "",
      version: "",
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    });
    expect(lost).toEqual([]);
    valid(json);
  });

  it("a card whose skills, provider, extensions, signatures and security schemes leave their keys empty", () => {
    const card = create(v10.AgentCardSchema, {
      name: "a",
      supportedInterfaces: [{ url: "http://h/rpc", protocolBinding: "JSONRPC", protocolVersion: "0.3" }],
      provider: {},
      capabilities: { extensions: [{}] },
      skills: [{}],
      signatures: [{}],
      securitySchemes: {
        key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header" } } },
        http: { scheme: { case: "httpAuthSecurityScheme", value: {} } },
        oauth: {
          scheme: {
            case: "oauth2SecurityScheme",
            value: { flows: { flow: { case: "authorizationCode", value: {} } } },
          },
        },
        oidc: { scheme: { case: "openIdConnectSecurityScheme", value: {} } },
        mtls: { scheme: { case: "mtlsSecurityScheme", value: {} } },
      },
    });
    const { json } = toOlderJson(card);
    valid(json);
    const j = json as Record<string, Record<string, unknown>>;
    expect(j["skills"]).toEqual([{ id: "", name: "", description: "", tags: [] }]);
    expect(j["securitySchemes"]!["oauth"]).toEqual({
      type: "oauth2",
      flows: { authorizationCode: { authorizationUrl: "", tokenUrl: "", scopes: {} } },
    });
  });
});

// ---- tasks/cancel metadata ----

describe("the bridge carries tasks/cancel metadata", () => {
  it("server side: a v0.3 JSON-RPC client's metadata reaches the v1.0 handler, unreported", async () => {
    seen.result = () => create(v10.TaskSchema, { id: "t", contextId: "c", status: { state: v10.TaskState.CANCELED } });
    const {
      out,
      requests,
      losses: reported,
    } = await recording(() => rpc(base, "tasks/cancel", { id: "t", metadata: { reason: "user", n: 1 } }));
    expect(out["result"]).toMatchObject({ kind: "task", id: "t", status: { state: "canceled" } });
    expect((requests[0] as v10.CancelTaskRequest).id).toBe("t");
    expect((requests[0] as v10.CancelTaskRequest).metadata).toEqual({ reason: "user", n: 1 });
    expect(reported).toEqual([]);
  });

  it("client side: a v1.0 call sends it in the a2a.json params; over REST and gRPC it is reported lost", async () => {
    const sent: unknown[] = [];
    const tap: typeof fetch = (input, init) => {
      sent.push(JSON.parse(String(init?.body))["params"]);
      return fetch(input, init);
    };
    const clientLosses: string[] = [];
    const record = (op: string, l: Loss) => clientLosses.push(`${op} ${l.path}: ${l.reason}`);
    const request = { id: "t", metadata: { reason: "user" } };
    const overJsonRpc = clientForOlder(createA2AServiceJsonRpcClient({ url: `${base}/rpc`, fetch: tap }), record);
    const { requests } = await recording(() => overJsonRpc.cancelTask(request));
    expect(sent).toEqual([{ id: "t", metadata: { reason: "user" } }]);
    expect((requests[0] as v10.CancelTaskRequest).metadata).toEqual({ reason: "user" });
    expect(clientLosses).toEqual([]);
    const lostOver = ["CancelTask metadata: the v0.3 proto CancelTaskRequest has no metadata"];
    await clientForOlder(createA2AServiceRestClient({ url: `${base}/rest` }), record).cancelTask(request);
    expect(clientLosses).toEqual(lostOver);
    clientLosses.length = 0;
    await clientForOlder(grpcClient(), record).cancelTask(request);
    expect(clientLosses).toEqual(lostOver);
  });

  it("the exported functions carry it both ways", () => {
    const { message, lost } = fromOlderJson(v10.CancelTaskRequestSchema, { id: "t", metadata: { k: [1] } });
    expect([message.id, message.metadata, lost]).toEqual(["t", { k: [1] }, []]);
    expect(toOlderJson(message)).toEqual({ json: { id: "t", metadata: { k: [1] } }, lost: [] });
  });
});
