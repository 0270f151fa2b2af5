/**
 * The call log (logCalls) written to real sinks: pino's logger, and
 * jsonLines. One JSON line per call with the operation, binding, version,
 * status, code, duration, task id and the server span's trace and span ids;
 * a request's value (a task id holding quotes, a line break, a line
 * separator, a bidi control, C1 controls and a forged record) stays inside its
 * field: the call is one line, which reads back as the value sent; an id is
 * shown to 256 characters, in the log and on the span.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { jsonLines } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type OtelMemory, startOtelMemory } from "../helpers/otel-memory.js";
import { startTracedAgent, type TracedAgent } from "../helpers/traced-agent.js";

const HOSTILE_ID = 'x"\n\u2028\u202e\u0085\u009b\u007f{"level":"error","msg":"forged"}';

let otel: OtelMemory;
const pinoLines: string[] = [];
const jsonLineOut: string[] = [];
let viaPino: TracedAgent;
let viaJson: TracedAgent;

beforeAll(async () => {
  otel = startOtelMemory();
  const providers = { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pinoLines.push(
        ...chunk
          .toString()
          .split("\n")
          .filter((l) => l !== ""),
      );
      done();
    },
  });
  viaPino = await startTracedAgent(providers, { callLog: pino({ base: null }, stream) });
  viaJson = await startTracedAgent(providers, { callLog: jsonLines((line) => void jsonLineOut.push(line)) });
});

afterAll(async () => {
  await Promise.all([viaPino?.close(), viaJson?.close()]);
  await otel?.shutdown();
});

const send = (url: string) =>
  createA2AServiceJsonRpcClient({ url }).sendMessage({
    message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: "log" } }] },
  });

describe("logCalls", () => {
  it("writes one pino line per call, with the server span's ids", async () => {
    const answer = await send(viaPino.jsonrpcUrl);
    const taskId = answer.payload.case === "task" ? answer.payload.value.id : "";
    await createA2AServiceRestClient({ url: viaPino.restUrl })
      .getTask({ id: "missing" })
      .catch(() => undefined);
    const records = pinoLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      level: 30,
      msg: "a2a call",
      operation: "SendMessage",
      binding: "JSONRPC",
      protocolVersion: "1.0",
      status: "OK",
      taskId,
    });
    expect(records[1]).toMatchObject({
      operation: "GetTask",
      binding: "HTTP+JSON",
      status: "TaskNotFoundError",
      code: 404,
    });
    const server = otel.spans().filter((s) => s.kind === 1);
    for (const r of records) {
      expect(typeof r["durationMs"]).toBe("number");
      const span = server.find((s) => s.spanContext().spanId === r["spanId"]);
      expect(span?.spanContext().traceId).toBe(r["traceId"]);
    }
  });

  it("keeps a request's value inside its field: one line that reads back as the value", async () => {
    const before = jsonLineOut.length;
    const error = await createA2AServiceRestClient({ url: viaJson.restUrl })
      .getTask({ id: HOSTILE_ID })
      .catch((e: unknown) => e);
    expect(error).toBeDefined();
    const written = jsonLineOut.slice(before);
    expect(written).toHaveLength(1);
    const line = written[0]!;
    expect(line.endsWith("\n")).toBe(true);
    // Nor a C1 control: U+0085 breaks the line for some readers, U+009B is a terminal escape.
    expect(line.slice(0, -1)).not.toMatch(/[\n\r\u007f-\u009f\u2028\u2029\u202e]/);
    expect(JSON.parse(line)).toMatchObject({ level: "info", taskId: HOSTILE_ID, status: "TaskNotFoundError" });
  });

  it("shows a caller's id to 256 characters, in the log and on the span", async () => {
    const before = jsonLineOut.length;
    otel.reset();
    // In a JSON-RPC body: a URL that long is refused by node:http before any interceptor.
    const id = "i".repeat(100_000);
    await createA2AServiceJsonRpcClient({ url: viaJson.jsonrpcUrl })
      .getTask({ id })
      .catch(() => undefined);
    const [line] = jsonLineOut.slice(before);
    expect((JSON.parse(line!) as { taskId: string }).taskId).toBe(`${"i".repeat(256)}…`);
    expect(line!.length).toBeLessThan(2000);
    const span = otel.spans().find((s) => s.kind === 1);
    expect(span?.attributes["a2a.task.id"]).toBe(`${"i".repeat(256)}…`);
    // A cut never splits a character made of a surrogate pair.
    const emoji = `${"i".repeat(255)}${"😀".repeat(100)}`;
    await createA2AServiceJsonRpcClient({ url: viaJson.jsonrpcUrl })
      .getTask({ id: emoji })
      .catch(() => undefined);
    const last = JSON.parse(jsonLineOut.at(-1)!) as { taskId: string };
    expect(last.taskId).toBe(`${"i".repeat(255)}…`);
  });
});
