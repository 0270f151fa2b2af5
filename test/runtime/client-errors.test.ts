/**
 * One client error model (issue 9, item 8). Servers built from the generated
 * stubs of v1.0 and v0.3, each on JSON-RPC, HTTP+JSON and gRPC, throw every
 * error of their catalog and the standard errors, with the catalog's message
 * and with their own; every generated client must reject with an A2AError of
 * the same type, JSON-RPC code and message, from a unary call, from a stream
 * before its first event and from a stream after it. What is no A2A answer (a
 * refused connection, a proxy's HTML 502, a timeout) is an A2ATransportError
 * naming the operation, the URL and the status or cause.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, A2ATransportError, type A2aServiceDefinition, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v03 from "../../generated-samples/v0.3.0/a2a_a2a.js";
import * as v03pb from "../../generated-samples/v0.3.0/a2a_pb.js";
import * as v03grpc from "../../generated-samples/v0.3.0/a2a_grpc.js";
import * as v03rpc from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import * as v03rest from "../../generated-samples/v0.3.0/a2a_rest.js";
import * as v10 from "../../generated-samples/v1.0.1/a2a_a2a.js";
import * as v10pb from "../../generated-samples/v1.0.1/a2a_pb.js";
import * as v10grpc from "../../generated-samples/v1.0.1/a2a_grpc.js";
import * as v10rpc from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import * as v10rest from "../../generated-samples/v1.0.1/a2a_rest.js";

/** One error a handler throws: its type and the message it gives, if any. */
interface Case {
  readonly type: string;
  readonly message: string | undefined;
}

/**
 * Every catalog error and every standard error with the catalog's message, and with a message of its own:
 * all catalog errors, and the standard errors that have a gRPC/HTTP status of their own.
 */
function casesOf(def: A2aServiceDefinition): Case[] {
  const custom = (type: string) => `${type} raised for the table, with "quotes" and ünïcode`;
  return [
    ...def.errors.flatMap((e) => [
      { type: e.name, message: undefined },
      { type: e.name, message: custom(e.name) },
    ]),
    ...def.standardErrors.map((e) => ({ type: e.name, message: undefined })),
    ...def.standardErrors.filter((e) => e.grpcStatus).map((e) => ({ type: e.name, message: custom(e.name) })),
  ];
}

/** What every binding's client must throw for a case. */
function expected(def: A2aServiceDefinition, c: Case) {
  const entry = def.errors.find((e) => e.name === c.type) ?? def.standardErrors.find((e) => e.name === c.type)!;
  return {
    type: c.type,
    code: "jsonrpcCode" in entry ? entry.jsonrpcCode : entry.code,
    message: c.message ?? entry.message,
  };
}

const cases = { "1.0": casesOf(v10.A2AServiceV1_0), "0.3": casesOf(v03.A2AServiceV0_3) };
const fail = (version: "1.0" | "0.3", id: string): never => {
  const c = cases[version][Number(id.replace(/^(tasks\/)?case-/, ""))];
  if (!c) throw new Error(`no case ${id}`);
  throw A2AError.named(c.type, c.message);
};

const handler10: v10.A2AServiceHandler = {
  getTask: async ({ id }) => fail("1.0", id),
  // biome-ignore lint/correctness/useYield: fails before its first event
  async *subscribeToTask({ id }) {
    fail("1.0", id);
  },
  async *sendStreamingMessage({ message }) {
    yield { payload: { case: "message", value: { messageId: "first" } } };
    fail("1.0", message?.messageId ?? "");
  },
};

const handler03: v03.A2AServiceHandler = {
  getTask: async ({ name }) => fail("0.3", name),
  // biome-ignore lint/correctness/useYield: fails before its first event
  async *taskSubscription({ name }) {
    fail("0.3", name);
  },
  async *sendStreamingMessage({ request }) {
    yield { payload: { case: "msg", value: { messageId: "first" } } };
    fail("0.3", request?.messageId ?? "");
  },
};

/** The three calls of the table, the same on both versions. */
interface Calls {
  unary(id: string): Promise<unknown>;
  early(id: string): AsyncIterable<unknown>;
  late(id: string): AsyncIterable<unknown>;
}

const calls10 = (c: v10.A2AServiceClient): Calls => ({
  unary: (id) => c.getTask({ id }),
  early: (id) => c.subscribeToTask({ id }),
  late: (id) =>
    c.sendStreamingMessage({
      message: { messageId: id, role: v10pb.Role.USER, parts: [{ content: { case: "text", value: "hi" } }] },
    }),
});
const calls03 = (c: v03.A2AServiceClient): Calls => ({
  unary: (id) => c.getTask({ name: `tasks/${id}` }),
  early: (id) => c.taskSubscription({ name: `tasks/${id}` }),
  late: (id) =>
    c.sendStreamingMessage({
      request: { messageId: id, role: v03pb.Role.USER, content: [{ part: { case: "text", value: "hi" } }] },
    }),
});

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
interface Urls {
  readonly jsonrpc: string;
  readonly rest: string;
  readonly grpc: string;
}
const clientsOf: Record<"1.0" | "0.3", (u: Urls, timeoutMs?: number) => [Binding, Calls][]> = {
  "1.0": (u, timeoutMs) => [
    ["JSONRPC", calls10(v10rpc.createA2AServiceJsonRpcClient({ url: u.jsonrpc, ...(timeoutMs ? { timeoutMs } : {}) }))],
    ["HTTP+JSON", calls10(v10rest.createA2AServiceRestClient({ url: u.rest, ...(timeoutMs ? { timeoutMs } : {}) }))],
    [
      "GRPC",
      calls10(
        v10grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: u.grpc }), {
          url: u.grpc,
          ...(timeoutMs ? { timeoutMs } : {}),
        }),
      ),
    ],
  ],
  "0.3": (u, timeoutMs) => [
    ["JSONRPC", calls03(v03rpc.createA2AServiceJsonRpcClient({ url: u.jsonrpc, ...(timeoutMs ? { timeoutMs } : {}) }))],
    ["HTTP+JSON", calls03(v03rest.createA2AServiceRestClient({ url: u.rest, ...(timeoutMs ? { timeoutMs } : {}) }))],
    [
      "GRPC",
      calls03(
        v03grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: u.grpc }), {
          url: u.grpc,
          ...(timeoutMs ? { timeoutMs } : {}),
        }),
      ),
    ],
  ],
};

const servers: (Server | Http2Server)[] = [];
const sessions: ServerHttp2Session[] = [];
const listen = async (server: Server | Http2Server) => {
  servers.push(server);
  if (!("closeAllConnections" in server)) server.on("session", (s: ServerHttp2Session) => sessions.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const clients: Record<string, [Binding, Calls][]> = {};

beforeAll(async () => {
  const onError = () => {};
  const http10 = await listen(
    createServer(nodeHttpListener(v10.createA2AServiceHttpHandler({ handler: handler10, onError }))),
  );
  const http03 = await listen(
    createServer(nodeHttpListener(v03.createA2AServiceHttpHandler({ handler: handler03, onError }))),
  );
  const grpc10 = await listen(
    createHttp2Server(
      connectNodeAdapter({ routes: v10grpc.a2aServiceGrpcRoutes({ handler: handler10, onError }), grpc: true }),
    ),
  );
  const grpc03 = await listen(
    createHttp2Server(
      connectNodeAdapter({ routes: v03grpc.a2aServiceGrpcRoutes({ handler: handler03, onError }), grpc: true }),
    ),
  );
  clients["1.0"] = clientsOf["1.0"]({ jsonrpc: `${http10}/jsonrpc`, rest: `${http10}/rest`, grpc: grpc10 });
  clients["0.3"] = clientsOf["0.3"]({ jsonrpc: `${http03}/jsonrpc`, rest: `${http03}/rest`, grpc: grpc03 });
});

afterAll(async () => {
  for (const s of sessions) s.destroy();
  for (const s of servers) {
    if ("closeAllConnections" in s) s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (e) {
    return e;
  }
  throw new Error("the call did not fail");
}

const drain = async (events: AsyncIterable<unknown>) => {
  let n = 0;
  for await (const _ of events) n++;
  return n;
};

/** The error as the table compares it, or what it was instead. */
function seen(e: unknown) {
  if (e instanceof A2AError) return { type: e.type, code: e.code, message: e.message };
  return { not: `${(e as Error).name}: ${(e as Error).message}` };
}

describe.each(["1.0", "0.3"] as const)("v%s", (version) => {
  const table = cases[version].map((c, i) => [`${c.type}${c.message ? " (own message)" : ""}`, i] as const);

  it.each(table)("%s: the same A2AError from a unary call on every binding", async (_, i) => {
    const want = expected(version === "1.0" ? v10.A2AServiceV1_0 : v03.A2AServiceV0_3, cases[version][i]!);
    for (const [binding, calls] of clients[version]!) {
      const e = await rejection(() => calls.unary(`case-${i}`));
      expect([binding, seen(e)]).toEqual([binding, want]);
    }
  });

  it.each(table)("%s: the same A2AError from a stream before and after its first event", async (_, i) => {
    const want = expected(version === "1.0" ? v10.A2AServiceV1_0 : v03.A2AServiceV0_3, cases[version][i]!);
    for (const [binding, calls] of clients[version]!) {
      const early = await rejection(() => drain(calls.early(`case-${i}`)));
      expect([binding, "early", seen(early)]).toEqual([binding, "early", want]);
      let events = 0;
      const late = await rejection(async () => {
        for await (const _ of calls.late(`case-${i}`)) events++;
      });
      expect([binding, "late", events, seen(late)]).toEqual([binding, "late", 1, want]);
    }
  });
});

describe("an A2A error the catalog lacks", () => {
  it("is an A2AError of type UnknownError, with its reason or code, on HTTP+JSON", async () => {
    const info = { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "NEWER", domain: "a2a-protocol.org" };
    const bodies = {
      "1.0": { error: { code: 400, status: "FAILED_PRECONDITION", message: "newer error", details: [info] } },
      "0.3": { code: -32042, message: "newer error" },
    };
    const got = [];
    for (const version of ["1.0", "0.3"] as const) {
      const text = JSON.stringify(bodies[version]);
      const base = await listen(
        createServer((_, res) => res.writeHead(400, { "content-type": "application/json" }).end(text)),
      );
      const rest = clientsOf[version]({ jsonrpc: base, rest: `${base}/rest`, grpc: base })[1]![1];
      const e = await rejection(() => rest.unary("case-0"));
      expect(e).toBeInstanceOf(A2AError);
      got.push([version, seen(e), (e as A2AError).options.reason]);
    }
    expect(got).toEqual([
      ["1.0", { type: "UnknownError", code: undefined, message: "newer error" }, "NEWER"],
      ["0.3", { type: "UnknownError", code: -32042, message: "newer error" }, undefined],
    ]);
  });
});

/** A base URL where nothing listens: a port bound, then closed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function transportError(e: unknown): A2ATransportError {
  expect(e, String(e)).toBeInstanceOf(A2ATransportError);
  return e as A2ATransportError;
}

describe.each(["1.0", "0.3"] as const)("v%s: what is no A2A answer", (version) => {
  it("a refused connection names the operation, the URL and the cause on every binding", async () => {
    const base = await closedPort();
    const urls = { jsonrpc: `${base}/jsonrpc`, rest: `${base}/rest`, grpc: base };
    const got = [];
    for (const [binding, calls] of clientsOf[version](urls)) {
      const e = transportError(await rejection(() => calls.unary("case-0")));
      expect(e.operation).toBe("GetTask");
      expect(e.url?.startsWith(base)).toBe(true);
      expect(e.message).toContain(`GetTask: `);
      expect(e.message).toContain(base);
      expect(e.message).toContain("ECONNREFUSED");
      expect(e.cause).toBeDefined();
      got.push([binding, e.status, e.grpcStatus, e.cause instanceof ConnectError]);
      const s = transportError(await rejection(() => drain(calls.early("case-0"))));
      expect([s.operation, s.message.includes("ECONNREFUSED")]).toEqual([
        version === "1.0" ? "SubscribeToTask" : "TaskSubscription",
        true,
      ]);
    }
    expect(got).toEqual([
      ["JSONRPC", undefined, undefined, false],
      ["HTTP+JSON", undefined, undefined, false],
      ["GRPC", undefined, "UNAVAILABLE", true],
    ]);
  });

  it("a proxy's HTML 502 is a transport error with the status and the body", async () => {
    const html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    const proxy = (_: unknown, res: import("node:http").ServerResponse) =>
      res.writeHead(502, { "content-type": "text/html" }).end(html);
    const base = await listen(createServer(proxy));
    const grpcBase = await listen(createHttp2Server(proxy as never));
    const urls = { jsonrpc: `${base}/jsonrpc`, rest: `${base}/rest`, grpc: grpcBase };
    const [jsonrpc, rest, grpc] = clientsOf[version](urls);
    const restPath = version === "1.0" ? "/rest/tasks/case-0" : "/rest/v1/tasks/case-0";
    const expectations = [
      [jsonrpc!, `GetTask: POST ${base}/jsonrpc (${version === "1.0" ? "GetTask" : "tasks/get"}) answered HTTP 502`],
      [rest!, `GetTask: GET ${base}${restPath} answered HTTP 502`],
    ] as const;
    for (const [[binding, calls], message] of expectations) {
      const e = transportError(await rejection(() => calls.unary("case-0")));
      expect([binding, e.message, e.status, e.body, e.operation]).toEqual([binding, message, 502, html, "GetTask"]);
    }
    const e = transportError(await rejection(() => grpc![1].unary("case-0")));
    const service = version === "1.0" ? "lf.a2a.v1.A2AService" : "a2a.v1.A2AService";
    expect([e.url, e.grpcStatus, e.operation]).toEqual([`${grpcBase}/${service}/GetTask`, "UNAVAILABLE", "GetTask"]);
    expect(e.message).toMatch(
      new RegExp(`^GetTask: gRPC ${grpcBase}/${service}/GetTask ended with UNAVAILABLE: .*502`),
    );
  });

  it("a google.rpc.Status with no A2A ErrorInfo and no standard error's status is a transport error", async () => {
    // UNAUTHENTICATED (401) is a standard error since the access-errors entry; RESOURCE_EXHAUSTED is none.
    const body = JSON.stringify({ error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "slow", details: [] } });
    const base = await listen(
      createServer((_, res) => res.writeHead(429, { "content-type": "application/json" }).end(body)),
    );
    const rest = clientsOf[version]({ jsonrpc: base, rest: `${base}/rest`, grpc: base })[1]![1];
    const e = transportError(await rejection(() => rest.unary("case-0")));
    const path = version === "1.0" ? "/rest/tasks/case-0" : "/rest/v1/tasks/case-0";
    expect([e.message, e.status, e.body]).toEqual([`GetTask: GET ${base}${path} answered HTTP 429`, 429, body]);
  });

  it("a timeout is a transport error with the abort as its cause", async () => {
    const silent = () => {}; // never answers
    const base = await listen(createServer(silent));
    const grpcBase = await listen(createHttp2Server(silent));
    const urls = { jsonrpc: `${base}/jsonrpc`, rest: `${base}/rest`, grpc: grpcBase };
    for (const [binding, calls] of clientsOf[version](urls, 50)) {
      const e = transportError(await rejection(() => calls.unary("case-0")));
      expect([binding, e.operation, e.url?.startsWith(binding === "GRPC" ? grpcBase : base)]).toEqual([
        binding,
        "GetTask",
        true,
      ]);
      expect(e.cause).toBeDefined();
    }
  });
});
