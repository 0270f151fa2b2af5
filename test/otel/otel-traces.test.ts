/**
 * What @protoc-gen-a2a/runtime/otel produces, read from OpenTelemetry's SDK
 * with in-memory exporters (helpers/otel-memory.ts), on the echo agent served
 * over JSON-RPC, HTTP+JSON and gRPC at A2A 1.0 and 0.3 (helpers/traced-agent.ts),
 * called by clients with otelClientInterceptor inside a test span:
 *
 *   send      test span → client span (CLIENT) → server span (SERVER, the
 *             client's traceparent read from headers or metadata) → turn span
 *             (INTERNAL, with a2a.task.status and a2a.task.artifact events);
 *             the RPC/HTTP attributes of the binding, the A2A operation,
 *             version, task and context ids
 *   stream    the server span carries the stream's events and ends with it
 *   error     GetTask of a missing task: error.type TaskNotFoundError and
 *             the binding's code on both sides; ERROR status on the client
 *             span, not on the server span (the caller's fault)
 *   push      a delivery's attempt span is a child of the turn span; the
 *             webhook request carries its traceparent, in the client's trace
 *   log       one record per call with the server span's trace and span ids
 *   metrics   call durations (server and client) per operation and outcome,
 *             running turns, push deliveries, store operation durations
 */
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { otelClientInterceptor } from "@protoc-gen-a2a/runtime/otel";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clientForOlder } from "../../generated-samples/a2a_compat.js";
import { createA2AServiceGrpcClient as grpc03 } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { createA2AServiceJsonRpcClient as jsonrpc03 } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { createA2AServiceRestClient as rest03 } from "../../generated-samples/v0.3.0/a2a_rest.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceGrpcClient as grpc10 } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient as jsonrpc10 } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient as rest10 } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type OtelMemory, parentOf, startOtelMemory } from "../helpers/otel-memory.js";
import { startTracedAgent, type TracedAgent } from "../helpers/traced-agent.js";

const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const;
const VERSIONS = ["1.0", "0.3"] as const;
type Binding = (typeof BINDINGS)[number];
type Version = (typeof VERSIONS)[number];
const WAYS = VERSIONS.flatMap((version) => BINDINGS.map((binding) => ({ binding, version })));

const SERVICES: Record<Version, string> = { "1.0": "lf.a2a.v1.A2AService", "0.3": "a2a.v1.A2AService" };
const RPC_SYSTEMS: Record<Binding, string> = { JSONRPC: "jsonrpc", "HTTP+JSON": "http", GRPC: "grpc" };
/** v0.3's JSON-RPC method names; every other binding and version names the RPC. */
const V03_JSONRPC: Record<string, string> = { SendMessage: "message/send", SendStreamingMessage: "message/stream" };
const methodOf = (binding: Binding, version: Version, rpc: string) =>
  binding === "JSONRPC" && version === "0.3" ? V03_JSONRPC[rpc]! : rpc;
/** TaskNotFoundError's code on each binding. */
const NOT_FOUND: Record<Binding, [string, number]> = {
  JSONRPC: ["rpc.jsonrpc.error_code", -32001],
  "HTTP+JSON": ["http.response.status_code", 404],
  GRPC: ["rpc.grpc.status_code", 5],
};

const text = (t: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
});

let otel: OtelMemory;
let agent: TracedAgent;

function clientFor(binding: Binding, version: Version): A2AServiceClient {
  const options = { interceptors: [otelClientInterceptor(otel)] };
  const transport = () => createGrpcTransport({ baseUrl: agent.grpcUrl });
  if (version === "1.0") {
    if (binding === "JSONRPC") return jsonrpc10({ url: agent.jsonrpcUrl, ...options });
    if (binding === "HTTP+JSON") return rest10({ url: agent.restUrl, ...options });
    return grpc10(transport(), options);
  }
  if (binding === "JSONRPC") return clientForOlder(jsonrpc03({ url: agent.jsonrpcUrl, ...options }));
  if (binding === "HTTP+JSON") return clientForOlder(rest03({ url: agent.restUrl, ...options }));
  return clientForOlder(grpc03(transport(), options));
}

/** Runs `work` inside an active test span; returns its result and the test span's trace id. */
async function traced<T>(work: () => Promise<T>): Promise<{ result: T; traceId: string; rootId: string }> {
  const tracer = otel.tracerProvider.getTracer("test");
  return tracer.startActiveSpan("test", async (span) => {
    try {
      const result = await work();
      return { result, traceId: span.spanContext().traceId, rootId: span.spanContext().spanId };
    } finally {
      span.end();
    }
  });
}

const byKind = (spans: readonly ReadableSpan[], kind: number) => spans.filter((s) => s.kind === kind);
const childrenOf = (spans: readonly ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((s) => parentOf(s) === parent.spanContext().spanId);
const eventNames = (span: ReadableSpan) =>
  span.events.map((e) => `${e.name} ${e.attributes?.["a2a.task.state"] ?? ""}`.trim());

/** Waits until the spans satisfy `done` (turn spans end after the answer), at most 5 s. */
async function spansWhen(done: (spans: readonly ReadableSpan[]) => boolean): Promise<readonly ReadableSpan[]> {
  for (let i = 0; i < 250 && !done(otel.spans()); i++) await new Promise((r) => setTimeout(r, 20));
  return otel.spans();
}

beforeAll(async () => {
  otel = startOtelMemory();
  agent = await startTracedAgent({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
});

afterAll(async () => {
  await agent?.close();
  await otel?.shutdown();
});

beforeEach(() => otel.reset());

describe.each(WAYS)("$binding $version", ({ binding, version }) => {
  const service = SERVICES[version];

  it("SendMessage: test span → client → server → turn, with the binding's attributes and the task's events", async () => {
    const client = clientFor(binding, version);
    const { result, traceId, rootId } = await traced(() => client.sendMessage({ message: text("hello") }));
    const task = result.payload.case === "task" ? result.payload.value : undefined;
    expect(task?.status?.state).toBe(TaskState.COMPLETED);
    const spans = await spansWhen((s) => s.some((x) => x.name === "a2a.turn SendMessage"));
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const [clientSpan] = byKind(inTrace, 2); // CLIENT
    const [serverSpan] = byKind(inTrace, 1); // SERVER
    const turn = inTrace.find((s) => s.name === "a2a.turn SendMessage");
    expect(parentOf(clientSpan!)).toBe(rootId);
    expect(parentOf(serverSpan!)).toBe(clientSpan!.spanContext().spanId);
    expect(parentOf(turn!)).toBe(serverSpan!.spanContext().spanId);
    const method = methodOf(binding, version, "SendMessage");
    expect(serverSpan!.name).toBe(`${service}/${method}`);
    expect(serverSpan!.attributes).toMatchObject({
      "rpc.system": RPC_SYSTEMS[binding],
      "rpc.service": service,
      "rpc.method": method,
      "a2a.operation": "SendMessage",
      "a2a.protocol.version": version,
      "a2a.task.id": task!.id,
      "a2a.context.id": task!.contextId,
      ...(binding === "GRPC" ? { "rpc.grpc.status_code": 0 } : {}),
      ...(binding === "HTTP+JSON" ? { "http.response.status_code": 200, "http.request.method": "POST" } : {}),
      ...(binding === "JSONRPC" ? { "rpc.jsonrpc.version": "2.0" } : {}),
    });
    expect(clientSpan!.attributes).toMatchObject({ "rpc.method": method, "a2a.task.id": task!.id });
    expect(turn!.attributes).toMatchObject({ "a2a.task.id": task!.id, "a2a.protocol.version": version });
    expect(eventNames(turn!)).toEqual(
      expect.arrayContaining([
        "a2a.task.status TASK_STATE_SUBMITTED",
        "a2a.task.status TASK_STATE_WORKING",
        "a2a.task.artifact",
        "a2a.task.status TASK_STATE_COMPLETED",
      ]),
    );
    const log = agent.records.filter((r) => r.record.traceId === traceId);
    expect(log.map((r) => [r.level, r.record.operation, r.record.status, r.record.spanId])).toEqual([
      ["info", "SendMessage", "OK", serverSpan!.spanContext().spanId],
    ]);
    expect(log[0]!.record).toMatchObject({ binding, protocolVersion: version, taskId: task!.id });
  });

  it("SendStreamingMessage: the server span carries the stream's events and ends with it", async () => {
    const client = clientFor(binding, version);
    const { result, traceId } = await traced(async () => {
      const events = [];
      for await (const e of client.sendStreamingMessage({ message: text("stream me") })) events.push(e);
      return events;
    });
    expect(result.at(-1)?.payload.case).toBe("statusUpdate");
    const spans = await spansWhen((s) => s.some((x) => x.name === "a2a.turn SendStreamingMessage"));
    const serverSpan = byKind(
      spans.filter((s) => s.spanContext().traceId === traceId),
      1,
    )[0]!;
    expect(serverSpan.attributes["a2a.operation"]).toBe("SendStreamingMessage");
    expect(serverSpan.attributes["rpc.method"]).toBe(methodOf(binding, version, "SendStreamingMessage"));
    expect(eventNames(serverSpan)).toEqual(
      expect.arrayContaining([
        "a2a.task.status TASK_STATE_WORKING",
        "a2a.task.artifact",
        "a2a.task.status TASK_STATE_COMPLETED",
      ]),
    );
    expect(childrenOf(spans, serverSpan).map((s) => s.name)).toEqual(["a2a.turn SendStreamingMessage"]);
  });

  it("GetTask of a missing task: the error's type and code on both sides", async () => {
    const client = clientFor(binding, version);
    const id = crypto.randomUUID();
    const { result, traceId } = await traced(() =>
      client.getTask({ id }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(result).toBeInstanceOf(A2AError);
    const spans = otel.spans().filter((s) => s.spanContext().traceId === traceId);
    const clientSpan = byKind(spans, 2)[0]!;
    const serverSpan = byKind(spans, 1)[0]!;
    const [codeName, code] = NOT_FOUND[binding];
    expect(serverSpan.attributes).toMatchObject({
      "error.type": "TaskNotFoundError",
      [codeName]: code,
      "a2a.task.id": id,
    });
    expect(serverSpan.status.code).toBe(0); // UNSET: the caller's fault
    expect(serverSpan.events.map((e) => e.name)).toContain("exception");
    expect(clientSpan.attributes["error.type"]).toBe("TaskNotFoundError");
    expect(clientSpan.status.code).toBe(2); // ERROR
    const log = agent.records.filter((r) => r.record.traceId === traceId);
    expect(log.map((r) => [r.level, r.record.status, r.record.code])).toEqual([["info", "TaskNotFoundError", code]]);
  });

  it("a push: the attempt span is the turn's child and the webhook gets its traceparent", async () => {
    const client = clientFor(binding, version);
    const before = agent.deliveries.length;
    // A webhook's signature in its query: the span shows the query's names only.
    const url = `${agent.webhookUrl}/${binding}-${version}?sig=s3cret`;
    const { traceId } = await traced(() =>
      client.sendMessage({
        message: text("push me"),
        configuration: { taskPushNotificationConfig: { url, token: "t" } },
      }),
    );
    await agent.pushesDone();
    const spans = await spansWhen((s) => s.filter((x) => x.name === "a2a.push POST").length >= 1);
    const turn = spans.find((s) => s.name === "a2a.turn SendMessage" && s.spanContext().traceId === traceId)!;
    const attempts = childrenOf(spans, turn).filter((s) => s.name === "a2a.push POST");
    expect(attempts.length).toBeGreaterThanOrEqual(1);
    expect(attempts[0]!.attributes).toMatchObject({
      "http.response.status_code": 200,
      "a2a.push.attempt": 1,
      "url.full": `${agent.webhookUrl}/${binding}-${version}?sig=REDACTED`,
    });
    const sent = agent.deliveries.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    const ids = attempts.map((a) => a.spanContext().spanId);
    for (const traceparent of sent) {
      const [, trace, span] = traceparent.split("-");
      expect(trace).toBe(traceId);
      expect(ids).toContain(span);
    }
  });
});

describe("a webhook that fails", () => {
  it("gets an attempt span per try with its status, and counts the delivery failed", async () => {
    const client = clientFor("HTTP+JSON", "1.0");
    const url = `${agent.webhookUrl}/fail`;
    const { traceId } = await traced(() =>
      client.sendMessage({ message: text("push and fail"), configuration: { taskPushNotificationConfig: { url } } }),
    );
    await agent.pushesDone();
    const attempts = otel
      .spans()
      .filter((s) => s.name === "a2a.push POST" && s.spanContext().traceId === traceId)
      .filter((s) => s.attributes["a2a.push.attempt"] !== undefined);
    // Two attempts per update (the agent's sender makes two), each answered 500.
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    for (const a of attempts) {
      expect(a.attributes).toMatchObject({ "http.response.status_code": 500, "error.type": "500" });
      expect(a.status.code).toBe(2);
    }
    expect(new Set(attempts.map((a) => a.attributes["a2a.push.attempt"]))).toEqual(new Set([1, 2]));
    const failed = (await otel.metrics())
      .get("a2a.push.deliveries")
      ?.find((p) => p.attributes["a2a.push.outcome"] === "failed");
    expect(failed?.value).toBeGreaterThan(0);
  });
});

describe("metrics", () => {
  it("call durations per operation and outcome, running turns, push deliveries and store operations", async () => {
    const client = clientFor("JSONRPC", "1.0");
    await client.sendMessage({ message: text("count me") });
    await client.getTask({ id: "no-such-task" }).catch(() => undefined);
    await agent.pushesDone();
    const metrics = await otel.metrics();
    const server = metrics.get("rpc.server.call.duration") ?? [];
    expect(server).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ attributes: expect.objectContaining({ "a2a.operation": "SendMessage" }) }),
        expect.objectContaining({
          attributes: expect.objectContaining({ "a2a.operation": "GetTask", "error.type": "TaskNotFoundError" }),
        }),
      ]),
    );
    const clientCalls = metrics.get("rpc.client.call.duration") ?? [];
    expect(clientCalls.some((p) => p.attributes["error.type"] === "TaskNotFoundError")).toBe(true);
    expect(metrics.get("a2a.tasks.running")?.[0]?.value).toBe(0);
    const delivered = (metrics.get("a2a.push.deliveries") ?? []).find(
      (p) => p.attributes["a2a.push.outcome"] === "delivered",
    );
    expect(delivered?.value).toBeGreaterThan(0);
    const store = metrics.get("a2a.store.operation.duration") ?? [];
    expect(store.map((p) => `${p.attributes["db.system.name"]} ${p.attributes["db.operation.name"]}`)).toEqual(
      expect.arrayContaining(["memory get", "memory update", "memory commit"]),
    );
    expect(agent.failures.filter((f) => !f.includes("/fail"))).toEqual([]);
  });
});
