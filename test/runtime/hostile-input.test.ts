/**
 * Hostile input (issue 9, items 10 and 15): the same request limits on every
 * path and binding (limits.ts), against the example agent (both versions, on
 * node:http and HTTP/2 on 127.0.0.1) and small servers of the runtime:
 *
 * - nesting deeper than MAX_JSON_DEPTH and lone surrogates, on JSON-RPC and
 *   HTTP+JSON at 1.0 and 0.3 and on gRPC at both versions: the exact code and
 *   message, and nothing stored (ListTasks counts the same after);
 * - oversized gRPC messages: RESOURCE_EXHAUSTED, configurable, memory bounded;
 * - bodies without a length and endless bodies after a 413: node:http closes
 *   the connection, fetchHandler cancels the stream;
 * - huge A2A-Extensions headers: refused, and a normal call alongside works;
 * - gRPC deadlines: DEADLINE_EXCEEDED for unary and streams, also when the
 *   handler ignores its signal; deadlines over 2^31 - 1 ms are clamped.
 *
 * Slow readers and disconnects during backpressure on the HTTP bindings are
 * covered by stream-disconnect.test.ts; the gRPC case is here. Every wait is
 * bounded (AbortSignal.timeout or a byte budget); nothing asserts timing.
 */
import { connect as connectHttp2, constants as h2, createServer as createHttp2Server } from "node:http2";
import type { Http2Server } from "node:http2";
import { connect as connectTcp } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { fetchHandler, type HandlerContext } from "@protoc-gen-a2a/runtime";
import { MAX_EXTENSIONS_HEADER } from "@protoc-gen-a2a/runtime/protocol";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { createA2AServiceHttpHandler, type A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import {
  A2AService,
  GetTaskRequestSchema,
  SendMessageRequestSchema,
  ListTasksRequestSchema,
  Role,
  SubscribeToTaskRequestSchema,
  TaskState,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { A2AService as A2AServiceV03 } from "../../generated-samples/v0.3.0/a2a_pb.js";

const V10 = { "A2A-Version": "1.0" } as const;
const MIB = 1 << 20;
/** Past MAX_JSON_DEPTH (48) by far: 5000 levels, written as text (JSON.stringify would recurse). */
const DEEP = 5000;

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startEchoAgent();
});
afterAll(async () => {
  await agent?.close();
});

// ---------------------------------------------------------------- helpers

/** `{"a":{"a":…1…}}`, `levels` objects deep. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

/** A JSON object `levels` deep, built without recursion, for the gRPC clients. */
function nestedObject(levels: number): JsonObject {
  let v: JsonObject = { a: 1 };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

interface Answer {
  readonly status: number;
  readonly json: {
    result?: { totalSize?: number };
    error?: { code?: number; status?: string; message?: string };
    /** A v0.3 HTTP+JSON error: {code, message}. */
    code?: number;
    message?: string;
  };
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const r = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(10_000) });
  return { status: r.status, json: (await r.json()) as Answer["json"] };
}

const rpc = (method: string, params: string) => `{"jsonrpc":"2.0","id":7,"method":"${method}","params":${params}}`;
const JSONRPC = { "content-type": "application/json" };
const REST = { "content-type": "application/a2a+json" };

/** Tasks the agent holds (v1.0 ListTasks totalSize), so a test can see that a refused call stored nothing. */
async function taskCount(): Promise<number> {
  const r = await post(agent.urls.jsonrpc, rpc("ListTasks", "{}"), { ...JSONRPC, ...V10 });
  expect(r.json.error).toBeUndefined();
  return r.json.result!.totalSize ?? 0;
}

/** The message of a call with `metadata` (text) at each version's JSON-RPC and HTTP+JSON shape. */
const withMetadata = (message: object, metadata: string) =>
  JSON.stringify({ message: { ...message, metadata: "@metadata" } }).replace('"@metadata"', metadata);
const v10Message = (messageId: string, metadata: string, text = "hi") =>
  withMetadata({ messageId, role: "ROLE_USER", parts: [{ text }] }, metadata);
const v03RpcMessage = (messageId: string, metadata: string, text = "hi") =>
  withMetadata({ kind: "message", messageId, role: "user", parts: [{ kind: "text", text }] }, metadata);
const v03RestMessage = (messageId: string, metadata: string, text = "hi") =>
  withMetadata({ messageId, role: "ROLE_USER", content: [{ text }] }, metadata);

/** The path the refusal names for metadata nested past the limit below `prefix` (first 8 and last 3 segments). */
const deepPath = (prefix: string) => `${prefix}.message.metadata.a.a.a.a.a.a….a.a.a`;
const TOO_DEEP = "nests deeper than 48 levels of objects and arrays";

// ---------------------------------------------------------------- nesting and strings

describe("deep nesting and lone surrogates, on every path", () => {
  it("JSON-RPC 1.0 and 0.3: -32602 naming the path; nothing stored", async () => {
    const before = await taskCount();
    const v10 = await post(agent.urls.jsonrpc, rpc("SendMessage", v10Message("deep-1", nested(DEEP))), {
      ...JSONRPC,
      ...V10,
    });
    expect([v10.status, v10.json.error]).toEqual([
      200,
      { code: -32602, message: `Invalid params for SendMessage: ${deepPath("params")} ${TOO_DEEP}` },
    ]);
    const v03 = await post(agent.urls.jsonrpc, rpc("message/send", v03RpcMessage("deep-2", nested(DEEP))), JSONRPC);
    expect([v03.status, v03.json.error]).toEqual([
      200,
      { code: -32602, message: `Invalid params for message/send: ${deepPath("params")} ${TOO_DEEP}` },
    ]);
    const lone = await post(agent.urls.jsonrpc, rpc("message/send", v03RpcMessage("sur", "{}", "hi\udc00")), JSONRPC);
    expect(lone.json.error).toEqual({
      code: -32602,
      message:
        "Invalid params for message/send: params.message.parts[0].text holds a lone surrogate, " +
        "which UTF-8 cannot carry",
    });
    const key = await post(agent.urls.jsonrpc, rpc("SendMessage", v10Message("sur", '{"k\\ud800":1}')), {
      ...JSONRPC,
      ...V10,
    });
    expect(key.json.error).toEqual({
      code: -32602,
      message: "Invalid params for SendMessage: a member name in params.message.metadata holds a lone surrogate",
    });
    expect(await taskCount()).toBe(before);
  });

  it("accepts nesting up to the limit on JSON-RPC 0.3, and ListTasks still answers after", async () => {
    // params(1) › message(2) › metadata (3, the first of 46 objects) › … › the 46th object (48).
    const ok = await post(agent.urls.jsonrpc, rpc("message/send", v03RpcMessage("deep-ok", nested(46))), JSONRPC);
    expect(ok.json.error).toBeUndefined();
    const past = await post(agent.urls.jsonrpc, rpc("message/send", v03RpcMessage("deep-no", nested(47))), JSONRPC);
    expect(past.json.error?.code).toBe(-32602);
    expect(await taskCount()).toBeGreaterThan(0);
  });

  it("HTTP+JSON 1.0 and 0.3: 400 InvalidParams naming the path; nothing stored", async () => {
    const before = await taskCount();
    const v10 = await post(`${agent.urls.rest}/message:send`, v10Message("deep-3", nested(DEEP)), { ...REST, ...V10 });
    expect([v10.status, v10.json.error?.status, v10.json.error?.message]).toEqual([
      400,
      "INVALID_ARGUMENT",
      `Invalid request for SendMessage: ${deepPath("SendMessageRequest")} ${TOO_DEEP}`,
    ]);
    const v03 = await post(`${agent.urls.rest}/v1/message:send`, v03RestMessage("deep-4", nested(DEEP)), REST);
    expect([v03.status, v03.json]).toEqual([
      400,
      { code: -32602, message: `Invalid request for SendMessage: ${deepPath("SendMessageRequest")} ${TOO_DEEP}` },
    ]);
    const lone = await post(`${agent.urls.rest}/v1/message:send`, v03RestMessage("sur", "{}", "\ud800x"), REST);
    expect([lone.status, lone.json]).toEqual([
      400,
      {
        code: -32602,
        message:
          "Invalid request for SendMessage: SendMessageRequest.message.content[0].text holds a lone surrogate, " +
          "which UTF-8 cannot carry",
      },
    ]);
    expect(await taskCount()).toBe(before);
  });

  it("gRPC 1.0 and 0.3: INVALID_ARGUMENT, from the limit or the binary reader; nothing stored", async () => {
    const before = await taskCount();
    const transport = createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` });
    const v10 = createClient(A2AService, transport);
    const v03 = createClient(A2AServiceV03, transport);
    const send10 = (levels: number) =>
      v10.sendMessage(
        {
          message: {
            messageId: `g${levels}`,
            role: Role.USER,
            parts: [{ content: { case: "text", value: "hi" } }],
            metadata: nestedObject(levels),
          },
        },
        { headers: { "a2a-version": "1.0" }, signal: AbortSignal.timeout(10_000) },
      );
    const send03 = (levels: number) =>
      v03.sendMessage(
        {
          request: {
            messageId: `h${levels}`,
            role: 1,
            content: [{ part: { case: "text", value: "hi" } }],
            metadata: nestedObject(levels),
          },
        },
        { signal: AbortSignal.timeout(10_000) },
      );
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => "accepted",
        (e: unknown) => [ConnectError.from(e).code, ConnectError.from(e).rawMessage],
      );
    // 47 objects under metadata: past the limit, still within the binary reader's 100 messages.
    expect(await failure(send10(47))).toEqual([
      Code.InvalidArgument,
      `Invalid request for SendMessage: ${deepPath("SendMessageRequest")} ${TOO_DEEP}`,
    ]);
    expect(await failure(send03(47))).toEqual([
      Code.InvalidArgument,
      `Invalid request for SendMessage: SendMessageRequest.request.metadata.a.a.a.a.a.a….a.a.a ${TOO_DEEP}`,
    ]);
    const reader = "parse binary: cannot decode message google.protobuf.Struct from binary: maximum recursion depth";
    expect(await failure(send10(200))).toEqual([Code.InvalidArgument, `${reader} of 100 reached`]);
    expect(await failure(send03(200))).toEqual([Code.InvalidArgument, `${reader} of 100 reached`]);
    expect(await taskCount()).toBe(before);
  });
});

// ---------------------------------------------------------------- gRPC message size

describe("oversized gRPC messages", () => {
  const bigText = (bytes: number) => ({
    message: {
      messageId: "big",
      role: Role.USER,
      parts: [{ content: { case: "text" as const, value: "x".repeat(bytes) } }],
    },
  });

  it("RESOURCE_EXHAUSTED past 1 MiB (the HTTP default), with memory bounded", async () => {
    const before = await taskCount();
    // Raw HTTP/2: a connect client may report its own failed upload instead of the server's status.
    const request = toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, bigText(8 * MIB)));
    const rss = process.memoryUsage().rss;
    for (const service of ["lf.a2a.v1", "a2a.v1"]) {
      for (let i = 0; i < 2; i++) {
        const r = await rawGrpc(`http://${agent.urls.grpc}`, `/${service}.A2AService/SendMessage`, request);
        expect(r.status).toBe(String(Code.ResourceExhausted));
        expect(r.message).toMatch(/^message size \d+ is larger than configured readMaxBytes 1048576$/);
      }
    }
    // Loose: the client's own 8 MiB request and its encoding are in this process too.
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * MIB);
    expect(await taskCount()).toBe(before);
  });

  it("follows maxBodyBytes, and turns on no protocol the adapter turned off", async () => {
    const server = await grpcServer({ handler: createEchoHandler(), maxBodyBytes: 4096 }, { connect: false });
    try {
      const client = createClient(A2AService, createGrpcTransport({ baseUrl: server.url }));
      const call = (bytes: number) =>
        client
          .sendMessage(bigText(bytes), { headers: { "a2a-version": "1.0" }, signal: AbortSignal.timeout(10_000) })
          .then(
            () => "accepted",
            (e: unknown) => ConnectError.from(e).rawMessage,
          );
      expect(await call(1000)).toBe("accepted");
      expect(await call(8192)).toMatch(/^message size \d+ is larger than configured readMaxBytes 4096$/);
      // The adapter turned the Connect protocol off: the A2A routes do not turn it back on.
      const connectCall = await fetch(`${server.url}/lf.a2a.v1.A2AService/ListTasks`, {
        method: "POST",
        headers: { "content-type": "application/json", "connect-protocol-version": "1" },
        body: "{}",
        signal: AbortSignal.timeout(10_000),
      }).catch((e: unknown) => e);
      expect(connectCall instanceof Response ? connectCall.status : "no HTTP/1.1 answer").not.toBe(200);
    } finally {
      await server.close();
    }
  });

  it("answers a version it does not speak with that error before reading the message", async () => {
    const big = toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, bigText(2 * MIB)));
    const garbage = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff]);
    for (const message of [big, garbage]) {
      const path = "/lf.a2a.v1.A2AService/SendMessage";
      const r = await rawGrpc(`http://${agent.urls.grpc}`, path, message, undefined, "0.5");
      expect(r.status).toBe(String(Code.FailedPrecondition));
      expect(r.message).toContain("0.5");
    }
  });

  it("refuses an adapter that turns gRPC off, naming the service", () => {
    const routes = a2aServiceGrpcRoutes({ handler: createEchoHandler() });
    expect(() => connectNodeAdapter({ routes, grpc: false })).toThrow(
      "lf.a2a.v1.A2AService: the A2A gRPC routes serve gRPC alone, which the adapter turns off (grpc)",
    );
  });

  it("serves gRPC with protobuf alone: gRPC-web, Connect and JSON messages are refused", async () => {
    const server = await grpcServer({ handler: createEchoHandler() });
    const garbage = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]);
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, garbage.length]), garbage]);
    const statusOf = (headers: Record<string, string>, body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const session = connectHttp2(server.url);
        session.on("error", reject);
        const path = "/lf.a2a.v1.A2AService/GetTask";
        const req = session.request({ ":method": "POST", ":path": path, "a2a-version": "1.0", ...headers });
        req.on("response", (h) => {
          resolve(Number(h[":status"]));
          session.close();
        });
        req.on("error", reject);
        req.end(body);
      });
    try {
      const web = { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" };
      const connectUnary = { "content-type": "application/proto", "connect-protocol-version": "1" };
      expect(await statusOf(web, framed)).toBe(415);
      expect(await statusOf(connectUnary, garbage)).toBe(415);
      // JSON messages can carry what protobuf cannot (a lone surrogate in a Struct), which the service would keep.
      const json = { "content-type": "application/grpc+json", te: "trailers" };
      const surrogate = Buffer.from('{"message":{"messageId":"m","role":"ROLE_USER","metadata":{"k":"v\\ud800"}}}');
      const jsonFramed = Buffer.concat([Buffer.from([0, 0, 0, 0, surrogate.length]), surrogate]);
      expect(await statusOf(json, jsonFramed)).toBe(415);
      expect(await statusOf({ ...json, "a2a-version": "0.5" }, jsonFramed)).toBe(415);
      // Also with a version the service refuses: the refusal answers gRPC calls alone.
      expect(await statusOf({ ...web, "a2a-version": "0.5" }, framed)).toBe(415);
      expect(await statusOf({ ...connectUnary, "a2a-version": "0.5" }, garbage)).toBe(415);
      const grpc = await rawGrpc(server.url, "/lf.a2a.v1.A2AService/GetTask", garbage);
      expect(grpc.status).toBe(String(Code.InvalidArgument));
    } finally {
      await server.close();
    }
  });
});

// ---------------------------------------------------------------- bodies

/**
 * Writes a POST with `head` headers on a raw socket, then body chunks of 64 KiB until the server closes the
 * connection or `budget` bytes went out. Resolves with what the server sent and whether it closed.
 */
function endlessPost(
  url: string,
  head: string,
  chunk: (bytes: Buffer) => Buffer,
  budget = 64 * MIB,
): Promise<{ reply: string; closed: boolean; sent: number }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connectTcp(Number(port), hostname);
    let reply = "";
    let sent = 0;
    let closed = false;
    const piece = chunk(Buffer.alloc(64 * 1024, 0x20));
    const finish = () => resolve({ reply, closed, sent });
    socket.on("data", (d) => (reply += d.toString("latin1")));
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("error", () => {});
    socket.on("connect", () => {
      socket.write(`POST ${pathname} HTTP/1.1\r\nhost: ${hostname}\r\n${head}\r\n`);
      const pump = () => {
        if (socket.destroyed) return;
        if (sent >= budget) {
          socket.destroy();
          return;
        }
        sent += piece.length;
        socket.write(piece, () => setImmediate(pump));
      };
      pump();
    });
    setTimeout(() => socket.destroy(), 30_000).unref();
  });
}

const chunked = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from("\r\n")]);

describe("bodies without a length, and endless bodies after a 413", () => {
  it("node:http: a chunked body past the limit gets 413 and the connection is closed", async () => {
    for (const [url, type] of [
      [agent.urls.jsonrpc, "application/json"],
      [`${agent.urls.rest}/message:send`, "application/a2a+json"],
    ] as const) {
      const r = await endlessPost(
        url,
        `content-type: ${type}\r\nA2A-Version: 1.0\r\ntransfer-encoding: chunked\r\n`,
        chunked,
      );
      expect(r.closed).toBe(true);
      expect(r.sent).toBeLessThan(64 * MIB);
      expect(r.reply).toMatch(/^HTTP\/1\.1 413 /);
      expect(r.reply.toLowerCase()).toContain("connection: close");
    }
  });

  it("node:http: a declared length past the limit gets 413 without reading the body, then the close", async () => {
    const r = await endlessPost(
      agent.urls.jsonrpc,
      `content-type: application/json\r\ncontent-length: ${1024 * MIB}\r\n`,
      (b) => b,
    );
    expect(r.closed).toBe(true);
    expect(r.sent).toBeLessThan(64 * MIB);
    expect(r.reply).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("fetchHandler: reads a body without a length as a stream and cancels it past the limit", async () => {
    const handle = fetchHandler(createA2AServiceHttpHandler({ handler: createEchoHandler(), jsonrpcPath: "/rpc" }));
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request("http://agent.test/rpc", {
      method: "POST",
      headers: { ...V10, "content-type": "application/json" },
      body: endless,
      duplex: "half",
    } as RequestInit);
    const answer = await handle(request);
    expect([answer.status, await answer.json()]).toEqual([
      413,
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Request body is too large" } },
    ]);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(40); // 1 MiB is 16 chunks; a few more may be queued
  });
});

// ---------------------------------------------------------------- extension headers

describe("huge A2A-Extensions headers", () => {
  const many = (chars: number) => {
    const uris: string[] = [];
    for (let n = 0, i = 0; n < chars; i++) {
      const uri = `https://example.com/ext/${i % 50}`; // repeats: each is kept once
      uris.push(uri);
      n += uri.length + 2;
    }
    return uris.join(", ").slice(0, chars);
  };
  const tooLong = `A2A-Extensions is 12000 characters long; at most ${MAX_EXTENSIONS_HEADER} are accepted`;

  it("JSON-RPC and gRPC refuse one over the limit; one just under it works, and so do calls alongside", async () => {
    const call = (extensions: string) =>
      post(agent.urls.jsonrpc, rpc("ListTasks", "{}"), { ...JSONRPC, ...V10, "A2A-Extensions": extensions });
    const refused = await call(many(12_000));
    expect(refused.json.error).toEqual({ code: -32600, message: tooLong });
    const [under, ...rest] = await Promise.all([
      call(many(MAX_EXTENSIONS_HEADER)),
      ...Array.from({ length: 8 }, () => call(many(12_000))),
      taskCount(),
    ]);
    expect(under!.json.error).toBeUndefined();
    expect(rest.slice(0, 8).map((r) => (r as Answer).json.error?.code)).toEqual(Array(8).fill(-32600));

    const client = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` }));
    const grpc = await client
      .listTasks({}, { headers: { "a2a-version": "1.0", "a2a-extensions": many(12_000) } })
      .then(() => undefined, ConnectError.from);
    expect([grpc?.code, grpc?.rawMessage]).toEqual([Code.InvalidArgument, tooLong]);
  });
});

// ---------------------------------------------------------------- gRPC deadlines and disconnects

interface GrpcTestServer {
  readonly url: string;
  readonly server: Http2Server;
  close(): Promise<void>;
}

async function grpcServer(
  options: Parameters<typeof a2aServiceGrpcRoutes>[0],
  adapter: { connect?: boolean } = {},
): Promise<GrpcTestServer> {
  const server = createHttp2Server(connectNodeAdapter({ routes: a2aServiceGrpcRoutes(options), ...adapter }));
  const sessions = new Set<import("node:http2").ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => {
      for (const s of sessions) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A raw gRPC call: the grpc-status the server ends it with (headers or trailers), and the messages' count. */
async function rawGrpc(
  url: string,
  path: string,
  message: Uint8Array,
  timeout?: string,
  version = "1.0",
): Promise<{ status: string | undefined; message: string; messages: number }> {
  const session = connectHttp2(url);
  session.on("error", () => {});
  try {
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    frame.set(message, 5);
    const stream = session.request({
      [h2.HTTP2_HEADER_METHOD]: "POST",
      [h2.HTTP2_HEADER_PATH]: path,
      "content-type": "application/grpc",
      te: "trailers",
      ...(timeout ? { "grpc-timeout": timeout } : {}),
      "a2a-version": version,
    });
    stream.on("error", () => {}); // the server may reset the stream once it has answered
    stream.end(frame);
    return await new Promise((resolve, reject) => {
      let status: string | undefined;
      let message = "";
      let bytes = 0;
      const timer = setTimeout(() => reject(new Error(`no end within 10 s: ${path}`)), 10_000);
      // Resolves at the status: a server that refused early stops reading, so the upload may never end.
      const read = (h: Record<string, unknown>) => {
        if (h["grpc-status"] === undefined) return;
        status = h["grpc-status"] as string;
        message = decodeURIComponent((h["grpc-message"] as string | undefined) ?? "");
        clearTimeout(timer);
        resolve({ status, message, messages: bytes > 0 ? 1 : 0 });
      };
      stream.on("response", read);
      stream.on("trailers", read);
      stream.on("data", (d: Buffer) => (bytes += d.length));
      stream.on("close", () => {
        clearTimeout(timer);
        if (status === undefined) reject(new Error(`no grpc-status: ${path}`));
        else resolve({ status, message, messages: bytes > 0 ? 1 : 0 });
      });
    });
  } finally {
    session.destroy();
  }
}

describe("gRPC deadlines", () => {
  let server: GrpcTestServer;
  const signals: string[] = [];
  const forever = new Promise<never>(() => {});
  /** Waits up to 200 ms or until the signal aborts; says which. */
  const watch = (context: HandlerContext) =>
    new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve("intact"), 200);
      context.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve("aborted");
      });
    });
  const handler: A2AServiceHandler = {
    async getTask() {
      return forever; // ignores its signal
    },
    async listTasks(_req, context) {
      signals.push(await watch(context));
      return {};
    },
    async *subscribeToTask(req, context) {
      yield { payload: { case: "task", value: { id: req.id, contextId: "c", status: { state: TaskState.WORKING } } } };
      if (req.id === "ignores") await forever;
      else await new Promise((resolve) => context.signal.addEventListener("abort", resolve)); // then ends quietly
    },
  };
  beforeAll(async () => {
    server = await grpcServer({ handler });
  });
  afterAll(async () => {
    await server?.close();
  });
  const path = (method: string) => `/lf.a2a.v1.A2AService/${method}`;
  const DEADLINE_EXCEEDED = String(Code.DeadlineExceeded);

  it("a unary call whose handler ignores its signal ends with DEADLINE_EXCEEDED", async () => {
    const r = await rawGrpc(
      server.url,
      path("GetTask"),
      toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: "t" })),
      "50m",
    );
    expect(r).toEqual({ status: DEADLINE_EXCEEDED, message: "the operation timed out", messages: 0 });
  });

  it("a stream past its deadline ends with DEADLINE_EXCEEDED, whether its handler waits or ignores it", async () => {
    for (const id of ["ignores", "waits"]) {
      const req = toBinary(SubscribeToTaskRequestSchema, create(SubscribeToTaskRequestSchema, { id }));
      const r = await rawGrpc(server.url, path("SubscribeToTask"), req, "100m");
      expect(r).toEqual({ status: DEADLINE_EXCEEDED, message: "the operation timed out", messages: 1 });
    }
  });

  it("clamps a deadline of 2^31 ms or more instead of letting it fire at once", async () => {
    signals.length = 0;
    const req = toBinary(ListTasksRequestSchema, create(ListTasksRequestSchema, {}));
    for (const timeout of ["99999999H", "2147484S", "2147483648m"]) {
      const r = await rawGrpc(server.url, path("ListTasks"), req, timeout);
      expect([timeout, r.status]).toEqual([timeout, timeout === "2147483648m" ? String(Code.InvalidArgument) : "0"]);
    }
    expect(signals).toEqual(["intact", "intact"]);
  });
});

/** Polls every 20 ms until `done` holds, for at most 10 s. */
async function until(done: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

describe("gRPC: a client that goes away while the server waits on backpressure", () => {
  it("closes the handler's stream and aborts its signal", async () => {
    let finallyRan = false;
    let aborted = false;
    let yielded = 0;
    const big = "x".repeat(64 * 1024);
    const server = await grpcServer({
      handler: {
        async *subscribeToTask(req, context) {
          context.signal.addEventListener("abort", () => (aborted = true));
          try {
            for (;;) {
              yielded++;
              yield {
                payload: { case: "task", value: { id: req.id, contextId: big, status: { state: TaskState.WORKING } } },
              };
            }
          } finally {
            finallyRan = true;
          }
        },
      },
    });
    try {
      const session = connectHttp2(server.url);
      session.on("error", () => {});
      const msg = toBinary(SubscribeToTaskRequestSchema, create(SubscribeToTaskRequestSchema, { id: "bp" }));
      const frame = Buffer.alloc(5 + msg.length);
      frame.writeUInt32BE(msg.length, 1);
      frame.set(msg, 5);
      const stream = session.request({
        [h2.HTTP2_HEADER_METHOD]: "POST",
        [h2.HTTP2_HEADER_PATH]: "/lf.a2a.v1.A2AService/SubscribeToTask",
        "content-type": "application/grpc",
        te: "trailers",
        "a2a-version": "1.0",
      });
      stream.pause(); // a slow reader: flow control fills, the server waits
      stream.end(frame);
      await until(() => yielded >= 1);
      await new Promise((r) => setTimeout(r, 200)); // let the server fill the window and wait
      const before = yielded;
      session.destroy();
      await until(() => finallyRan);
      expect({ finallyRan, aborted }).toEqual({ finallyRan: true, aborted: true });
      expect(yielded).toBeLessThan(before + 64); // it stopped producing: bounded by the flow-control window
    } finally {
      await server.close();
    }
  });
});
