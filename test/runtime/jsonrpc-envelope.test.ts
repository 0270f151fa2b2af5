/**
 * The JSON-RPC envelope and the edges of both base paths (issue 9, item 4), on
 * each protocol version: v1.0 and v0.3 of the example agent (one server; the
 * A2A-Version header picks, and its v0.3 side is the generated bridge) and
 * the native v0.3 agent of test/helpers/v03-echo-agent.ts. Every case checks
 * the exact HTTP status, JSON-RPC code, message and id, and on v1.0 the
 * ErrorInfo of an A2A error. The rules are override entries:
 *
 *   jsonrpc-request-content-type  application/json (any parameters, any case)
 *                                 is served; another type or none is -32005,
 *                                 id null, before the body is read
 *   jsonrpc-ids                   a request without id gets its method,
 *                                 params or handler error, or its result,
 *                                 with id null; ids a double does not hold
 *                                 exactly (1e400, 2^53+1) and fractions are
 *                                 -32600, id null
 *
 * and routing rules of http-server.ts, server-rest.ts and path-matcher.ts: a
 * trailing slash on the JSON-RPC path and a "/" doubled right after the REST
 * base path are served, also when the paths are configured with a trailing
 * slash; an empty verb (`/tasks/ID:`) is a bare 404.
 *
 * Requests go through node:http `request`, which sends the headers as given:
 * `fetch` adds text/plain to a string body that has no Content-Type.
 */
import { request as httpRequest, type OutgoingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchHandler, type CoreHandler } from "@protoc-gen-a2a/runtime";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { createA2AServiceHttpHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { startV03EchoAgent, type RunningV03Agent } from "../helpers/v03-echo-agent.js";

type Id = string | number | null;

const JSON_CT = "application/json";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const DOMAIN = "a2a-protocol.org";
const MAX_ID = Number.MAX_SAFE_INTEGER;
const BAD_ID = `id must be a string, null or an integer from -${MAX_ID} to ${MAX_ID}`;

let agent: RunningAgent;
let v03Agent: RunningV03Agent;

beforeAll(async () => {
  [agent, v03Agent] = await Promise.all([startEchoAgent(), startV03EchoAgent()]);
});
afterAll(async () => {
  await Promise.all([agent?.close(), v03Agent?.close()]);
});

// ---------------------------------------------------------------- the versions

/** What these tests read of a result: a v1.0 SendMessageResponse or Task, or a v0.3 Task. */
interface WireResult {
  id?: string;
  kind?: string;
  status?: { state?: string };
  task?: { id?: string; status?: { state?: string } };
}

interface WireBody {
  jsonrpc?: string;
  id?: Id;
  result?: WireResult;
  error?: unknown;
}

/** One protocol version on one server. */
interface Side {
  readonly name: string;
  readonly urls: () => { readonly jsonrpc: string; readonly rest: string };
  readonly headers: Readonly<Record<string, string>>;
  /** JSON-RPC method names of SendMessage and GetTask. */
  readonly send: string;
  readonly get: string;
  /** SendMessage params that complete a task echoing `text`. */
  readonly sendParams: (text: string) => unknown;
  /** The id of the completed task a SendMessage result holds. */
  readonly completedTask: (result: WireResult | undefined) => string | undefined;
  /** The REST path of GetTask below the base path. */
  readonly restTask: (id: string) => string;
  /** Whether A2A errors carry an ErrorInfo (v1.0). */
  readonly errorInfo: boolean;
  /** GetTask params that are an object but do not decode, and the -32602 message they get. */
  readonly undecodable: { readonly params: unknown; readonly message: string };
}

const v10Message = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });
const v03Message = (text: string) => ({
  kind: "message",
  messageId: crypto.randomUUID(),
  role: "user",
  parts: [{ kind: "text", text }],
});
const v03Completed = (r: WireResult | undefined) =>
  r?.kind === "task" && r.status?.state === "completed" ? r.id : undefined;

const SIDES: readonly Side[] = [
  {
    name: "v1.0",
    urls: () => agent.urls,
    headers: { "A2A-Version": "1.0" },
    send: "SendMessage",
    get: "GetTask",
    sendParams: (text) => ({ message: v10Message(text) }),
    completedTask: (r) => (r?.task?.status?.state === "TASK_STATE_COMPLETED" ? r.task.id : undefined),
    restTask: (id) => `/tasks/${id}`,
    errorInfo: true,
    undecodable: {
      params: { id: "x", historyLength: "abc" },
      message:
        "Invalid params for GetTask: cannot decode field lf.a2a.v1.GetTaskRequest.history_length from JSON: " +
        'expected number (int32), got "abc"',
    },
  },
  {
    name: "v0.3 (bridged)",
    urls: () => agent.urls,
    headers: {},
    send: "message/send",
    get: "tasks/get",
    sendParams: (text) => ({ message: v03Message(text), configuration: { blocking: true } }),
    completedTask: v03Completed,
    restTask: (id) => `/v1/tasks/${id}`,
    errorInfo: false,
    undecodable: {
      params: { id: "x", historyLength: "abc" },
      // The bridge reads the a2a.json params straight into the v1.0 request (generated one-pass conversion).
      message:
        "Invalid params for tasks/get: cannot decode a2a.v1.GetTaskRequest.history_length from JSON: " +
        '"abc" (expected an int32)',
    },
  },
  {
    name: "v0.3 (native)",
    urls: () => v03Agent.urls,
    headers: {},
    send: "message/send",
    get: "tasks/get",
    sendParams: (text) => ({ message: v03Message(text), configuration: { blocking: true } }),
    completedTask: v03Completed,
    restTask: (id) => `/v1/tasks/${id}`,
    errorInfo: false,
    undecodable: {
      params: { id: "x", historyLength: "abc" },
      message:
        "Invalid params for tasks/get: cannot decode field a2a.v1.GetTaskRequest.history_length from JSON: " +
        'expected number (int32), got "abc"',
    },
  },
];

// ---------------------------------------------------------------- the wire

interface Wire {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
  readonly json: WireBody | undefined;
}

/** One HTTP request with exactly these headers (no Content-Type unless given). */
function send(url: string, method: string, headers: OutgoingHttpHeaders, body?: string): Promise<Wire> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: pathname, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: WireBody | undefined;
        try {
          json = JSON.parse(text) as WireBody;
        } catch {
          json = undefined;
        }
        const ct = res.headers["content-type"];
        resolve({ status: res.statusCode ?? 0, contentType: ct, text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A JSON-RPC POST of `body` (an object is serialized) with Content-Type `contentType` (null: none). */
function rpc(side: Side, body: unknown, contentType: string | null = JSON_CT, path = ""): Promise<Wire> {
  const headers: OutgoingHttpHeaders = { ...side.headers, ...(contentType ? { "content-type": contentType } : {}) };
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return send(side.urls().jsonrpc + path, "POST", headers, text);
}

const envelope = (method: string, params: unknown, id?: Id) => ({
  jsonrpc: "2.0",
  ...(id !== undefined ? { id } : {}),
  method,
  params,
});

/** The exact JSON-RPC error answer: HTTP 200, application/json, the id, code and message, and any ErrorInfo. */
function expectError(w: Wire, side: Side, id: Id, code: number, message: string, reason?: string): void {
  expect(w.status, w.text).toBe(200);
  expect(w.contentType).toBe(JSON_CT);
  const info = side.errorInfo && reason ? { data: [{ "@type": ERROR_INFO, reason, domain: DOMAIN }] } : {};
  expect(w.json).toEqual({ jsonrpc: "2.0", id, error: { code, message, ...info } });
}

/** A JSON-RPC result for `id`: a completed task echoing the text; returns its id. */
function expectCompleted(w: Wire, side: Side, id: Id): string {
  expect(w.status, w.text).toBe(200);
  expect(w.contentType).toBe(JSON_CT);
  expect(w.json?.jsonrpc).toBe("2.0");
  expect(w.json && "id" in w.json ? w.json.id : "absent").toBe(id);
  const taskId = side.completedTask(w.json?.result);
  expect(taskId, w.text).toBeTypeOf("string");
  return taskId!;
}

const taskNotFound = (side: Side, w: Wire, id: Id) =>
  expectError(w, side, id, -32001, "Task x not found", "TASK_NOT_FOUND");

// ---------------------------------------------------------------- Content-Type

describe.each(SIDES)("$name: the request Content-Type", (side) => {
  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "Application/JSON",
    "  application/json  ",
  ])("%j is served", async (contentType) => {
    const w = await rpc(side, envelope(side.send, side.sendParams("typed"), 1), contentType);
    expectCompleted(w, side, 1);
  });

  it.each<[string, string, string]>([
    ["application/a2a+json (HTTP+JSON's type)", "application/a2a+json", "application/a2a+json"],
    ["text/plain", "text/plain", "text/plain"],
    ["text/plain;charset=UTF-8 (a browser's string body)", "text/plain;charset=UTF-8", "text/plain"],
    ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded", "application/x-www-form-urlencoded"],
    ["multipart/form-data", "multipart/form-data; boundary=x", "multipart/form-data"],
    ["application/jsonx", "application/jsonx", "application/jsonx"],
  ])("%s → -32005, id null", async (_name, contentType, shown) => {
    const w = await rpc(side, envelope(side.send, side.sendParams("refused"), 1), contentType);
    const message = `Content-Type ${shown} is not supported; send application/json`;
    expectError(w, side, null, -32005, message, "CONTENT_TYPE_NOT_SUPPORTED");
  });

  it("none → -32005, id null", async () => {
    const w = await rpc(side, envelope(side.send, side.sendParams("untyped"), 1), null);
    const message = "Content-Type is missing; send application/json";
    expectError(w, side, null, -32005, message, "CONTENT_TYPE_NOT_SUPPORTED");
  });

  it("an empty Content-Type → -32005, id null", async () => {
    const w = await rpc(side, envelope(side.send, side.sendParams("empty type"), 1), ";");
    expectError(w, side, null, -32005, "Content-Type is missing; send application/json", "CONTENT_TYPE_NOT_SUPPORTED");
  });

  it("the type is checked before the body: text/plain with a body that is not JSON → -32005", async () => {
    const w = await rpc(side, "not json", "text/plain");
    const message = "Content-Type text/plain is not supported; send application/json";
    expectError(w, side, null, -32005, message, "CONTENT_TYPE_NOT_SUPPORTED");
  });
});

describe("v1.0: a refused request is not run", () => {
  const side = SIDES[0]!;
  it.each(["text/plain", null])("SendMessage with Content-Type %s creates no task", async (contentType) => {
    const contextId = crypto.randomUUID();
    const params = { message: { ...v10Message("must not run"), contextId } };
    const refused = await rpc(side, envelope("SendMessage", params, 1), contentType);
    expect(refused.json?.error).toMatchObject({ code: -32005 });
    const list = await rpc(side, envelope("ListTasks", { contextId }, 2));
    expect(list.json?.result).toMatchObject({ tasks: [], totalSize: 0 });
  });
});

// ---------------------------------------------------------------- ids

describe.each(SIDES)("$name: a request without id", (side) => {
  it("with an unknown method → -32601, id null", async () => {
    const w = await rpc(side, envelope("NoSuchMethod", {}));
    expectError(w, side, null, -32601, "Method not found: NoSuchMethod");
  });

  it("with params that are not an object → -32602, id null", async () => {
    const w = await rpc(side, envelope(side.get, "x"));
    expectError(w, side, null, -32602, "params must be an object");
  });

  it("with params that do not decode → -32602, id null", async () => {
    const w = await rpc(side, envelope(side.get, side.undecodable.params));
    expectError(w, side, null, -32602, side.undecodable.message);
  });

  it("with a handler error → that error, id null", async () => {
    taskNotFound(side, await rpc(side, envelope(side.get, { id: "x" })), null);
  });

  it("that is valid → served, the result with id null", async () => {
    expectCompleted(await rpc(side, envelope(side.send, side.sendParams("no id"))), side, null);
  });

  it('without "jsonrpc" → -32600, id null', async () => {
    const w = await rpc(side, { method: side.get, params: { id: "x" } });
    expectError(w, side, null, -32600, 'Expected {"jsonrpc":"2.0","id":…,"method":…}');
  });
});

describe.each(SIDES)("$name: ids", (side) => {
  it.each([
    ["1e400 (Infinity to a double)", "1e400"],
    ["-1e400", "-1e400"],
    ["2^53+1 (2^53 to a double)", "9007199254740993"],
    ["-(2^53+1)", "-9007199254740993"],
    ["1e20", "1e20"],
    ["a fraction", "1.5"],
    ["an object", '{"n":1}'],
    ["a boolean", "true"],
  ])("%s → -32600, id null", async (_name, idText) => {
    const body = `{"jsonrpc":"2.0","id":${idText},"method":"${side.get}","params":{"id":"x"}}`;
    expectError(await rpc(side, body), side, null, -32600, BAD_ID);
  });

  it("a string id over 256 characters → -32600, id null; one of 256 is echoed", async () => {
    const body = (id: string) => JSON.stringify({ jsonrpc: "2.0", id, method: side.get, params: { id: "x" } });
    expectError(await rpc(side, body("i".repeat(257))), side, null, -32600, "id must be at most 256 characters");
    taskNotFound(side, await rpc(side, body("i".repeat(256))), "i".repeat(256));
  });

  it.each<[string, Id, string]>([
    ["2^53-1", MAX_ID, "9007199254740991"],
    ["-(2^53-1)", -MAX_ID, "-9007199254740991"],
    ["0", 0, "0"],
    ["-0 (echoed as 0)", 0, "-0"],
    ["1.0 (an integer)", 1, "1.0"],
    ["1e3 (an integer)", 1000, "1e3"],
    ["the string 1e400", "1e400", '"1e400"'],
    ["null", null, "null"],
  ])("%s is echoed", async (_name, id, idText) => {
    const body = `{"jsonrpc":"2.0","id":${idText},"method":"${side.get}","params":{"id":"x"}}`;
    const w = await rpc(side, body);
    taskNotFound(side, w, id);
    expect(w.text).toContain(`"id":${JSON.stringify(id)},`);
  });
});

// ---------------------------------------------------------------- paths

describe.each(SIDES)("$name: base paths", (side) => {
  it("POST on the JSON-RPC path with a trailing slash is served", async () => {
    const w = await rpc(side, envelope(side.send, side.sendParams("slash"), "s"), JSON_CT, "/");
    expectCompleted(w, side, "s");
  });

  it("POST on the JSON-RPC path with two trailing slashes → 404, no body", async () => {
    const w = await rpc(side, envelope(side.send, side.sendParams("slashes"), 1), JSON_CT, "//");
    expect([w.status, w.text]).toEqual([404, ""]);
  });

  it('a route below the REST base path with the "/" doubled (base URL with a trailing slash) is served', async () => {
    const id = expectCompleted(await rpc(side, envelope(side.send, side.sendParams("rest"), 1)), side, 1);
    const plain = await send(side.urls().rest + side.restTask(id), "GET", side.headers);
    const doubled = await send(side.urls().rest + "/" + side.restTask(id), "GET", side.headers);
    expect(plain.status, plain.text).toBe(200);
    expect(doubled.status, doubled.text).toBe(200);
    expect(doubled.json).toEqual(plain.json);
    const tripled = await send(side.urls().rest + "//" + side.restTask(id), "GET", side.headers);
    expect([tripled.status, tripled.text]).toEqual([404, ""]);
  });

  it.each(["GET", "POST", "DELETE"])("%s on a task path with an empty verb (tasks/ID:) → 404, no body", async (m) => {
    const id = expectCompleted(await rpc(side, envelope(side.send, side.sendParams("verb"), 1)), side, 1);
    const w = await send(side.urls().rest + side.restTask(id) + ":", m, side.headers);
    expect([w.status, w.text]).toEqual([404, ""]);
  });
});

describe("paths configured with a trailing slash", () => {
  const handler: CoreHandler = createA2AServiceHttpHandler({
    handler: createEchoHandler(),
    jsonrpcPath: "/rpc/",
    restBasePath: "/api/",
  });
  const fetchIt = fetchHandler(handler);
  const headers = { "A2A-Version": "1.0", "content-type": JSON_CT };
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } });

  it.each(["/rpc", "/rpc/"])("JSON-RPC is served at %s", async (path) => {
    const res = await fetchIt(new Request(`http://agent${path}`, { method: "POST", headers, body }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 1, error: { code: -32001 } });
  });

  it.each(["/api/tasks/x", "/api//tasks/x"])("REST is served at %s", async (path) => {
    const res = await fetchIt(new Request(`http://agent${path}`, { headers }));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { status: "NOT_FOUND", details: [{ reason: "TASK_NOT_FOUND" }] } });
  });
});
