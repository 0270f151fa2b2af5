/**
 * The example agent with OTEL_EXPORTER_OTLP_ENDPOINT set exports OTLP over
 * HTTP as JSON to a receiver in the test, and with LOG_FORMAT=json writes a
 * JSON line per call. A client in the test (otelClientInterceptor on an
 * in-memory SDK) sends a message with a push config: the client's trace id
 * reaches the agent's server span, its turn span and its push attempt span
 * (all exported, under OTEL_SERVICE_NAME), the webhook request's traceparent
 * and the call's log line; the metrics export has the call durations.
 * A protocol the example does not ship ends it at start with one line.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { otelClientInterceptor } from "@protoc-gen-a2a/runtime/otel";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { spawnSync } from "node:child_process";
import {
  EXAMPLE_MAIN,
  type ExampleProcess,
  startExampleProcess,
  stopAllExampleProcesses,
} from "../helpers/example-process.js";
import { type OtelMemory, startOtelMemory } from "../helpers/otel-memory.js";

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
}

interface Received {
  readonly spans: OtlpSpan[];
  readonly services: Set<string>;
  readonly metrics: Set<string>;
  readonly webhook: string[];
}

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** OTLP/JSON ids are hex; a base64 one (protobuf JSON mapping) is turned into hex. */
const hex = (id: unknown) => {
  const s = String(id ?? "");
  return /^[0-9a-f]*$/.test(s) ? s : Buffer.from(s, "base64").toString("hex");
};

function collect(path: string, body: Json, into: Received): void {
  if (path === "/v1/traces") {
    for (const rs of list(body["resourceSpans"])) {
      const resource = (rs["resource"] ?? {}) as Json;
      for (const a of list(resource["attributes"])) {
        if (a["key"] === "service.name") into.services.add(String((a["value"] as Json)["stringValue"]));
      }
      for (const ss of list(rs["scopeSpans"])) {
        for (const s of list(ss["spans"])) {
          into.spans.push({
            traceId: hex(s["traceId"]),
            spanId: hex(s["spanId"]),
            parentSpanId: hex(s["parentSpanId"]),
            name: String(s["name"]),
            kind: Number(s["kind"]),
          });
        }
      }
    }
  }
  if (path === "/v1/metrics") {
    for (const rm of list(body["resourceMetrics"])) {
      for (const sm of list(rm["scopeMetrics"]))
        for (const m of list(sm["metrics"])) into.metrics.add(String(m["name"]));
    }
  }
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => resolve(body));
  });

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

const received: Received = { spans: [], services: new Set(), metrics: new Set(), webhook: [] };
const contentTypes = new Set<string>();
let receiver: Server;
let webhook: Server;
let endpoint: string;
let webhookUrl: string;
let agent: ExampleProcess;
let otel: OtelMemory;

beforeAll(async () => {
  otel = startOtelMemory();
  receiver = createServer(async (req, res) => {
    contentTypes.add(String(req.headers["content-type"]));
    const body = await readBody(req);
    collect(req.url ?? "", JSON.parse(body) as Json, received);
    res.setHeader("content-type", "application/json");
    res.end("{}");
  });
  webhook = createServer(async (req, res) => {
    await readBody(req);
    received.webhook.push(String(req.headers.traceparent ?? ""));
    res.end();
  });
  endpoint = `http://127.0.0.1:${await listen(receiver)}`;
  webhookUrl = `http://127.0.0.1:${await listen(webhook)}/hook`;
  agent = await startExampleProcess({
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "echo-under-test",
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    LOG_FORMAT: "json",
  });
});

afterAll(async () => {
  await stopAllExampleProcesses();
  receiver?.closeAllConnections();
  webhook?.closeAllConnections();
  await Promise.all([receiver, webhook].map((s) => new Promise((r) => s?.close(r))));
  await otel?.shutdown();
});

describe("the example agent with OTLP/HTTP JSON export", () => {
  it("carries the client's trace id to the server, turn and push spans, the webhook and the log line", async () => {
    const client = createA2AServiceJsonRpcClient({
      url: agent.urls.jsonrpc,
      interceptors: [otelClientInterceptor({ tracerProvider: otel.tracerProvider })],
    });
    await client.sendMessage({
      message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] },
      configuration: { taskPushNotificationConfig: { url: webhookUrl, token: "t" } },
    });
    const clientSpan = otel.spans().find((s) => s.kind === 2)!;
    const traceId = clientSpan.spanContext().traceId;
    const names = () => received.spans.filter((s) => s.traceId === traceId).map((s) => s.name);
    await vi.waitFor(() => expect(names()).toEqual(expect.arrayContaining(["a2a.turn SendMessage", "a2a.push POST"])), {
      timeout: 20_000,
      interval: 50,
    });
    const spans = received.spans.filter((s) => s.traceId === traceId);
    const server = spans.find((s) => s.name === "lf.a2a.v1.A2AService/SendMessage")!;
    expect(server.kind).toBe(2); // SPAN_KIND_SERVER
    expect(server.parentSpanId).toBe(clientSpan.spanContext().spanId);
    const turn = spans.find((s) => s.name === "a2a.turn SendMessage")!;
    expect(turn.parentSpanId).toBe(server.spanId);
    const push = spans.find((s) => s.name === "a2a.push POST")!;
    expect(push.parentSpanId).toBe(turn.spanId);
    expect(received.webhook.map((t) => t.split("-")[1])).toContain(traceId);
    expect(received.services).toEqual(new Set(["echo-under-test"]));
    expect([...contentTypes]).toEqual(["application/json"]);
    const logLine = agent
      .out()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Json)
      .find((r) => r["traceId"] === traceId);
    expect(logLine).toMatchObject({ msg: "a2a call", operation: "SendMessage", status: "OK", spanId: server.spanId });
    await vi.waitFor(
      () =>
        expect([...received.metrics]).toEqual(
          expect.arrayContaining(["rpc.server.call.duration", "a2a.store.operation.duration"]),
        ),
      { timeout: 20_000, interval: 50 },
    );
  });

  it("refuses a protocol it does not ship, in one line", () => {
    const env = {
      ...process.env,
      PORT: "0",
      GRPC_PORT: "0",
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    };
    const run = spawnSync(process.execPath, [EXAMPLE_MAIN], { env, encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      'echo agent: OTEL_EXPORTER_OTLP_PROTOCOL="grpc": the example exports OTLP over HTTP as JSON only; set http/json\n',
    );
  });
});
