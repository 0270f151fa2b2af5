/**
 * Where a turn span ends (packages/runtime/src/task/run.ts): with the
 * executor's last commit, not when execute() returns. An executor may return,
 * or throw, before the updater calls it made have been committed (the group
 * commit, updater.ts); the turn span still carries the events of those calls.
 * After a throw it also carries the FAILED status written for it, then the
 * throw as its error. On the memory store and on PostgreSQL (whose commits
 * take long enough to end after execute() returns), read from OpenTelemetry's
 * SDK with in-memory exporters (helpers/otel-memory.ts).
 */
import { create } from "@bufbuild/protobuf";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { otelTaskTelemetry } from "@protoc-gen-a2a/runtime/otel";
import {
  type AgentExecutor,
  createMemoryTaskStore,
  createTaskHandler,
  TaskState,
  type TaskStore,
} from "@protoc-gen-a2a/runtime/task";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, SendMessageRequestSchema, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type OtelMemory, startOtelMemory } from "../helpers/otel-memory.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { artifact, handlerContext } from "../helpers/task-values.js";

/** The executor's behaviour, by the message's text: its calls are never awaited. */
const executor: AgentExecutor = {
  async execute(ctx, up) {
    const part = ctx.message.parts[0]?.content;
    void up.status(TaskState.WORKING);
    void up.artifact(artifact("a1", "x"));
    if (part?.case === "text" && part.value === "throws") throw new Error("the executor gave up");
    void up.status(TaskState.COMPLETED);
  },
};

type Handler = ReturnType<typeof createTaskHandler<typeof A2AServiceV1_0.service>>;

let otel: OtelMemory;
const errors: unknown[] = [];
const closing: (() => Promise<void>)[] = [];

const send = (handler: Handler, text: string) =>
  handler.sendMessage!(
    create(SendMessageRequestSchema, {
      message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
    }),
    handlerContext(),
  );

/** The one turn span ended so far, waiting for it at most 5 s. */
async function turnSpan(): Promise<ReadableSpan> {
  for (let i = 0; i < 250 && otel.spans().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  const spans = otel.spans().filter((s) => s.name === "a2a.turn SendMessage");
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

const eventNames = (span: ReadableSpan) =>
  span.events.map((e) => `${e.name} ${e.attributes?.["a2a.task.state"] ?? ""}`.trim());

async function postgresStore(): Promise<TaskStore> {
  const schema = uniqueSchema("turnspan");
  const pool = new pg.Pool({ connectionString: postgresUrl(), max: 4 });
  await migrate(pool, { schema });
  const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema });
  closing.push(async () => {
    await store.close();
    await pool.end();
  });
  return store;
}

beforeAll(() => {
  otel = startOtelMemory();
});

afterAll(async () => {
  for (const close of closing) await close();
  await otel?.shutdown();
});

beforeEach(() => {
  otel.reset();
  errors.length = 0;
});

describe.each([
  { name: "memory store", open: async () => createMemoryTaskStore() },
  { name: "PostgreSQL", open: postgresStore },
])("a turn span of an executor that does not await its calls: $name", ({ open }) => {
  let handler: Handler;
  beforeAll(async () => {
    handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor,
      store: await open(),
      telemetry: otelTaskTelemetry(otel),
      onError: (e) => errors.push(e),
    });
  });

  it("ends after their commit, with all their events", async () => {
    const answer = await send(handler, "returns");
    const task = answer.payload?.case === "task" ? (answer.payload.value as Task) : undefined;
    expect(task?.status?.state).toBe(TaskState.COMPLETED);
    const span = await turnSpan();
    expect(eventNames(span)).toEqual([
      "a2a.task.status TASK_STATE_SUBMITTED",
      "a2a.task.status TASK_STATE_WORKING",
      "a2a.task.artifact",
      "a2a.task.status TASK_STATE_COMPLETED",
    ]);
    expect(span.status.code).toBe(0); // UNSET
  });

  it("ends after their commit and the FAILED status when the executor throws, as an error", async () => {
    const answer = await send(handler, "throws");
    // The calls made before the throw were answered with the task; the failure then fails it.
    expect(answer.payload?.case).toBe("task");
    const span = await turnSpan();
    expect(eventNames(span)).toEqual([
      "a2a.task.status TASK_STATE_SUBMITTED",
      "a2a.task.status TASK_STATE_WORKING",
      "a2a.task.artifact",
      "a2a.task.status TASK_STATE_FAILED",
      "exception",
    ]);
    expect(span.status.code).toBe(2); // ERROR
    expect(span.attributes["error.type"]).toBe("Error");
  });
});
