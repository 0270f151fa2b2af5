/**
 * The version is checked before the method or route is looked up (issue 24,
 * item 6), so a version the interface does not speak is
 * VersionNotSupportedError, never "Method not found", 404 or UNIMPLEMENTED:
 * on JSON-RPC and HTTP+JSON of the dual-version server (the example agent:
 * A2A-Version 0.5 goes to the 1.0 side, which refuses it before it sees the
 * v0.3 method name or path), and on gRPC, where an unknown method is answered
 * by grpcFallback: its version metadata first. A repeated version header
 * naming one version counts once on the dual-version server too (it picks the
 * side by it); naming several, it is refused naming them. Servers on 127.0.0.1.
 */
import { connect, createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { request as httpRequest } from "node:http";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { grpcFallback } from "@protoc-gen-a2a/runtime";
import { ErrorInfoSchema } from "@protoc-gen-a2a/runtime/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { A2AServiceV0_3 } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { a2aServiceGrpcRoutes as a2aServiceGrpcRoutes03 } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import * as v10Pb from "../../generated-samples/v1.0.1/a2a_pb.js";
import * as v03Pb from "../../generated-samples/v0.3.0/a2a_pb.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { bridgeToOlder } from "../../generated-samples/a2a_compat.js";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const versionRefused = [{ "@type": ERROR_INFO, reason: "VERSION_NOT_SUPPORTED", domain: "a2a-protocol.org" }];

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startEchoAgent();
});
afterAll(() => agent?.close());

/** A request with node:http; a header given as a list is sent once per value. */
function send(
  method: string,
  url: string,
  headers: Record<string, string | string[]>,
  body?: string,
): Promise<{ status: number; type: string | undefined; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"],
          json: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const rpc = (method: string, params: unknown, headers: Record<string, string | string[]>) =>
  send(
    "POST",
    agent.urls.jsonrpc,
    { ...headers, "content-type": "application/json" },
    JSON.stringify({ jsonrpc: "2.0", id: 3, method, params }),
  );

describe("the dual-version server (1.0, and 0.3 when A2A-Version is 0.3 or absent)", () => {
  it.each<[string, string]>([
    ["0.5", "message/send"],
    ["0.5", "tasks/get"],
    ["0.5", "tasks/resubscribe"],
    ["0.9", "message/stream"],
    ["2.0", "SendMessage"],
  ])("JSON-RPC: A2A-Version %s with %s → -32009, not -32601", async (version, method) => {
    const r = await rpc(method, { id: "x" }, { "A2A-Version": version });
    expect(r.status).toBe(200);
    expect(r.type).toBe("application/json");
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32009, data: versionRefused } });
    expect((r.json["error"] as { message: string }).message).toBe(
      `Protocol version ${version} is not supported; this interface speaks 1.0`,
    );
  });

  it.each<[string, string, string]>([
    ["0.5", "POST", "/v1/message:send"],
    ["0.5", "GET", "/v1/tasks/x"],
    ["0.5", "GET", "/v1/card"],
    ["0.5", "PUT", "/v1/tasks/x"],
    ["2.0", "GET", "/no/such/route"],
  ])("HTTP+JSON: A2A-Version %s on %s %s → 400 VERSION_NOT_SUPPORTED, not 404 or 405", async (version, m, path) => {
    const headers = { "A2A-Version": version, "content-type": "application/json" };
    const r = await send(m, agent.urls.rest + path, headers, m === "POST" ? "{}" : undefined);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error: {
        code: 400,
        status: "FAILED_PRECONDITION",
        message: `Protocol version ${version} is not supported; this interface speaks 1.0`,
        details: versionRefused,
      },
    });
  });

  it("a repeated A2A-Version naming 0.3 goes to 0.3; naming 1.0 to 1.0", async () => {
    const older = await rpc("tasks/get", { id: "nope" }, { "A2A-Version": ["0.3", "0.3"] });
    expect(older.json).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32001, message: "Task nope not found" } });
    const newer = await rpc("GetTask", { id: "nope" }, { "A2A-Version": ["1.0", "1.0"] });
    expect(newer.json).toMatchObject({ error: { code: -32001, data: [{ reason: "TASK_NOT_FOUND" }] } });
  });

  it("a repeated A2A-Version naming 0.3 and 1.0 is refused naming both, on both bindings", async () => {
    const r = await rpc("tasks/get", { id: "nope" }, { "A2A-Version": ["0.3", "1.0"] });
    expect(r.json).toMatchObject({
      error: {
        code: -32009,
        message: "A2A-Version names more than one version (0.3, 1.0); send one: A2A-Version: 1.0",
      },
    });
    const rest = await send("GET", `${agent.urls.rest}/v1/tasks/nope`, { "A2A-Version": ["1.0", "0.3"] });
    expect(rest.status).toBe(400);
    expect(rest.json).toMatchObject({
      error: { message: expect.stringContaining("(1.0, 0.3)"), details: versionRefused },
    });
  });
});

describe("gRPC: an unknown method is answered by grpcFallback, its version metadata first", () => {
  const servers: Http2Server[] = [];
  const sessions = new Set<ServerHttp2Session>();
  const urls = { only10: "", dual: "" };
  beforeAll(async () => {
    const handler = createEchoHandler();
    const start = async (dual: boolean) => {
      const defs = dual ? [A2AServiceV1_0, A2AServiceV0_3] : [A2AServiceV1_0];
      const server = createHttp2Server(
        connectNodeAdapter({
          routes: (router) => {
            a2aServiceGrpcRoutes({ handler })(router);
            if (dual) a2aServiceGrpcRoutes03({ handler: bridgeToOlder(handler).handler })(router);
          },
          fallback: grpcFallback(defs),
          grpc: true,
          connect: false,
          grpcWeb: false,
        }),
      );
      servers.push(server);
      server.on("session", (session: ServerHttp2Session) => sessions.add(session));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    urls.only10 = await start(false);
    urls.dual = await start(true);
  });
  afterAll(async () => {
    for (const session of sessions) session.destroy(); // HTTP/2 sessions outlive calls
    for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
  });

  /** The ConnectError of a v0.3 GetTask (a method a 1.0-only server does not have) sent with `headers`. */
  async function v03GetTask(url: string, headers: Record<string, string>): Promise<ConnectError> {
    const client = createClient(v03Pb.A2AService, createGrpcTransport({ baseUrl: url }));
    const e = await client.getTask({ name: "tasks/x" }, { headers }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ConnectError);
    return e as ConnectError;
  }

  const reasonsOf = (e: ConnectError) =>
    e.findDetails(ErrorInfoSchema).map((d) => (d as unknown as { reason: string }).reason);

  it.each<[string, Record<string, string>, string]>([
    ["0.5", { "a2a-version": "0.5" }, "Protocol version 0.5 is not supported; this interface speaks 1.0"],
    ["none (read as 0.3)", {}, "The A2A-Version header is missing, so the call is read as version 0.3"],
    ["0.3", { "a2a-version": "0.3" }, "Protocol version 0.3 is not supported"],
  ])("1.0-only server, a v0.3 method at version %s → VERSION_NOT_SUPPORTED", async (_n, h, m) => {
    const e = await v03GetTask(urls.only10, h);
    expect(e.code).toBe(Code.FailedPrecondition);
    expect(e.rawMessage).toContain(m);
    expect(reasonsOf(e)).toEqual(["VERSION_NOT_SUPPORTED"]);
  });

  it("1.0-only server, a v0.3 method at version 1.0 → UNIMPLEMENTED (version spoken, method not)", async () => {
    const e = await v03GetTask(urls.only10, { "a2a-version": "1.0" });
    expect(e.code).toBe(Code.Unimplemented);
    expect(e.rawMessage).toBe("Method not found: /a2a.v1.A2AService/GetTask");
    expect(reasonsOf(e)).toEqual([]);
  });

  it("a registered method with version 0.5 → VERSION_NOT_SUPPORTED; with 1.0 it is served", async () => {
    const client = createClient(v10Pb.A2AService, createGrpcTransport({ baseUrl: urls.only10 }));
    const e = await client.getTask({ id: "x" }, { headers: { "a2a-version": "0.5" } }).then(
      () => undefined,
      (x: unknown) => x as ConnectError,
    );
    expect(e?.code).toBe(Code.FailedPrecondition);
    expect(reasonsOf(e!)).toEqual(["VERSION_NOT_SUPPORTED"]);
    const listed = await client.listTasks({}, { headers: { "a2a-version": "1.0, 1.0" } });
    expect(listed.pageSize).toBe(50);
  });

  it("dual server: an unknown method is UNIMPLEMENTED unless its version is spoken by neither", async () => {
    const served = await createClient(v03Pb.A2AService, createGrpcTransport({ baseUrl: urls.dual }))
      .getTask({ name: "tasks/x" })
      .then(
        () => undefined,
        (x: unknown) => x as ConnectError,
      );
    expect(served?.code).toBe(Code.NotFound); // TaskNotFoundError: the v0.3 service answered
    // A path neither service has: the fallback decides.
    const call = async (headers: Record<string, string>) => {
      const res = await rawGrpc(urls.dual, "/lf.a2a.v1.A2AService/TaskSubscription", headers);
      return { status: res["grpc-status"], message: decodeURIComponent(String(res["grpc-message"])) };
    };
    expect(await call({ "a2a-version": "0.5" })).toEqual({
      status: String(Code.FailedPrecondition),
      message: "Protocol version 0.5 is not supported; this interface speaks 1.0",
    });
    expect((await call({ "a2a-version": "1.0" })).status).toBe(String(Code.Unimplemented));
    expect((await call({})).status).toBe(String(Code.Unimplemented));
    expect((await call({ "a2a-version": "0.3" })).status).toBe(String(Code.Unimplemented));
  });
});

/** The response headers of a bodiless gRPC call to `path` over HTTP/2 (a trailers-only answer carries its status). */
async function rawGrpc(base: string, path: string, headers: Record<string, string>) {
  const session = connect(base);
  try {
    return await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
      const stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
        ...headers,
      });
      stream.on("response", (h) => resolve(h as Record<string, string | string[] | undefined>));
      stream.on("error", reject);
      stream.end();
    });
  } finally {
    session.close();
  }
}
