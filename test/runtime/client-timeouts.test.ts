/**
 * A client's timeout and signals together (http/client-http.ts, callSignal), on JSON-RPC, HTTP+JSON and gRPC,
 * against a v1.0 server whose GetTask answers after the time its task id asks for ("wait-<ms>"), or never.
 * A call given both a timeout and a signal (its own or the client's) ends at the timeout while the garbage
 * collector runs, as a timeout alone does: AbortSignal.any over AbortSignal.timeout held the timeout weakly,
 * and on Node 20 it was collected and the call waited for ever. A call's own timeoutMs replaces the client's,
 * longer or shorter; an interceptor that passes the binding a signal of its own does not lift them; and a
 * stream the caller drops unfinished leaves no listener on the client's or the call's long-lived signal. Each
 * wait is bounded by a watchdog that fails the test.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { create } from "@bufbuild/protobuf";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2ATransportError, type CallOptions, type ClientInterceptor, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v10 from "../../generated-samples/v1.0.1/a2a_a2a.js";
import * as v10grpc from "../../generated-samples/v1.0.1/a2a_grpc.js";
import * as v10rpc from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { TaskSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import * as v10rest from "../../generated-samples/v1.0.1/a2a_rest.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const handler: v10.A2AServiceHandler = {
  async *subscribeToTask(request, context) {
    yield { payload: { case: "task", value: create(TaskSchema, { id: request.id, contextId: "c" }) } };
    await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
  },
  async getTask(request, context) {
    const wait = /^wait-(\d+)$/.exec(request.id);
    await new Promise<void>((resolve) => {
      const timer = wait ? setTimeout(resolve, Number(wait[1])) : undefined;
      context.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return create(TaskSchema, { id: request.id, contextId: "c" });
  },
};

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
interface ClientOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}
type GetTask = (request: { id: string }, call?: CallOptions) => Promise<{ id: string }>;

const servers: (Server | Http2Server)[] = [];
const sessions: ServerHttp2Session[] = [];
let urls: Record<Binding, string>;

const listen = async (server: Server | Http2Server) => {
  servers.push(server);
  if (!("closeAllConnections" in server)) server.on("session", (s: ServerHttp2Session) => sessions.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  const onError = () => {};
  const http = await listen(createServer(nodeHttpListener(v10.createA2AServiceHttpHandler({ handler, onError }))));
  const grpc = await listen(
    createHttp2Server(connectNodeAdapter({ routes: v10grpc.a2aServiceGrpcRoutes({ handler, onError }), grpc: true })),
  );
  urls = { JSONRPC: `${http}/jsonrpc`, "HTTP+JSON": `${http}/rest`, GRPC: grpc };
});

afterAll(async () => {
  for (const s of sessions) s.destroy();
  for (const s of servers) {
    if ("closeAllConnections" in s) s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

function getTaskOf(binding: Binding, options: ClientOptions): GetTask {
  const url = urls[binding];
  if (binding === "JSONRPC") return v10rpc.createA2AServiceJsonRpcClient({ url, ...options }).getTask;
  if (binding === "HTTP+JSON") return v10rest.createA2AServiceRestClient({ url, ...options }).getTask;
  return v10grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: url }), { url, ...options }).getTask;
}

/** How the call ended: its id, or its error; "still pending" after 10 s. Collects garbage all along unless told. */
async function outcome(call: () => Promise<{ id: string }>, collect = true): Promise<string | unknown> {
  const collecting = collect ? setInterval(gc, 5) : undefined;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      call().then(
        (task) => task.id,
        (e: unknown) => e,
      ),
      new Promise((resolve) => (watchdog = setTimeout(() => resolve("still pending after 10 s"), 10_000))),
    ]);
  } finally {
    clearInterval(collecting);
    clearTimeout(watchdog);
  }
}

/** Whether an error is the client's timeout: a transport error caused by a TimeoutError, or gRPC's deadline. */
function timedOut(error: unknown): boolean {
  if (!(error instanceof A2ATransportError)) return false;
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e.name === "TimeoutError" || /timed out|due to timeout|deadline/i.test(e.message)) return true;
  }
  return false;
}

describe.each(BINDINGS)("%s client timeouts", (binding) => {
  it("ends at the client's timeoutMs when the call also has a signal of its own", async () => {
    const getTask = getTaskOf(binding, { timeoutMs: 300 });
    const never = new AbortController();
    const result = await outcome(() => getTask({ id: "never" }, { signal: never.signal }));
    expect(timedOut(result), String(result)).toBe(true);
  });

  it("ends at the call's timeoutMs when the client has a signal", async () => {
    const getTask = getTaskOf(binding, { signal: new AbortController().signal });
    const result = await outcome(() => getTask({ id: "never" }, { timeoutMs: 300 }));
    expect(timedOut(result), String(result)).toBe(true);
  });

  it("waits for a call's timeoutMs longer than the client's", async () => {
    const getTask = getTaskOf(binding, { timeoutMs: 200 });
    // No garbage collected here: a collected timer of the client's would hide one that fires too soon.
    expect(await outcome(() => getTask({ id: "wait-600" }, { timeoutMs: 10_000 }), false)).toBe("wait-600");
  });

  it("ends at a call's timeoutMs shorter than the client's", async () => {
    const getTask = getTaskOf(binding, { timeoutMs: 60_000 });
    const result = await outcome(() => getTask({ id: "never" }, { timeoutMs: 300 }));
    expect(timedOut(result), String(result)).toBe(true);
  });

  it("ends when the call's signal aborts, with the client's timeout set", async () => {
    const getTask = getTaskOf(binding, { timeoutMs: 60_000 });
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error("stopped by the caller")), 200);
    const result = await outcome(() => getTask({ id: "never" }, { signal: stop.signal }));
    expect(result).toBeInstanceOf(A2ATransportError);
    expect(timedOut(result), String(result)).toBe(false);
  });
});

describe.each(BINDINGS)("%s client signals", (binding) => {
  it("end the call at the timeout though an interceptor passes on a signal of its own", async () => {
    const own: ClientInterceptor = (next) => (call) => next({ ...call, signal: new AbortController().signal });
    const url = urls[binding];
    const options = { url, timeoutMs: 300, interceptors: [own] };
    const getTask: GetTask =
      binding === "JSONRPC"
        ? v10rpc.createA2AServiceJsonRpcClient(options).getTask
        : binding === "HTTP+JSON"
          ? v10rest.createA2AServiceRestClient(options).getTask
          : v10grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: url }), options).getTask;
    const result = await outcome(() => getTask({ id: "never" }), false);
    expect(timedOut(result), String(result)).toBe(true);
  });

  it("leave no listener on long-lived signals when the caller drops streams unfinished", async () => {
    const clientWide = new AbortController();
    const appWide = new AbortController();
    const url = urls[binding];
    const options = { url, signal: clientWide.signal, timeoutMs: 60_000 };
    const client =
      binding === "JSONRPC"
        ? v10rpc.createA2AServiceJsonRpcClient(options)
        : binding === "HTTP+JSON"
          ? v10rest.createA2AServiceRestClient(options)
          : v10grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: url }), options);
    for (let i = 0; i < 20; i++) {
      const events = client.subscribeToTask({ id: `t${i}` }, { signal: appWide.signal })[Symbol.asyncIterator]();
      await events.next();
    }
    const listeners = [clientWide.signal, appWide.signal].map((s) => getEventListeners(s, "abort").length);
    expect(listeners).toEqual([0, 0]);
    clientWide.abort();
  });
});
