/**
 * A server stream whose client leaves is one that the client ended (otel/server-interceptor.ts "left",
 * core/log-interceptor.ts "when"): the server span ends when the call's signal aborts, with error.type
 * "Canceled" (gRPC CANCELLED, the HTTP status the answer went out with) and no status ERROR, and the call log
 * writes "Canceled" at level info. Then and there: also when the handler never gives its stream another event.
 * A gRPC stream past its deadline is no client leaving: "DEADLINE_EXCEEDED" (4), a server fault, as gRPC counts it.
 * A unary gRPC call alike: when its signal aborts before it answers, whatever its handler does after (here: never).
 * And an error is a server fault on every binding alike (core/call-outcome.ts): InvalidAgentResponseError, which
 * HTTP+JSON answers with 500, is status ERROR and a record at level error on JSON-RPC too.
 * On JSON-RPC, HTTP+JSON and gRPC, against real servers on 127.0.0.1, read with OpenTelemetry's SDK.
 */
import { A2AError, type CallLogRecord, jsonLines, logCalls } from "@protoc-gen-a2a/runtime";
import { otelServerInterceptor } from "@protoc-gen-a2a/runtime/otel";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type OtelMemory, startOtelMemory } from "../helpers/otel-memory.js";
import { BINDINGS, type Binding, startV10Agent, type V10Agent, v10ClientOf } from "../helpers/v10-agent.js";
import { connect } from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { GetTaskRequestSchema, SubscribeToTaskRequestSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

const LEFT_CODE: Record<Binding, [string, number] | undefined> = {
  JSONRPC: undefined,
  "HTTP+JSON": ["http.response.status_code", 200],
  GRPC: ["rpc.grpc.status_code", 1],
};

/** The GetTask calls about a "hangs-…" task the handler has received, by id. */
const hanging = new Map<string, () => void>();
const received = (id: string) => new Promise<void>((resolve) => hanging.set(id, resolve));

/**
 * A task that works for good: "honors-…" ends its stream when the call's signal aborts, "ignores-…" never.
 * GetTask of a "hangs-…" task never answers; of any other, it fails with a server fault.
 */
const handler: A2AServiceHandler = {
  getTask: async ({ id }) => {
    if (!id.startsWith("hangs"))
      throw new A2AError("InvalidAgentResponseError", `the agent answered nonsense for ${id}`);
    hanging.get(id)?.();
    return await new Promise(() => {});
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
let agent: V10Agent;

beforeAll(async () => {
  otel = startOtelMemory();
  agent = await startV10Agent(handler, [
    otelServerInterceptor({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
    logCalls(jsonLines((line) => void records.push(JSON.parse(line) as CallLogRecord & { level: string }))),
  ]);
});

afterAll(async () => {
  await agent?.close();
  await otel?.shutdown();
});

const clientFor = (binding: Binding) => v10ClientOf(agent, binding);

/**
 * SubscribeToTask (or GetTask) of task `id` over raw HTTP/2 with grpc-timeout and no timer of the client's own: the
 * grpc-status it ends with.
 */
async function callWithDeadline(base: string, method: "SubscribeToTask" | "GetTask", id: string, timeout: string) {
  const session = connect(base);
  try {
    const schema = method === "GetTask" ? GetTaskRequestSchema : SubscribeToTaskRequestSchema;
    const message = toBinary(schema, create(schema, { id }));
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    frame.set(message, 5);
    const stream = session.request({
      ":method": "POST",
      ":path": `/lf.a2a.v1.A2AService/${method}`,
      "content-type": "application/grpc",
      te: "trailers",
      "grpc-timeout": timeout,
      "a2a-version": "1.0",
    });
    stream.end(frame);
    stream.resume();
    return await new Promise<string>((resolve, reject) => {
      stream.on("trailers", (trailers) => resolve(String(trailers["grpc-status"])));
      stream.on("error", reject);
    });
  } finally {
    session.close();
  }
}

/** The server span of the call about task `id`, once it has ended (at most 5 s). */
const serverSpanOf = (id: string) =>
  vi.waitFor(
    () => {
      const found = otel.spans().find((s) => s.kind === 1 && s.attributes["a2a.task.id"] === id);
      if (!found) throw new Error(`the span of ${id} has not ended`);
      return found;
    },
    { timeout: 5000 },
  );

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
    const span = await serverSpanOf(id);
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

  it.runIf(binding === "GRPC")("a gRPC stream past its deadline: DEADLINE_EXCEEDED, a server fault", async () => {
    // A client that names a deadline and leaves it to the server (connect's own clients also reset the stream
    // at their deadline, which reads as leaving: whichever timer fires first).
    const id = "honors-deadline";
    const status = await callWithDeadline(agent.urls.GRPC, "SubscribeToTask", id, "300m");
    expect(status).toBe("4");
    const span = await serverSpanOf(id);
    expect([span.status.code, span.attributes["error.type"], span.attributes["rpc.grpc.status_code"]]).toEqual([
      2,
      "DEADLINE_EXCEEDED",
      4,
    ]);
    const log = records.filter((r) => r.taskId === id);
    expect(log.map((r) => [r.level, r.status, r.code])).toEqual([["error", "DEADLINE_EXCEEDED", 4]]);
  });

  // On HTTP the unary call's signal is not watched (call-outcome.ts watchesAbort: it would cost every call one).
  it.runIf(binding === "GRPC")("a client leaving a unary gRPC call before its answer: Canceled, then", async () => {
    const id = `hangs-${binding}`;
    const abort = new AbortController();
    const call = clientFor(binding).getTask({ id }, { signal: abort.signal });
    await received(id);
    abort.abort();
    await expect(call).rejects.toThrow();
    const span = await serverSpanOf(id);
    expect(span.status.code).toBe(0);
    expect(span.attributes["error.type"]).toBe("Canceled");
    expect(span.attributes["rpc.grpc.status_code"]).toBe(1);
    const log = await vi.waitFor(() => {
      const found = records.filter((r) => r.taskId === id);
      if (found.length === 0) throw new Error(`no record of ${id}`);
      return found;
    });
    expect(log.map((r) => [r.level, r.status, r.code])).toEqual([["info", "Canceled", 1]]);
  });

  it.runIf(binding === "GRPC")("a unary gRPC call past its deadline: DEADLINE_EXCEEDED, a server fault", async () => {
    const id = "hangs-deadline";
    expect(await callWithDeadline(agent.urls.GRPC, "GetTask", id, "300m")).toBe("4");
    const span = await serverSpanOf(id);
    expect([span.status.code, span.attributes["error.type"], span.attributes["rpc.grpc.status_code"]]).toEqual([
      2,
      "DEADLINE_EXCEEDED",
      4,
    ]);
    const log = records.filter((r) => r.taskId === id);
    expect(log.map((r) => [r.level, r.status, r.code])).toEqual([["error", "DEADLINE_EXCEEDED", 4]]);
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
