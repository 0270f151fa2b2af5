/**
 * Bad input on the wire, against the echo example agent (generated server,
 * real node:http on 127.0.0.1): malformed JSON-RPC envelopes and params,
 * version and extension negotiation (I5, I7), HTTP+JSON routing edge cases
 * (404/405, `..`, %2F), bad bodies and query values, oversized bodies,
 * prototype-pollution keys and unknown fields (I13). Every case checks the
 * exact HTTP status, the JSON-RPC error code or the HTTP+JSON error body, and
 * the content type. The agents run in this process, so the
 * Object.prototype checks cover the server too.
 *
 * `fetch` resolves `..` (and `%2e%2e`) segments before sending, and keeps
 * `%2F` as is; the raw cases go through node:http `request`, which sends the
 * path verbatim.
 */
import { request as httpRequest, type OutgoingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEchoAgent, type RunningAgent } from "../examples/echo-agent/server.js";

const V10 = { "A2A-Version": "1.0" } as const;
const RPC_CT = "application/json";
const REST_CT = "application/a2a+json";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const DOMAIN = "a2a-protocol.org";
const MIB = 1 << 20;
const EXT_A = "https://example.com/ext/a";
const EXT_B = "https://example.com/ext/b";

let agent: RunningAgent;
let extAgent: RunningAgent;
let protoKeysBefore: string[];
let protoNamesBefore: string[];

beforeAll(async () => {
  protoKeysBefore = Object.keys(Object.prototype);
  protoNamesBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  // 1.0 only: the version cases expect calls without A2A-Version to be refused (the default agent also speaks 0.3).
  [agent, extAgent] = await Promise.all([
    startEchoAgent({ only10: true }),
    startEchoAgent({ only10: true, requiredExtensions: [EXT_A] }),
  ]);
});
afterAll(async () => {
  await Promise.all([agent?.close(), extAgent?.close()]);
});

// ---------------------------------------------------------------- helpers

/** What these tests read of a v1.0 ProtoJSON Task. */
interface WireTask {
  status?: { state?: string };
  artifacts?: { parts?: { text?: string }[] }[];
  history?: { metadata?: Record<string, unknown>; parts?: { metadata?: Record<string, unknown> }[] }[];
}

/** What these tests read of a SendMessage or ListTasks response. */
interface WireResult {
  task?: WireTask;
  pageSize?: number;
}

/**
 * What these tests read of a response body: a JSON-RPC envelope (`result` or `error`)
 * or an HTTP+JSON body (a response message, or `error`). Tests check the shape first.
 */
interface WireBody extends WireResult {
  result?: WireResult;
  error?: { code?: number; status?: string; message?: string; data?: unknown; details?: { reason?: string }[] };
}

interface Wire {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: WireBody | undefined;
}

const parse = (text: string): WireBody | undefined => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

async function wire(res: Response): Promise<Wire> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: parse(text) };
}

const rest = (a: RunningAgent, path: string) => a.urls.rest + path;
const origin = (a: RunningAgent) => new URL(a.urls.jsonrpc).origin;

/** POST to the JSON-RPC endpoint. `headers` replaces the default A2A-Version: 1.0. */
async function rpc(
  body: string | Uint8Array,
  headers: Record<string, string> = V10,
  a: RunningAgent = agent,
): Promise<Wire> {
  return wire(await fetch(a.urls.jsonrpc, { method: "POST", headers: { "content-type": RPC_CT, ...headers }, body }));
}

async function call(
  method: string,
  params: unknown,
  headers: Record<string, string> = V10,
  a: RunningAgent = agent,
): Promise<Wire> {
  return rpc(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), headers, a);
}

/** An HTTP+JSON request; JSON bodies get Content-Type application/a2a+json unless `headers` says otherwise. */
async function http(
  method: string,
  url: string,
  opts: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<Wire> {
  const headers: Record<string, string> = { ...(opts.headers ?? V10) };
  if (opts.body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === "content-type"))
    headers["content-type"] = REST_CT;
  return wire(await fetch(url, { method, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) }));
}

/** A request with node:http: the path goes on the wire verbatim, headers keep their case and may repeat. */
function raw(
  a: RunningAgent,
  method: string,
  path: string,
  opts: { headers?: OutgoingHttpHeaders; body?: string | Uint8Array; chunks?: readonly Uint8Array[] } = {},
): Promise<Wire> {
  const { hostname, port } = new URL(a.urls.jsonrpc);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port: Number(port), method, path, headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) for (const item of Array.isArray(v) ? v : [v]) headers.append(k, item);
          }
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers, text, json: parse(text) });
        });
        res.on("error", reject);
      },
    );
    // The server may answer (413) before it has read everything we send.
    req.on("error", (e: NodeJS.ErrnoException) =>
      e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e),
    );
    if (opts.chunks) for (const c of opts.chunks) req.write(c);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

function expectRpcError(w: Wire, code: number, id: string | number | null, reason?: string): void {
  expect(w.status, w.text).toBe(200);
  expect(w.headers.get("content-type")).toBe(RPC_CT);
  expect(w.json, w.text).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
  expect(typeof w.json?.error?.message).toBe("string");
  expect(w.json).not.toHaveProperty("result");
  if (reason) expect(w.json?.error?.data).toEqual([{ "@type": ERROR_INFO, reason, domain: DOMAIN }]);
  else expect(w.json?.error?.data).toBeUndefined();
}

function expectRpcResult(w: Wire, id: string | number | null = 1): WireResult | undefined {
  expect(w.status, w.text).toBe(200);
  expect(w.headers.get("content-type")).toBe(RPC_CT);
  expect(w.json, w.text).toMatchObject({ jsonrpc: "2.0", id });
  expect(w.json, w.text).not.toHaveProperty("error");
  return w.json?.result;
}

/** `{"error":{code,status,message,details}}`; `code` is the HTTP status; details carry an ErrorInfo for A2A errors only. */
function expectRestError(w: Wire, status: number, grpcStatus: string, reason?: string): void {
  expect(w.status, w.text).toBe(status);
  expect(w.headers.get("content-type")).toBe(REST_CT);
  expect(w.json, w.text).toEqual({
    error: {
      code: status,
      status: grpcStatus,
      message: expect.any(String),
      details: reason ? [{ "@type": ERROR_INFO, reason, domain: DOMAIN }] : [],
    },
  });
}

/** A bare HTTP answer: no body, no content type, so no ErrorInfo a client could mistake for an A2A error. */
function expectBare(w: Wire, status: number, allow?: string): void {
  expect(w.status, w.text).toBe(status);
  expect(w.text).toBe("");
  expect(w.headers.get("content-type")).toBeNull();
  if (allow !== undefined) expect(w.headers.get("allow")).toBe(allow);
}

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });

/** A completed echo task whose one artifact repeats `text`. */
function expectEchoed(task: WireTask | undefined, text: string): void {
  expect(task?.status?.state, JSON.stringify(task)).toBe("TASK_STATE_COMPLETED");
  expect(task?.artifacts?.[0]?.parts?.[0]?.text).toBe(text);
}

/** A SendMessage JSON-RPC envelope of exactly `size` bytes (the text is padded). */
function sendEnvelopeOfSize(size: number): string {
  const base = (pad: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: "m-size", role: "ROLE_USER", parts: [{ text: pad }] } },
    });
  const overhead = Buffer.byteLength(base(""));
  return base("x".repeat(size - overhead));
}

// ---------------------------------------------------------------- JSON-RPC

describe("JSON-RPC: envelope", () => {
  it.each<[string, number, string | number | null, string]>([
    ["malformed JSON", -32700, null, '{"jsonrpc":"2.0","id":1,'],
    ["trailing garbage", -32700, null, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}} x'],
    ["empty body", -32700, null, ""],
    ["an array (batch)", -32600, null, '[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]'],
    ["an empty array", -32600, null, "[]"],
    ["a number", -32600, null, "5"],
    ["a string", -32600, null, '"GetTask"'],
    ["null", -32600, null, "null"],
    ["true", -32600, null, "true"],
    ["missing jsonrpc", -32600, 1, '{"id":1,"method":"GetTask","params":{"id":"x"}}'],
    ['"jsonrpc":"1.0"', -32600, 1, '{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}'],
    ['"jsonrpc":2', -32600, "s", '{"jsonrpc":2,"id":"s","method":"GetTask","params":{"id":"x"}}'],
    ["missing method", -32600, 1, '{"jsonrpc":"2.0","id":1,"params":{"id":"x"}}'],
    ["method a number", -32600, 1, '{"jsonrpc":"2.0","id":1,"method":5,"params":{}}'],
    ["method null", -32600, 1, '{"jsonrpc":"2.0","id":1,"method":null,"params":{}}'],
    ["id an object", -32600, null, '{"jsonrpc":"2.0","id":{"a":1},"method":"GetTask","params":{"id":"x"}}'],
    ["id an array", -32600, null, '{"jsonrpc":"2.0","id":[1],"method":"GetTask","params":{"id":"x"}}'],
    ["id a boolean", -32600, null, '{"jsonrpc":"2.0","id":true,"method":"GetTask","params":{"id":"x"}}'],
    ["unknown method", -32601, 7, '{"jsonrpc":"2.0","id":7,"method":"NoSuchMethod","params":{}}'],
    ["v0.3 method name", -32601, "a", '{"jsonrpc":"2.0","id":"a","method":"message/send","params":{}}'],
    ["method __proto__", -32601, 1, '{"jsonrpc":"2.0","id":1,"method":"__proto__","params":{}}'],
    ["method constructor", -32601, 1, '{"jsonrpc":"2.0","id":1,"method":"constructor","params":{}}'],
    ["method toString", -32601, 1, '{"jsonrpc":"2.0","id":1,"method":"toString","params":{}}'],
    ["method in the wrong case", -32601, 1, '{"jsonrpc":"2.0","id":1,"method":"gettask","params":{"id":"x"}}'],
    ["params an array", -32602, 1, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":["x"]}'],
    ["params a string", -32602, 1, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":"x"}'],
    ["params a number", -32602, 1, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":5}'],
    ["params null", -32602, 1, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":null}'],
  ])("%s → %i", async (_name, code, id, body) => {
    expectRpcError(await rpc(body), code, id);
  });

  it("a body that is not UTF-8 → -32700, id null", async () => {
    const bytes = new Uint8Array([
      ...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"'),
      0xff,
      0xfe,
      0xc3,
      ...Buffer.from('"}}'),
    ]);
    expectRpcError(await rpc(bytes), -32700, null);
  });

  it.each(["GET", "PUT", "DELETE"])("%s on the endpoint → 405, Allow: POST, no body", async (method) => {
    expectBare(await wire(await fetch(agent.urls.jsonrpc, { method, headers: V10 })), 405, "POST");
  });

  it("the id comes back as sent: string, number, null", async () => {
    for (const id of ["abc", 42, null]) {
      const w = await rpc(JSON.stringify({ jsonrpc: "2.0", id, method: "ListTasks", params: {} }));
      expect(expectRpcResult(w, id)).toMatchObject({ pageSize: 50 });
    }
  });
});

describe("JSON-RPC: params that do not decode → -32602", () => {
  it.each<[string, string, unknown]>([
    ["SendMessage message a number", "SendMessage", { message: 5 }],
    ["SendMessage message a string", "SendMessage", { message: "hi" }],
    [
      "SendMessage parts an object",
      "SendMessage",
      { message: { messageId: "m", role: "ROLE_USER", parts: { text: "x" } } },
    ],
    [
      "SendMessage part text a number",
      "SendMessage",
      { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: 5 }] } },
    ],
    ["SendMessage metadata an array", "SendMessage", { message: message("x"), metadata: [1] }],
    [
      "SendMessage historyLength a word",
      "SendMessage",
      { message: message("x"), configuration: { historyLength: "abc" } },
    ],
    ["SendStreamingMessage message a number", "SendStreamingMessage", { message: 5 }],
    ["GetTask id an object", "GetTask", { id: {} }],
    ["GetTask id an array", "GetTask", { id: ["x"] }],
    ["GetTask historyLength a word", "GetTask", { id: "x", historyLength: "abc" }],
    ["GetTask historyLength a fraction", "GetTask", { id: "x", historyLength: 1.5 }],
    ["ListTasks pageSize an object", "ListTasks", { pageSize: {} }],
    ["ListTasks includeArtifacts a word", "ListTasks", { includeArtifacts: "maybe" }],
    ["ListTasks statusTimestampAfter not a time", "ListTasks", { statusTimestampAfter: "yesterday" }],
    ["CancelTask id a boolean", "CancelTask", { id: true }],
  ])("%s", async (_name, method, params) => {
    const w = await call(method, params);
    expectRpcError(w, -32602, 1);
  });
});

describe("JSON-RPC: body size (limit 1 MiB)", () => {
  it("a body of exactly 1 MiB is served", async () => {
    const body = sendEnvelopeOfSize(MIB);
    expect(Buffer.byteLength(body)).toBe(MIB);
    const w = await rpc(body);
    expect(expectRpcResult(w)?.task?.status?.state).toBe("TASK_STATE_COMPLETED");
  });

  it("a body over 1 MiB with Content-Length → 413 and a JSON-RPC -32600 error, id null", async () => {
    const w = await rpc(sendEnvelopeOfSize(MIB + 1));
    expect(w.status, w.text).toBe(413);
    expect(w.headers.get("content-type")).toBe(RPC_CT);
    expect(w.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });

  it("a chunked body over 1 MiB (no Content-Length) → 413 and a JSON-RPC -32600 error", async () => {
    const body = Buffer.from(sendEnvelopeOfSize(2 * MIB));
    const chunks = Array.from({ length: 8 }, (_, k) =>
      body.subarray((k * body.length) / 8, ((k + 1) * body.length) / 8),
    );
    const w = await raw(agent, "POST", "/a2a/jsonrpc", { headers: { "content-type": RPC_CT, ...V10 }, chunks });
    expect(w.status, w.text).toBe(413);
    expect(w.headers.get("content-type")).toBe(RPC_CT);
    expect(w.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });
});

describe("JSON-RPC: unknown fields are ignored at every level (I13)", () => {
  it("SendMessage with extra members in the envelope, params, message, part, configuration succeeds", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: "i13",
      method: "SendMessage",
      extra: { nested: [1, 2] },
      params: {
        extra: true,
        message: {
          messageId: "m-i13",
          role: "ROLE_USER",
          parts: [{ text: "unknown fields", extra: "p", futureField: { a: 1 } }],
          extra: 1,
          futureField: null,
        },
        configuration: { extra: "c", returnImmediately: false, futureOption: [true] },
      },
    });
    expectEchoed(expectRpcResult(await rpc(body), "i13")?.task, "unknown fields");
  });
});

// ---------------------------------------------------------------- prototype pollution

describe("__proto__ and constructor keys", () => {
  const evil = '{"polluted":"yes","toString":"x"}';
  const ctorEvil = '{"prototype":{"polluted":"yes"}}';
  /** A SendMessage params object as raw JSON text, so that "__proto__" is a real member. */
  const params = (text: string) =>
    `{"__proto__":${evil},"constructor":${ctorEvil},` +
    `"message":{"__proto__":${evil},"constructor":${ctorEvil},"messageId":"m-proto","role":"ROLE_USER",` +
    `"parts":[{"text":"${text}","metadata":{"__proto__":${evil},"constructor":${ctorEvil}}}],` +
    `"metadata":{"__proto__":${evil},"constructor":${ctorEvil},"prototype":${evil},"ok":1}},` +
    `"metadata":{"__proto__":${evil},"constructor":${ctorEvil}}}`;

  const clean = () => {
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual(protoKeysBefore);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoNamesBefore);
    expect(typeof ({} as object).toString).toBe("function");
  };

  it("in JSON-RPC params and message metadata: the call is served, nothing is polluted", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","__proto__":${evil},"params":${params("proto-rpc")}}`;
    const result = expectRpcResult(await rpc(body));
    expectEchoed(result?.task, "proto-rpc");
    // Inside a Struct, "__proto__" and "constructor" are plain data: stored and echoed back as own members.
    const history = result?.task?.history?.[0];
    const meta = history?.metadata;
    expect(meta?.ok).toBe(1);
    expect(Object.getOwnPropertyDescriptor(meta, "constructor")?.value).toEqual({ prototype: { polluted: "yes" } });
    expect(Object.getOwnPropertyDescriptor(meta, "__proto__")?.value).toEqual({ polluted: "yes", toString: "x" });
    expect(Object.getOwnPropertyDescriptor(history?.parts?.[0]?.metadata, "__proto__")?.value).toEqual({
      polluted: "yes",
      toString: "x",
    });
    clean();
  });

  it("in an HTTP+JSON body and query: the call is served, nothing is polluted", async () => {
    const w = await http(
      "POST",
      rest(agent, "/message:send?__proto__[polluted]=yes&constructor[prototype][polluted]=yes"),
      { body: params("proto-rest") },
    );
    expect(w.status, w.text).toBe(200);
    expect(w.headers.get("content-type")).toBe(REST_CT);
    expectEchoed(w.json?.task, "proto-rest");
    clean();
  });

  it("GetTask with __proto__ as params and as the id's key path", async () => {
    // "__proto__" is no field of GetTaskRequest: the params carry no id.
    const noId = await rpc(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"__proto__":{"id":"x"}}}`);
    expectRpcError(noId, -32602, 1);
    expect(noId.json?.error?.message).toBe("Invalid params for GetTask: id is required");
    expectRpcError(
      await rpc(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"__proto__"}}`),
      -32001,
      1,
      "TASK_NOT_FOUND",
    );
    expectRestError(await http("GET", rest(agent, "/tasks/__proto__")), 404, "NOT_FOUND", "TASK_NOT_FOUND");
    expectRestError(await http("GET", rest(agent, "/tasks/constructor")), 404, "NOT_FOUND", "TASK_NOT_FOUND");
    clean();
  });
});

// ---------------------------------------------------------------- version negotiation

describe("A2A-Version (I5)", () => {
  const rejected: [string, Record<string, string>][] = [
    ["absent", {}],
    ["empty", { "A2A-Version": "" }],
    ["0.3", { "A2A-Version": "0.3" }],
    ["9.9", { "A2A-Version": "9.9" }],
    ["1.1", { "A2A-Version": "1.1" }],
    ["2.0", { "A2A-Version": "2.0" }],
    ["abc", { "A2A-Version": "abc" }],
    ["1", { "A2A-Version": "1" }],
    ["1.0.x", { "A2A-Version": "1.0.x" }],
    ["v1.0", { "A2A-Version": "v1.0" }],
  ];
  const accepted: [string, Record<string, string>][] = [
    ["1.0", { "A2A-Version": "1.0" }],
    ["1.0.1 (patch ignored)", { "A2A-Version": "1.0.1" }],
    ["1.0.0", { "A2A-Version": "1.0.0" }],
    ["lowercase name a2a-version", { "a2a-version": "1.0" }],
  ];

  it.each(rejected)("JSON-RPC, %s → -32009 VERSION_NOT_SUPPORTED", async (_name, headers) => {
    expectRpcError(await call("ListTasks", {}, headers), -32009, 1, "VERSION_NOT_SUPPORTED");
  });
  it.each(rejected)("HTTP+JSON, %s → 400 VERSION_NOT_SUPPORTED", async (_name, headers) => {
    expectRestError(
      await http("GET", rest(agent, "/tasks"), { headers }),
      400,
      "FAILED_PRECONDITION",
      "VERSION_NOT_SUPPORTED",
    );
  });
  it.each(accepted)("JSON-RPC, %s → served", async (_name, headers) => {
    expect(expectRpcResult(await call("ListTasks", {}, headers))).toMatchObject({ pageSize: 50 });
  });
  it.each(accepted)("HTTP+JSON, %s → served", async (_name, headers) => {
    const w = await http("GET", rest(agent, "/tasks"), { headers });
    expect(w.status, w.text).toBe(200);
    expect(w.headers.get("content-type")).toBe(REST_CT);
  });

  it("an upper-case header name on the wire (A2A-VERSION) is accepted", async () => {
    const w = await raw(agent, "GET", "/a2a/rest/tasks", { headers: { "A2A-VERSION": "1.0" } });
    expect(w.status, w.text).toBe(200);
  });

  it("HTTP+JSON: the query parameter ?A2A-Version=1.0 stands in for the header", async () => {
    const w = await http("GET", rest(agent, "/tasks?A2A-Version=1.0"), { headers: {} });
    expect(w.status, w.text).toBe(200);
    expect(w.headers.get("content-type")).toBe(REST_CT);
    const bad = await http("GET", rest(agent, "/tasks?A2A-Version=0.3"), { headers: {} });
    expectRestError(bad, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
    // Repeated, it is read as a repeated header is: one version twice is that version, two are refused.
    const twice = await http("GET", rest(agent, "/tasks?A2A-Version=1.0&A2A-Version=1.0"), { headers: {} });
    expect(twice.status, twice.text).toBe(200);
    const both = await http("GET", rest(agent, "/tasks?A2A-Version=1.0&A2A-Version=0.3"), { headers: {} });
    expectRestError(both, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
    expect(both.json?.error?.message).toContain("(1.0, 0.3)");
  });

  it.each<[string, Record<string, string>, string]>([
    ["0.5", { "A2A-Version": "0.5" }, "message/send"],
    ["0.5", { "A2A-Version": "0.5" }, "tasks/resubscribe"],
    ["0.3", { "A2A-Version": "0.3" }, "message/send"],
    ["absent", {}, "message/stream"],
    ["2.0", { "A2A-Version": "2.0" }, "NoSuchMethod"],
  ])("JSON-RPC, %s with method %s → -32009, checked before the method is looked up", async (_n, headers, method) => {
    expectRpcError(await call(method, {}, headers), -32009, 1, "VERSION_NOT_SUPPORTED");
  });

  // node:http joins a header sent twice with ", "; fetch and gRPC metadata do the same.
  const repeated: [string, string[]][] = [
    ["1.0 twice", ["1.0", "1.0"]],
    ["1.0 and 1.0.1 (one Major.Minor)", ["1.0", "1.0.1"]],
    ["1.0 three times", ["1.0", "1.0", "1.0"]],
  ];
  it.each(repeated)("a repeated A2A-Version naming one version (%s) is accepted on both bindings", async (_n, v) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} });
    const headers = { "content-type": RPC_CT, "A2A-Version": v };
    expect(expectRpcResult(await raw(agent, "POST", "/a2a/jsonrpc", { headers, body }))).toMatchObject({
      pageSize: 50,
    });
    const w = await raw(agent, "GET", "/a2a/rest/tasks", { headers: { "A2A-Version": v } });
    expect(w.status, w.text).toBe(200);
  });
  it.each<[string, string[], string]>([
    ["1.0 and 0.3", ["1.0", "0.3"], "1.0, 0.3"],
    ["0.3 and 1.0", ["0.3", "1.0"], "0.3, 1.0"],
    ["1.0, 2.0 and 1.0", ["1.0", "2.0", "1.0"], "1.0, 2.0"],
  ])("a repeated A2A-Version naming different versions (%s) is refused naming them", async (_n, v, named) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} });
    const headers = { "content-type": RPC_CT, "A2A-Version": v };
    const r = await raw(agent, "POST", "/a2a/jsonrpc", { headers, body });
    expectRpcError(r, -32009, 1, "VERSION_NOT_SUPPORTED");
    expect(r.json?.error?.message).toBe(
      `A2A-Version names more than one version (${named}); send one: A2A-Version: 1.0`,
    );
    const w = await raw(agent, "GET", "/a2a/rest/tasks", { headers: { "A2A-Version": v } });
    expectRestError(w, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
    expect(w.json?.error?.message).toContain(`(${named})`);
  });

  it("the version is checked before the body is decoded", async () => {
    expectRpcError(await call("SendMessage", { message: 5 }, {}), -32009, 1, "VERSION_NOT_SUPPORTED");
    expectRestError(
      await http("POST", rest(agent, "/message:send"), { headers: {}, body: "{not json" }),
      400,
      "FAILED_PRECONDITION",
      "VERSION_NOT_SUPPORTED",
    );
  });
});

// ---------------------------------------------------------------- HTTP+JSON

describe("HTTP+JSON: routing", () => {
  it.each<[string, string, Record<string, string>]>([
    ["GET", "/a2a/rest/nope", V10],
    ["GET", "/a2a/rest/no/such/route/here", V10],
    ["POST", "/a2a/rest/message:nope", V10],
    ["GET", "/a2a/rest/tasks/x:nope", V10],
    ["GET", "/a2a/rest/tasks/x/y/z/w", V10],
    ["GET", "/a2a/rest/", V10],
    ["GET", "/a2a/rest", V10],
    ["GET", "/nope", V10],
    ["GET", "/nope", {}],
  ])("%s %s → bare 404 (not TaskNotFound)", async (method, path, headers) => {
    expectBare(await wire(await fetch(origin(agent) + path, { method, headers })), 404);
  });

  it.each<[string, string, Record<string, string>]>([
    ["GET", "/a2a/rest/nope", {}],
    ["GET", "/a2a/rest/nope", { "A2A-Version": "0.5" }],
    ["POST", "/a2a/rest/v1/message:send", { "A2A-Version": "0.5" }],
    ["POST", "/a2a/rest/v1/message:send", {}],
    ["GET", "/a2a/rest/v1/tasks/x", { "A2A-Version": "0.3" }],
  ])("%s %s with %j → 400 VERSION_NOT_SUPPORTED: the version is checked before the route", async (m, path, h) => {
    const w = await wire(await fetch(origin(agent) + path, { method: m, headers: h }));
    expectRestError(w, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
  });

  it.each<[string, string, string]>([
    ["DELETE", "/tasks/x:cancel", "POST"],
    ["GET", "/tasks/x:cancel", "POST"],
    ["PUT", "/tasks/x", "GET"],
    ["DELETE", "/tasks/x", "GET"],
    ["GET", "/message:send", "POST"],
    ["PATCH", "/tasks", "GET"],
    ["PUT", "/tasks/x:subscribe", "GET, POST"],
    ["PUT", "/tasks/x/pushNotificationConfigs", "GET, POST"],
    ["POST", "/tasks/x/pushNotificationConfigs/c", "DELETE, GET"],
  ])("%s %s → 405, Allow: %s", async (method, path, allow) => {
    expectBare(await wire(await fetch(rest(agent, path), { method, headers: V10 })), 405, allow);
    // The version comes before the route: without it (read as 0.3) the answer is the version's refusal.
    const w = await wire(await fetch(rest(agent, path), { method }));
    expectRestError(w, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED");
  });

  it("fetch keeps %2F: /tasks/a%2Fb reaches GetTask with the id a/b → 404 TASK_NOT_FOUND", async () => {
    const w = await http("GET", rest(agent, "/tasks/a%2Fb"));
    expectRestError(w, 404, "NOT_FOUND", "TASK_NOT_FOUND");
    expect(w.json?.error?.message).toContain("a/b");
  });

  it.each<[string, string]>([
    ["/tasks/a%3Ab", "a:b"],
    ["/tasks/a%20b", "a b"],
    ["/tasks/%2E%2E%2Fx", "../x"],
    ["/tasks/..%2F..%2Fetc", "../../etc"],
  ])("GET %s reaches GetTask with the id %j", async (path, id) => {
    const w = await http("GET", rest(agent, path));
    expectRestError(w, 404, "NOT_FOUND", "TASK_NOT_FOUND");
    expect(w.json?.error?.message).toContain(id);
  });

  it("POST /tasks/a%2Fb:cancel reaches CancelTask with the id a/b", async () => {
    const w = await http("POST", rest(agent, "/tasks/a%2Fb:cancel"), { body: "{}" });
    expectRestError(w, 404, "NOT_FOUND", "TASK_NOT_FOUND");
    expect(w.json?.error?.message).toContain("a/b");
  });

  it("a malformed escape in the task id → 400, never TaskNotFound", async () => {
    const w = await raw(agent, "GET", "/a2a/rest/tasks/%zz", { headers: V10 });
    expect(w.status, w.text).toBe(400);
    expect(w.text).not.toContain("TASK_NOT_FOUND");
  });

  it("raw `.` and `..` segments are refused with 400, never resolved and never a task id", async () => {
    // What fetch would send: `..` and `%2e%2e` resolved, %2F kept. node:http sends the raw path instead.
    expect(new URL(rest(agent, "/tasks/../message:send")).pathname).toBe("/a2a/rest/message:send");
    expect(new URL(rest(agent, "/tasks/a%2Fb")).pathname).toBe("/a2a/rest/tasks/a%2Fb");
    const body = JSON.stringify({ message: message("dot-dot") });
    const send = await raw(agent, "POST", "/a2a/rest/tasks/../message:send", {
      headers: { "content-type": REST_CT, ...V10 },
      body,
    });
    expect(send.status, send.text).toBe(400);
    expect(send.json?.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    for (const path of [
      "/a2a/rest/tasks/..",
      "/a2a/rest/tasks/.",
      "/a2a/rest/../../../../etc/passwd",
      "/a2a/rest/tasks/..:cancel",
    ]) {
      const w = await raw(agent, path.endsWith(":cancel") ? "POST" : "GET", path, { headers: V10 });
      expect(w.status, path).toBe(400);
      expect(w.json?.error?.message).toContain("dot segments");
    }
    // An encoded dot segment is a value, not a path step: GetTask with id "..".
    const enc = await raw(agent, "GET", "/a2a/rest/tasks/%2e%2e", { headers: V10 });
    expect(enc.status).toBe(404);
    expect(enc.json?.error?.details?.[0]?.reason).toBe("TASK_NOT_FOUND");
  });

  it("an absolute-form request target is routed by its path (RFC 9112 §3.2.2), dots refused as in origin-form", async () => {
    const { origin } = new URL(agent.urls.jsonrpc);
    const w = await raw(agent, "GET", `${origin}/a2a/rest/tasks/abs-1?historyLength=1`, { headers: V10 });
    expectRestError(w, 404, "NOT_FOUND", "TASK_NOT_FOUND");
    expect(w.json?.error?.message).toContain("abs-1");
    const dots = await raw(agent, "GET", `${origin}/a2a/rest/x/../tasks/abs-1`, { headers: V10 });
    expect(dots.status, dots.text).toBe(400);
    expect(dots.json?.error?.message).toContain("dot segments");
  });
});

describe("HTTP+JSON: bodies", () => {
  it.each<[string, string, string | Uint8Array]>([
    ["malformed JSON", REST_CT, '{"message":'],
    ["malformed JSON as application/json", "application/json; charset=utf-8", "{not json}"],
    ["a body that is not UTF-8", REST_CT, new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ["a JSON array", REST_CT, "[]"],
    ["a JSON string", REST_CT, '"hi"'],
    ["JSON null", REST_CT, "null"],
    ["message a number", REST_CT, '{"message":5}'],
    ["parts an object", REST_CT, '{"message":{"messageId":"m","role":"ROLE_USER","parts":{"text":"x"}}}'],
    ["part text a number", REST_CT, '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":5}]}}'],
    [
      "configuration.historyLength a word",
      REST_CT,
      JSON.stringify({ message: message("x"), configuration: { historyLength: "abc" } }),
    ],
  ])("POST /message:send, %s → 400 INVALID_ARGUMENT", async (_name, contentType, body) => {
    expectRestError(
      await http("POST", rest(agent, "/message:send"), { headers: { ...V10, "content-type": contentType }, body }),
      400,
      "INVALID_ARGUMENT",
    );
  });

  it("a CancelTask body with the wrong type for id → 400 INVALID_ARGUMENT", async () => {
    // The path variable wins over the body, so a bad body field that is not the id.
    expectRestError(
      await http("POST", rest(agent, "/tasks/x:cancel"), { body: '{"metadata":"not a struct"}' }),
      400,
      "INVALID_ARGUMENT",
    );
  });

  it("a body over 1 MiB → 413 with a JSON error body", async () => {
    const w = await http("POST", rest(agent, "/message:send"), {
      body: JSON.stringify({ message: message("x".repeat(MIB)) }),
    });
    expectRestError(w, 413, "INVALID_ARGUMENT");
  });

  it("a chunked body over 1 MiB → 413 with a JSON error body", async () => {
    const body = Buffer.from(JSON.stringify({ message: message("y".repeat(2 * MIB)) }));
    const chunks = [body.subarray(0, MIB), body.subarray(MIB)];
    expectRestError(
      await raw(agent, "POST", "/a2a/rest/message:send", { headers: { "content-type": REST_CT, ...V10 }, chunks }),
      413,
      "INVALID_ARGUMENT",
    );
  });

  it("unknown fields in the body are ignored (I13)", async () => {
    const body = JSON.stringify({
      extra: 1,
      message: {
        messageId: "m-rest-i13",
        role: "ROLE_USER",
        parts: [{ text: "rest unknown", extra: [1] }],
        futureField: {},
      },
      configuration: { futureOption: "z" },
    });
    const w = await http("POST", rest(agent, "/message:send"), { body });
    expect(w.status, w.text).toBe(200);
    expect(w.headers.get("content-type")).toBe(REST_CT);
    expectEchoed(w.json?.task, "rest unknown");
  });
});

describe("HTTP+JSON: query values", () => {
  it.each<[string]>([
    ["/tasks?pageSize=abc"],
    ["/tasks?pageSize=1.5"],
    ["/tasks?pageSize=99999999999"],
    ["/tasks?includeArtifacts=maybe"],
    ["/tasks?includeArtifacts=1"],
    ["/tasks?historyLength=-x"],
    ["/tasks?statusTimestampAfter=yesterday"],
    ["/tasks/x?historyLength=abc"],
  ])("GET %s → 400 INVALID_ARGUMENT", async (path) => {
    expectRestError(await http("GET", rest(agent, path)), 400, "INVALID_ARGUMENT");
  });

  it.each<[string, string]>([
    ["/tasks?historyLength=1&historyLength=2", "historyLength is given 2 times"],
    ["/tasks?includeArtifacts=true&includeArtifacts=false", "includeArtifacts is given 2 times"],
    ["/tasks?pageSize=2&page_size=3", "pageSize is given 2 times"],
    ["/tasks/x?historyLength=1&historyLength=1", "historyLength is given 2 times"],
  ])("GET %s, one value given twice → 400 naming it", async (path, said) => {
    const w = await http("GET", rest(agent, path));
    expectRestError(w, 400, "INVALID_ARGUMENT");
    expect(w.json?.error?.message).toContain(`Query parameter ${said}`);
  });

  it("unknown query parameters are ignored", async () => {
    const w = await http(
      "GET",
      rest(agent, "/tasks?foo=bar&pageSize=2&page_size_typo=x&__proto__=1&constructor=2&includeArtifacts=true"),
    );
    expect(w.status, w.text).toBe(200);
    expect(w.headers.get("content-type")).toBe(REST_CT);
    expect(w.json?.pageSize).toBe(2);
  });
});

// ---------------------------------------------------------------- extensions

describe("A2A-Extensions (I7): an agent that requires " + EXT_A, () => {
  const missing: [string, Record<string, string>][] = [
    ["no header", V10],
    ["another extension only", { ...V10, "A2A-Extensions": EXT_B }],
    ["a longer URI", { ...V10, "A2A-Extensions": EXT_A + "a" }],
    ["an empty header", { ...V10, "A2A-Extensions": "" }],
  ];
  const declared: [string, Record<string, string>][] = [
    ["b, a", { ...V10, "A2A-Extensions": `${EXT_B}, ${EXT_A}` }],
    ["a alone", { ...V10, "A2A-Extensions": EXT_A }],
    ["a, no spaces, with b", { ...V10, "A2A-Extensions": `${EXT_A},${EXT_B}` }],
    ["lowercase header name", { "a2a-version": "1.0", "a2a-extensions": `${EXT_B}, ${EXT_A}` }],
  ];

  it.each(missing)("JSON-RPC, %s → -32008 EXTENSION_SUPPORT_REQUIRED", async (_name, headers) => {
    expectRpcError(
      await call("SendMessage", { message: message("ext") }, headers, extAgent),
      -32008,
      1,
      "EXTENSION_SUPPORT_REQUIRED",
    );
  });
  it.each(missing)("HTTP+JSON, %s → 400 EXTENSION_SUPPORT_REQUIRED", async (_name, headers) => {
    const w = await http("POST", rest(extAgent, "/message:send"), {
      headers,
      body: JSON.stringify({ message: message("ext") }),
    });
    expectRestError(w, 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED");
  });
  it.each(declared)("JSON-RPC, %s → served", async (_name, headers) => {
    expectEchoed(
      expectRpcResult(await call("SendMessage", { message: message("ext ok") }, headers, extAgent))?.task,
      "ext ok",
    );
  });
  it.each(declared)("HTTP+JSON, %s → served", async (_name, headers) => {
    const w = await http("POST", rest(extAgent, "/message:send"), {
      headers,
      body: JSON.stringify({ message: message("ext ok") }),
    });
    expect(w.status, w.text).toBe(200);
    expectEchoed(w.json?.task, "ext ok");
  });

  it("the header sent twice (b, then a) counts as one list", async () => {
    const body = JSON.stringify({ message: message("two headers") });
    const w = await raw(extAgent, "POST", "/a2a/rest/message:send", {
      headers: { "content-type": REST_CT, ...V10, "A2A-Extensions": [EXT_B, EXT_A] },
      body,
    });
    expect(w.status, w.text).toBe(200);
    expectEchoed(w.json?.task, "two headers");
  });

  it("the same extension sent twice counts once, on both bindings", async () => {
    const body = JSON.stringify({ message: message("same twice") });
    const w = await raw(extAgent, "POST", "/a2a/rest/message:send", {
      headers: { "content-type": REST_CT, ...V10, "A2A-Extensions": [EXT_A, EXT_A] },
      body,
    });
    expect(w.status, w.text).toBe(200);
    expectEchoed(w.json?.task, "same twice");
    expect(w.headers.get("a2a-extensions")).toBe(EXT_A);
    const envelope = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: message("rpc") },
    });
    const r = await raw(extAgent, "POST", "/a2a/jsonrpc", {
      headers: { "content-type": RPC_CT, ...V10, "A2A-Extensions": [EXT_A, EXT_A] },
      body: envelope,
    });
    expectEchoed(expectRpcResult(r)?.task, "rpc");
    expect(r.headers.get("a2a-extensions")).toBe(EXT_A);
  });

  it("an agent without required extensions ignores declared ones it does not know", async () => {
    const w = await call("SendMessage", { message: message("ignored ext") }, { ...V10, "A2A-Extensions": EXT_B });
    expectEchoed(expectRpcResult(w)?.task, "ignored ext");
  });

  it("a missing version is reported before a missing extension", async () => {
    expectRpcError(
      await call("SendMessage", { message: message("x") }, {}, extAgent),
      -32009,
      1,
      "VERSION_NOT_SUPPORTED",
    );
  });
});

// ---------------------------------------------------------------- still serving

describe("after all of the above", () => {
  it("the agents still serve a normal SendMessage on both bindings, and nothing is polluted", async () => {
    expectEchoed(expectRpcResult(await call("SendMessage", { message: message("still here") }))?.task, "still here");
    const w = await http("POST", rest(agent, "/message:send"), {
      body: JSON.stringify({ message: message("still here (rest)") }),
    });
    expect(w.status, w.text).toBe(200);
    expectEchoed(w.json?.task, "still here (rest)");
    const e = await call(
      "SendMessage",
      { message: message("still here (ext)") },
      { ...V10, "A2A-Extensions": EXT_A },
      extAgent,
    );
    expectEchoed(expectRpcResult(e)?.task, "still here (ext)");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual(protoKeysBefore);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoNamesBefore);
  });
});
