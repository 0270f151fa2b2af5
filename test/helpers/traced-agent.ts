/**
 * The echo agent traced with the runtime's otel entry, on real servers on
 * 127.0.0.1, for test/otel:
 *
 *   agent     createTaskHandler over the example's echo executor, a memory
 *             store (or the one given), push on (webhooks may reach 127.0.0.1), v0.3 configs
 *             pushed in their own form, telemetry otelTaskTelemetry
 *   servers   one node:http server (card, JSON-RPC at /a2a/jsonrpc,
 *             HTTP+JSON at /a2a/rest; A2A 1.0, and 0.3 through the version
 *             bridge) and one HTTP/2 gRPC server (lf.a2a.v1, and a2a.v1 over
 *             bridgeToOlder); interceptors: otelServerInterceptor, then
 *             logCalls into `records` (or the sink given)
 *   webhook   a node:http server that answers 200 and keeps each delivery's
 *             traceparent header
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toJson } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  type CallLogRecord,
  type CallLogSink,
  grpcFallback,
  type Interceptor,
  logCalls,
  nodeHttpListener,
} from "@protoc-gen-a2a/runtime";
import { otelServerInterceptor, otelTaskTelemetry, type OtelOptions } from "@protoc-gen-a2a/runtime/otel";
import {
  createMemoryTaskStore,
  createPushSender,
  createTaskHandler,
  type TaskStore,
} from "@protoc-gen-a2a/runtime/task";
import { echoExecutor } from "../../examples/echo-agent/echo-executor.js";
import {
  bridgeToOlder,
  dualVersionHttpHandler,
  olderPushPayloads,
  toOlderJson,
} from "../../generated-samples/a2a_compat.js";
import { A2AServiceV0_3 } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes as a2aServiceGrpcRoutes03 } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { type AgentCard, AgentCardSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

export interface TracedAgent {
  readonly jsonrpcUrl: string;
  readonly restUrl: string;
  readonly grpcUrl: string;
  readonly webhookUrl: string;
  /** Each webhook delivery's traceparent header ("" when it had none), in arrival order. */
  readonly deliveries: readonly string[];
  /** The call log's records, in order. */
  readonly records: readonly { level: "info" | "error"; record: CallLogRecord }[];
  /** Failures that are no A2A errors. */
  readonly failures: readonly string[];
  /** Resolves once every push started so far has ended. */
  pushesDone(): Promise<void>;
  close(): Promise<void>;
}

const listen = (server: Server | Http2Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

const closeServer = (server: Server | Http2Server) => new Promise<void>((resolve) => server.close(() => resolve()));

function card(urls: { jsonrpc: string; rest: string; grpc: string }): AgentCard {
  return create(AgentCardSchema, {
    name: "Traced echo agent",
    description: "The echo agent with OpenTelemetry (protoc-gen-a2a tests).",
    version: "1",
    supportedInterfaces: (["1.0", "0.3"] as const).flatMap((protocolVersion) => [
      { url: urls.jsonrpc, protocolBinding: "JSONRPC", protocolVersion },
      { url: urls.rest, protocolBinding: "HTTP+JSON", protocolVersion },
      { url: urls.grpc, protocolBinding: "GRPC", protocolVersion },
    ]),
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes.", tags: ["test"] }],
  });
}

export interface TracedAgentOptions {
  /** Where the call log goes: `records` by default, or this sink (pino, jsonLines). */
  readonly callLog?: CallLogSink;
  /** Where tasks live; default: a memory store of its own. */
  readonly store?: TaskStore;
}

export async function startTracedAgent(otel: OtelOptions, options: TracedAgentOptions = {}): Promise<TracedAgent> {
  const deliveries: string[] = [];
  const failures: string[] = [];
  const records: { level: "info" | "error"; record: CallLogRecord }[] = [];
  const webhook = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      deliveries.push(String(req.headers.traceparent ?? ""));
      res.end();
    });
  });
  const webhookPort = await listen(webhook);
  const sender = createPushSender({
    allowHosts: ["127.0.0.1"],
    attempts: 2,
    initialBackoffMs: 50,
    onError: (e) => void failures.push(`push: ${e.message}`),
  });
  const handler = createTaskHandler({
    definition: A2AServiceV1_0,
    executor: echoExecutor,
    store: options.store ?? createMemoryTaskStore(),
    push: { sender, payload: olderPushPayloads },
    telemetry: otelTaskTelemetry(otel),
    onError: (e) => void failures.push(`task handler: ${String(e)}`),
  });
  const interceptors: Interceptor[] = [
    otelServerInterceptor(otel),
    logCalls(
      options.callLog ?? {
        info: (record) => void records.push({ level: "info", record }),
        error: (record) => void records.push({ level: "error", record }),
      },
    ),
  ];
  let served: AgentCard | undefined;
  const cardOf = () => served ?? card({ jsonrpc: "", rest: "", grpc: "" });
  const onError = (e: unknown) => void failures.push(`server: ${String(e)}`);
  const http = createServer(
    nodeHttpListener(
      dualVersionHttpHandler(handler, {
        jsonrpcPath: "/a2a/jsonrpc",
        restBasePath: "/a2a/rest",
        interceptors,
        onError,
        agentCard: (side) => (side === "newer" ? toJson(AgentCardSchema, cardOf()) : toOlderJson(cardOf()).json),
      }),
    ),
  );
  const routes10 = a2aServiceGrpcRoutes({ handler, interceptors, onError });
  const routes03 = a2aServiceGrpcRoutes03({ handler: bridgeToOlder(handler).handler, interceptors, onError });
  const grpc = createHttp2Server(
    connectNodeAdapter({
      routes: (router) => {
        routes10(router);
        routes03(router);
      },
      grpc: true,
      connect: false,
      grpcWeb: false,
      fallback: grpcFallback([A2AServiceV1_0, A2AServiceV0_3]),
    }),
  );
  const sessions = new Set<ServerHttp2Session>();
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  const base = `http://127.0.0.1:${await listen(http)}`;
  const grpcUrl = `http://127.0.0.1:${await listen(grpc)}`;
  const urls = { jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest`, grpc: grpcUrl };
  served = card(urls);
  return {
    jsonrpcUrl: urls.jsonrpc,
    restUrl: urls.rest,
    grpcUrl,
    webhookUrl: `http://127.0.0.1:${webhookPort}/hook`,
    deliveries,
    records,
    failures,
    pushesDone: () => sender.idle(),
    async close() {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([closeServer(http), closeServer(grpc)]);
      await sender.idle();
      webhook.closeAllConnections();
      await closeServer(webhook);
    },
  };
}
