/**
 * Traces across instances sharing PostgreSQL: a task created through agent A
 * (in one trace) and canceled through agent B (in another) shows both calls,
 * linked to the task's spans. B's CancelTask and GetTask server spans link to
 * A's SendMessage server span, the call that started the task's turn (its
 * traceparent is kept with the task, migration 4); A's turn span hears the
 * cancel B committed (an a2a.task.status CANCELED event) and ends. The
 * PostgreSQL store's operations are timed (a2a.store.operation.duration).
 */
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import { otelClientInterceptor } from "@protoc-gen-a2a/runtime/otel";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WAIT_TEXT } from "../../examples/echo-agent/echo-executor.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type OtelMemory, startOtelMemory } from "../helpers/otel-memory.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { startTracedAgent, type TracedAgent } from "../helpers/traced-agent.js";

let otel: OtelMemory;
const agents: TracedAgent[] = [];
const stores: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  otel = startOtelMemory();
  const schema = uniqueSchema("otel_cross");
  const admin = new pg.Pool({ connectionString: postgresUrl(), max: 1 });
  await migrate(admin, { schema });
  await admin.end();
  const providers = { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider };
  for (let i = 0; i < 2; i++) {
    const store = createPostgresTaskStore({ pool: postgresUrl(), definition: A2AServiceV1_0, schema });
    stores.push(store);
    agents.push(await startTracedAgent(providers, { store }));
  }
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await Promise.all(stores.map((s) => s.close()));
  await otel?.shutdown();
});

/** Runs `work` in a test span of its own; the span's trace id. */
async function inTrace(work: () => Promise<unknown>): Promise<string> {
  return otel.tracerProvider.getTracer("test").startActiveSpan("test", async (span) => {
    try {
      await work();
      return span.spanContext().traceId;
    } finally {
      span.end();
    }
  });
}

const server = (traceId: string, operation: string) =>
  otel
    .spans()
    .find((s) => s.kind === 1 && s.spanContext().traceId === traceId && s.attributes["a2a.operation"] === operation);

describe("a task made on one instance and canceled through another", () => {
  it("links B's calls to the call that started the task on A; A's turn hears the cancel", async () => {
    const [a, b] = agents as [TracedAgent, TracedAgent];
    const interceptors = [otelClientInterceptor({ tracerProvider: otel.tracerProvider })];
    const onA = createA2AServiceJsonRpcClient({ url: a.jsonrpcUrl, interceptors });
    const onB = createA2AServiceRestClient({ url: b.restUrl, interceptors });
    let taskId = "";
    const created = await inTrace(async () => {
      const answer = await onA.sendMessage({
        message: {
          messageId: crypto.randomUUID(),
          role: Role.USER,
          parts: [{ content: { case: "text", value: WAIT_TEXT } }],
        },
        configuration: { returnImmediately: true },
      });
      taskId = answer.payload.case === "task" ? answer.payload.value.id : "";
    });
    await vi.waitFor(async () => expect((await onB.getTask({ id: taskId })).status?.state).toBe(TaskState.WORKING));
    const canceled = await inTrace(() => onB.cancelTask({ id: taskId }));
    const send = server(created, "SendMessage")!;
    const turn = await vi.waitFor(
      () => {
        const t = otel.spans().find((s) => s.name === "a2a.turn SendMessage" && s.spanContext().traceId === created);
        expect(t).toBeDefined();
        return t as ReadableSpan;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(turn.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(turn.events.map((e) => e.attributes?.["a2a.task.state"])).toContain("TASK_STATE_CANCELED");
    const cancel = server(canceled, "CancelTask")!;
    expect(cancel.attributes["a2a.task.id"]).toBe(taskId);
    expect(cancel.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes?.["a2a.link"]])).toEqual([
      [created, send.spanContext().spanId, "task turn"],
    ]);
    expect(created).not.toBe(canceled);
    const store = (await otel.metrics()).get("a2a.store.operation.duration") ?? [];
    expect(store.map((p) => `${p.attributes["db.system.name"]} ${p.attributes["db.operation.name"]}`)).toEqual(
      expect.arrayContaining(["postgresql get", "postgresql commit"]),
    );
    expect([...a.failures, ...b.failures]).toEqual([]);
  });
});
