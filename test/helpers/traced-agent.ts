/**
 * The echo agent traced with the runtime's otel entry, on real servers on
 * 127.0.0.1, for test/otel:
 *
 *   agent     createTaskHandler over the example's echo executor, a memory
 *             store (or the one given), push on (webhooks may reach 127.0.0.1), v0.3 configs
 *             pushed in their own form, telemetry otelTaskTelemetry
 *   servers   dual-servers.ts (JSON-RPC, HTTP+JSON and gRPC, A2A 1.0 and
 *             0.3); interceptors: otelServerInterceptor, then
 *             logCalls into `records` (or the sink given)
 *   webhook   a node:http server that answers 200 (500 to a path ending in
 *             /fail) and keeps each delivery's traceparent header
 */
import { create } from "@bufbuild/protobuf";
import { type CallLogRecord, type CallLogSink, type Interceptor, logCalls } from "@protoc-gen-a2a/runtime";
import { otelServerInterceptor, otelTaskTelemetry, type OtelOptions } from "@protoc-gen-a2a/runtime/otel";
import { createMemoryTaskStore, createTaskHandler, type TaskStore } from "@protoc-gen-a2a/runtime/task";
import { echoExecutor } from "../../examples/echo-agent/echo-executor.js";
import { olderPushPayloads } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { type AgentCard, AgentCardSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { loopbackPushSender, startDualServers, startWebhook } from "./dual-servers.js";

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
  const webhook = await startWebhook((req) => {
    deliveries.push(String(req.headers.traceparent ?? ""));
    // A path ending in /fail answers 500, so a delivery there fails after its attempts.
    return req.url?.endsWith("/fail") ? 500 : 200;
  });
  const sender = loopbackPushSender(failures);
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
  const servers = await startDualServers({ handler, interceptors, onError, card: cardOf });
  const { grpcUrl } = servers;
  const urls = { jsonrpc: servers.jsonrpcUrl, rest: servers.restUrl, grpc: grpcUrl };
  served = card(urls);
  return {
    jsonrpcUrl: urls.jsonrpc,
    restUrl: urls.rest,
    grpcUrl,
    webhookUrl: `${webhook.url}/hook`,
    deliveries,
    records,
    failures,
    pushesDone: () => sender.idle(),
    async close() {
      await servers.close();
      await sender.idle();
      await webhook.close();
    },
  };
}
