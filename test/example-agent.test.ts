/**
 * The example agent process as `npm run example` runs it (dist-examples/examples/echo-agent/main.js, which
 * pretest's build:examples builds): one stdout line per HTTP request and gRPC call, one stderr line per
 * handler error, and a single stderr line with exit code 1 when a port is taken or is not a number. Then,
 * in servers built from the generated stubs, the interceptor behind the error log (logA2aErrors): it logs
 * each A2A error a call ends with once, an authentication refusal too (it runs outermost, as in server.ts),
 * and the client gets what it would have got without it.
 */
import { spawn } from "node:child_process";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import { createServer, type AddressInfo, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { authenticate } from "@protoc-gen-a2a/runtime/auth";
import {
  createA2AServiceHttpHandler,
  type A2AServiceClient,
  type A2AServiceHandler,
} from "../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v1.0.1/a2a_rest.js";
import { Role } from "../generated-samples/v1.0.1/a2a_pb.js";
import { logA2aErrors } from "../examples/echo-agent/logging.js";
import { apiKeySecurity } from "./helpers/example-process.js";
import { readJson, type JsonRpcFailure, type RestError } from "./helpers/json.js";
import { repoRoot } from "./helpers/run.js";

const MAIN = join(repoRoot, "dist-examples/examples/echo-agent/main.js");
/** How long a step may take (a loaded machine starts node slowly). */
const STEP_MS = 20_000;
const MS = String.raw`\d+\.\dms`;

interface AgentProcess {
  readonly out: () => string;
  readonly err: () => string;
  /** Exit code; rejects if the process has not exited within STEP_MS of the call. */
  readonly exited: () => Promise<number | null>;
  /** Resolves when `test` holds; rejects after STEP_MS or when the process exits first. */
  readonly until: (what: string, test: () => boolean) => Promise<void>;
  readonly kill: () => void;
}

function runAgent(env: Readonly<Record<string, string>>): AgentProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  delete childEnv["PORT"];
  delete childEnv["GRPC_PORT"];
  const child = spawn(process.execPath, [MAIN], { env: { ...childEnv, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const report = () => `\n--- stdout\n${out}--- stderr\n${err}`;
  const exitWithin = () =>
    new Promise<number | null>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no exit within ${STEP_MS} ms${report()}`)), STEP_MS);
      void exit.then((code) => {
        clearTimeout(t);
        resolve(code);
      });
    });
  return {
    out: () => out,
    err: () => err,
    exited: exitWithin,
    until: (what, test) =>
      new Promise<void>((resolve, reject) => {
        const start = Date.now();
        const poll = setInterval(() => {
          if (test()) resolve();
          else if (child.exitCode !== null) reject(new Error(`${what}: exited ${child.exitCode} first${report()}`));
          else if (Date.now() - start > STEP_MS) reject(new Error(`${what}: not within ${STEP_MS} ms${report()}`));
          else return;
          clearInterval(poll);
        }, 20);
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");
const count = (text: string, part: string) => text.split(part).length - 1;

describe("the example agent's logs", () => {
  let agent: AgentProcess;
  let urls: { jsonrpc: string; rest: string; grpc: string };

  beforeAll(async () => {
    agent = runAgent({ PORT: "0" });
    await agent.until("URLs printed", () => /^ {2}gRPC\s+\S+$/m.test(agent.out()));
    const url = (label: string) => new RegExp(`^ {2}${label}\\s+(\\S+)$`, "m").exec(agent.out())![1]!;
    urls = { jsonrpc: url("JSON-RPC"), rest: url("HTTP\\+JSON"), grpc: url("gRPC") };
  });
  afterAll(() => agent?.kill());

  const logged = (pattern: string) =>
    agent.until(`log line /${pattern}/`, () => new RegExp(`^${pattern}$`, "m").test(agent.out()));

  it("logs a JSON-RPC call and a REST call: method, path, A2A-Version, status, ms", async () => {
    const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } });
    const headers = { "A2A-Version": "1.0", "content-type": "application/json" };
    const rpc = await fetch(urls.jsonrpc, { method: "POST", headers, body });
    expect(rpc.status).toBe(200);
    await rpc.arrayBuffer();
    await logged(String.raw`POST /a2a/jsonrpc v1\.0 200 ${MS}`);

    const rest = await fetch(`${urls.rest}/message:send`, {
      method: "POST",
      headers: { "A2A-Version": "1.0", "content-type": "application/a2a+json" },
      body: JSON.stringify({ message }),
    });
    expect(rest.status).toBe(200);
    await rest.arrayBuffer();
    await logged(String.raw`POST /a2a/rest/message:send v1\.0 200 ${MS}`);
    expect(agent.err()).toBe("");
  });

  it("logs each handler error once, in every binding and version, and the wire answer is unchanged", async () => {
    const rest = await fetch(`${urls.rest}/tasks/unknown-rest`, { headers: { "A2A-Version": "1.0" } });
    expect(rest.status).toBe(404);
    expect((await readJson<RestError>(rest)).error.details[0]!.reason).toBe("TASK_NOT_FOUND");
    await logged(String.raw`GET /a2a/rest/tasks/unknown-rest v1\.0 404 ${MS}`);

    // Without A2A-Version: a v0.3 call, through the bridge to the same (logged) v1.0 handler.
    const body = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: "unknown-v03" } });
    const old = await fetch(urls.jsonrpc, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect((await readJson<JsonRpcFailure>(old)).error.code).toBe(-32001);
    await logged(`POST /a2a/jsonrpc - 200 ${MS}`);

    const grpc = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://${urls.grpc}` }), {});
    const failure = await grpc.getTask({ id: "unknown-grpc" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure instanceof A2AError ? failure.type : failure).toBe("TaskNotFoundError");
    await logged(String.raw`gRPC /lf\.a2a\.v1\.A2AService/GetTask v1\.0 NotFound ${MS}`);

    const ids = ["unknown-rest", "unknown-v03", "unknown-grpc"];
    await agent.until("three handler errors", () => ids.every((id) => agent.err().includes(id)));
    for (const id of ids) {
      const line = `echo agent: handler error in GetTask: TaskNotFoundError: Task ${id} not found\n`;
      expect(count(agent.err(), line)).toBe(1);
    }
    // An A2AError is logged as its type and message, without a stack.
    expect(lines(agent.err())).toHaveLength(3);
  });
});

describe("the example agent's start-up failures", () => {
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    takenPort = (taken.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  const failsWith = async (env: Readonly<Record<string, string>>, line: string) => {
    const agent = runAgent(env);
    try {
      expect(await agent.exited()).toBe(1);
      expect(lines(agent.err())).toEqual([line]);
      expect(agent.out()).toBe("");
    } finally {
      agent.kill();
    }
  };

  it("a taken PORT or GRPC_PORT: one line on stderr, exit code 1", async () => {
    await failsWith(
      { PORT: String(takenPort) },
      `echo agent: port ${takenPort} is in use (EADDRINUSE); set PORT to a free port`,
    );
    await failsWith(
      { PORT: "0", GRPC_PORT: String(takenPort) },
      `echo agent: port ${takenPort} is in use (EADDRINUSE); set GRPC_PORT to a free port`,
    );
  });

  it.each([
    [{ PORT: "abc" }, `echo agent: PORT="abc" is not a port number (0-65535)`],
    [{ PORT: "70000" }, `echo agent: PORT="70000" is not a port number (0-65535)`],
    [{ PORT: "0", GRPC_PORT: "-1" }, `echo agent: GRPC_PORT="-1" is not a port number (0-65535)`],
    [{ PORT: "65535" }, "echo agent: GRPC_PORT defaults to PORT+1 = 65536, not a port number (0-65535); set GRPC_PORT"],
  ])("%o: one line on stderr, exit code 1", (env, line) => failsWith(env, line));
});

describe("logA2aErrors", () => {
  const log: string[] = [];
  const reported: unknown[] = [];
  const boom = new Error("boom");
  const handler: A2AServiceHandler = {
    getTask: async () => {
      throw boom;
    },
    cancelTask: async ({ id }) => {
      throw new A2AError("TaskNotFoundError", `Task ${id} not found`);
    },
    async *sendStreamingMessage() {
      yield { payload: { case: "message", value: { messageId: "m" } } };
      throw new A2AError("UnsupportedOperationError", "late in the stream");
    },
  };
  const security = apiKeySecurity({ alice: "alice-key" });
  // As server.ts orders them: the log outermost, then authentication.
  const interceptors = [
    logA2aErrors((line) => log.push(line)),
    authenticate({ card: security, verifiers: security.verifiers }),
  ];
  const onError = (e: unknown) => void reported.push(e);
  let http: HttpServer;
  let grpc: Http2Server;
  const clients: Record<string, { keyed: A2AServiceClient; bare: A2AServiceClient }> = {};

  const listen = (server: HttpServer | Http2Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
    );

  beforeAll(async () => {
    http = createHttpServer(nodeHttpListener(createA2AServiceHttpHandler({ handler, interceptors, onError })));
    const routes = a2aServiceGrpcRoutes({ handler, interceptors, onError });
    grpc = createHttp2Server(connectNodeAdapter({ routes, grpc: true }));
    const [port, grpcPort] = [await listen(http), await listen(grpc)];
    const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${grpcPort}` });
    const make = (headers: Record<string, string>) => ({
      JSONRPC: createA2AServiceJsonRpcClient({ url: `http://127.0.0.1:${port}/jsonrpc`, headers }),
      "HTTP+JSON": createA2AServiceRestClient({ url: `http://127.0.0.1:${port}/rest`, headers }),
      GRPC: createA2AServiceGrpcClient(transport, { headers }),
    });
    // gRPC metadata keys are lowercase; so is this header name, for every binding.
    const [keyed, bare] = [make({ "x-api-key": "alice-key" }), make({})];
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"] as const) {
      clients[binding] = { keyed: keyed[binding], bare: bare[binding] };
    }
  });
  afterAll(() => {
    http?.closeAllConnections();
    http?.close();
    grpc?.close();
  });

  const failure = (call: () => Promise<unknown>) =>
    call().then(
      () => undefined,
      (e: unknown) => e,
    );
  const take = () => log.splice(0, log.length);

  describe.each(["JSONRPC", "HTTP+JSON", "GRPC"])("over %s", (binding) => {
    it("logs the A2A error a handler answers with once; the client gets it unchanged", async () => {
      take();
      const e = await failure(() => clients[binding]!.keyed.cancelTask({ id: "t1" }));
      expect(e).toBeInstanceOf(A2AError);
      expect(e).toMatchObject({ type: "TaskNotFoundError", message: "Task t1 not found" });
      expect(take()).toEqual(["handler error in CancelTask: TaskNotFoundError: Task t1 not found"]);
    });

    it("logs an authentication refusal, as it runs outside authenticate", async () => {
      take();
      const e = await failure(() => clients[binding]!.bare.cancelTask({ id: "t1" }));
      expect(e).toMatchObject({ type: "UnauthenticatedError" });
      const lines = take();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^handler error in CancelTask: UnauthenticatedError: Authentication required: /);
    });

    it("logs an A2A error thrown while a stream is read, after the events before it reached the client", async () => {
      take();
      const events: unknown[] = [];
      const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "x" } }] };
      const e = await failure(async () => {
        for await (const event of clients[binding]!.keyed.sendStreamingMessage({ message })) events.push(event);
      });
      expect(events).toHaveLength(1);
      expect(e).toMatchObject({ type: "UnsupportedOperationError", message: "late in the stream" });
      expect(take()).toEqual(["handler error in SendStreamingMessage: UnsupportedOperationError: late in the stream"]);
    });

    it("leaves the failures that are not A2A errors to onError", async () => {
      take();
      reported.length = 0;
      const e = await failure(() => clients[binding]!.keyed.getTask({ id: "t1" }));
      expect(e).toMatchObject({ type: "InternalError" });
      expect(take()).toEqual([]);
      expect(reported).toEqual([boom]);
    });
  });
});
