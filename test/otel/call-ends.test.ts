/**
 * A server stream whose client leaves is one that the client ended (otel/server-interceptor.ts "left",
 * core/log-interceptor.ts "when"): the server span ends when the call's signal aborts, with error.type
 * "Canceled" (gRPC CANCELLED, the HTTP status the answer went out with) and no status ERROR, and the call log
 * writes "Canceled" at level info. Then and there: also when the handler never gives its stream another event.
 * And an error is a server fault on every binding alike (core/call-outcome.ts): InvalidAgentResponseError, which
 * HTTP+JSON answers with 500, is status ERROR and a record at level error on JSON-RPC too.
 * On JSON-RPC, HTTP+JSON and gRPC, against real servers on 127.0.0.1, read with OpenTelemetry's SDK.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, type CallLogRecord, jsonLines, logCalls, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { otelServerInterceptor } from "@protoc-gen-a2a/runtime/otel";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type A2AServiceClient,
  type A2AServiceHandler,
  createA2AServiceHttpHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { type OtelMemory, startOtelMemory } from "../helpers/otel-memory.js";

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
const LEFT_CODE: Record<Binding, [string, number] | undefined> = {
  JSONRPC: undefined,
  "HTTP+JSON": ["http.response.status_code", 200],
  GRPC: ["rpc.grpc.status_code", 1],
};

/** A task that works for good: "honors-…" ends its stream when the call's signal aborts, "ignores-…" never. */
const handler: A2AServiceHandler = {
  getTask: async ({ id }) => {
    throw new A2AError("InvalidAgentResponseError", `the agent answered nonsense for ${id}`);
  },
  async *subscribeToTask({ id }, context) {
    yield { payload: { case: "task", value: { id, contextId: "c", status: { state: TaskState.WORKING } } } };
    const { signal } = context;
    if (id.startsWith("honors")) await new Promise((resolve) => signal.addEventListener("abort", resolve));
    else await new Promise(() => {});
  },
};

let otel: OtelMemory;
const records: (CallLogRecord & { readonly level: string })[] = [];
let http: Server;
let grpc: Http2Server;
const sessions = new Set<ServerHttp2Session>();
const urls = { JSONRPC: "", "HTTP+JSON": "", GRPC: "" };

beforeAll(async () => {
  otel = startOtelMemory();
  const interceptors = [
    otelServerInterceptor({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
    logCalls(jsonLines((line) => void records.push(JSON.parse(line) as CallLogRecord & { level: string }))),
  ];
  http = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler, interceptors, jsonrpcPath: "/rpc" })));
  const routes = a2aServiceGrpcRoutes({ handler, interceptors });
  grpc = createHttp2Server(connectNodeAdapter({ routes, grpc: true, connect: false }));
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  const listen = (s: Server | Http2Server) =>
    new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));
  const [port, grpcPort] = [await listen(http), await listen(grpc)];
  Object.assign(urls, {
    JSONRPC: `http://127.0.0.1:${port}/rpc`,
    "HTTP+JSON": `http://127.0.0.1:${port}/rest`,
    GRPC: `http://127.0.0.1:${grpcPort}`,
  });
});

afterAll(async () => {
  http?.closeAllConnections();
  http?.close();
  for (const s of sessions) s.destroy();
  grpc?.close();
  await otel?.shutdown();
});

function clientFor(binding: Binding): A2AServiceClient {
  if (binding === "JSONRPC") return createA2AServiceJsonRpcClient({ url: urls.JSONRPC });
  if (binding === "HTTP+JSON") return createA2AServiceRestClient({ url: urls["HTTP+JSON"] });
  return createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: urls.GRPC }), { url: urls.GRPC });
}

/** Subscribes, reads the first event, and leaves. */
async function leave(binding: Binding, id: string): Promise<void> {
  const abort = new AbortController();
  const events = clientFor(binding).subscribeToTask({ id }, { signal: abort.signal });
  for await (const event of events) {
    expect(event.payload.case).toBe("task");
    abort.abort();
    break;
  }
}

describe.each(BINDINGS)("%s", (binding) => {
  it.each(["honors", "ignores"])("a client leaving a stream whose handler %s the signal: Canceled", async (how) => {
    const id = `${how}-${binding}`;
    await leave(binding, id);
    const span = await vi.waitFor(
      () => {
        const found = otel.spans().find((s) => s.kind === 1 && s.attributes["a2a.task.id"] === id);
        if (!found) throw new Error(`the span of ${id} has not ended`);
        return found;
      },
      { timeout: 5000 },
    );
    expect(span.status.code).toBe(0); // UNSET: the client ended the call, no server fault
    expect(span.attributes["error.type"]).toBe("Canceled");
    const code = LEFT_CODE[binding];
    if (code) expect(span.attributes[code[0]]).toBe(code[1]);
    const log = await vi.waitFor(
      () => {
        const found = records.filter((r) => r.taskId === id);
        if (found.length === 0) throw new Error(`no record of ${id}`);
        return found;
      },
      { timeout: 5000 },
    );
    expect(log.map((r) => [r.level, r.status])).toEqual([["info", "Canceled"]]);
    const durations = (await otel.metrics()).get("rpc.server.call.duration") ?? [];
    expect(durations.some((p) => p.attributes["error.type"] === "InternalError")).toBe(false);
  });

  it("counts InvalidAgentResponseError as a server fault, as the other bindings do", async () => {
    const id = `invalid-${binding}`;
    await expect(clientFor(binding).getTask({ id })).rejects.toThrow();
    const span = otel.spans().find((s) => s.kind === 1 && s.attributes["a2a.task.id"] === id);
    expect([span?.status.code, span?.attributes["error.type"]]).toEqual([2, "InvalidAgentResponseError"]);
    const log = records.filter((r) => r.taskId === id);
    expect(log.map((r) => [r.level, r.status])).toEqual([["error", "InvalidAgentResponseError"]]);
  });
});
