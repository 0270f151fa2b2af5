/**
 * One turn at a time (packages/runtime/src/task/turns.ts): two follow-up
 * messages sent at once to one input-required task, TRIALS times on each
 * store: the memory store (one handler), PostgreSQL through one handler, and
 * PostgreSQL through two handlers with stores of their own (own pools) on one
 * schema, each follow-up through another. Every trial checks that exactly one
 * turn ran, that the refused caller got the busy error of the definition's task-turns rule naming the task (or,
 * when the winner's whole turn had ended first, the terminal refusal, the
 * same error type), that the history holds the accepted message once and the
 * refused one not at all, and that the accepted caller's answer echoes its
 * own text. Also, on both stores: an executor that returns leaving its task
 * WORKING ends its turn, so the next message is taken; and what a call
 * publishes after its turn ended at an interrupted state, while the next
 * turn runs, is dropped.
 */
import { create } from "@bufbuild/protobuf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import {
  createMemoryTaskStore,
  createTaskHandler,
  TaskState,
  type AgentExecutor,
  type TaskStore,
} from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, SendMessageRequestSchema, type Message, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";

type Handler = ReturnType<typeof createTaskHandler<typeof A2AServiceV1_0.service>>;

/** What a send answers, as the test reads it: the task, or an error naming what came instead. */
async function sendFor(handler: Handler, request: ReturnType<typeof message>): Promise<Task> {
  const answer = await handler.sendMessage!(request, context);
  if (answer.payload?.case !== "task") throw new Error(`expected a task, got ${answer.payload?.case}`);
  return answer.payload.value as Task;
}
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { handlerContext } from "../helpers/task-values.js";

const TRIALS = 50;

const context = handlerContext();

const textOf = (m: Message | undefined) => (m?.parts[0]?.content.case === "text" ? m.parts[0].content.value : "");

const message = (text: string, taskId = "", returnImmediately = false) =>
  create(SendMessageRequestSchema, {
    message: { messageId: `m-${text}`, role: Role.USER, taskId, parts: [{ content: { case: "text", value: text } }] },
    configuration: { returnImmediately },
  });

/** The turns each task ran, by task id: one entry per executor call that continued it. */
type Turns = Map<string, string[]>;

/** "ask" asks for input; a continuing message is echoed after a pause (so that turns would overlap). */
function echoAfterPause(turns: Turns): AgentExecutor {
  return {
    async execute(ctx, up) {
      const text = textOf(ctx.message);
      if (!ctx.task) return up.status(TaskState.INPUT_REQUIRED, "what next?");
      turns.set(ctx.taskId, [...(turns.get(ctx.taskId) ?? []), text]);
      await up.status(TaskState.WORKING);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const part = { $typeName: "lf.a2a.v1.Part" as const, content: { case: "text" as const, value: text } };
      const artifact = { artifactId: `echo-${text}`, name: "", description: "", extensions: [] };
      await up.artifact({
        $typeName: "lf.a2a.v1.Artifact",
        ...artifact,
        parts: [{ ...part, filename: "", mediaType: "" }],
      });
      await up.status(TaskState.COMPLETED);
    },
  };
}

const handlerOn = (store: TaskStore, turns: Turns) =>
  createTaskHandler({ definition: A2AServiceV1_0, executor: echoAfterPause(turns), store });

async function ask(handler: Handler): Promise<Task> {
  const task = await sendFor(handler, message(`ask-${crypto.randomUUID()}`));
  expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
  return task;
}

/** Races two follow-ups to one input-required task, through `first` and `second`; checks one trial. */
async function raceOnce(first: Handler, second: Handler, turns: Turns): Promise<string> {
  const asked = await ask(first);
  const texts = [`one-${asked.id}`, `two-${asked.id}`];
  const results = await Promise.allSettled([
    sendFor(first, message(texts[0]!, asked.id)),
    sendFor(second, message(texts[1]!, asked.id)),
  ]);
  const won = results.findIndex((r) => r.status === "fulfilled");
  const lost = 1 - won;
  expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
  const refusal = (results[lost] as PromiseRejectedResult).reason as unknown;
  expect(refusal).toBeInstanceOf(A2AError);
  expect((refusal as A2AError).type).toBe(A2AServiceV1_0.taskTurns?.busyError);
  expect((refusal as A2AError).message).toContain(asked.id);
  const task = (results[won] as PromiseFulfilledResult<Task>).value;
  expect(task.status?.state).toBe(TaskState.COMPLETED);
  expect(task.artifacts.map((a) => textOf({ parts: a.parts } as Message))).toEqual([texts[won]]);
  expect(turns.get(asked.id)).toEqual([texts[won]]);
  const users = task.history.filter((m) => m.role === Role.USER).map((m) => textOf(m));
  expect(users).toEqual([textOf(asked.history[0]), texts[won]]);
  return (refusal as A2AError).message.includes("earlier message") ? "busy" : "terminal";
}

async function race(first: Handler, second: Handler, turns: Turns): Promise<void> {
  const kinds: string[] = [];
  for (let i = 0; i < TRIALS; i++) kinds.push(await raceOnce(first, second, turns));
  // Most refusals meet the running turn; one that came after the winner's whole turn is the terminal refusal.
  expect(kinds.filter((k) => k === "busy").length).toBeGreaterThan(0);
}

let admin: pg.Pool;
let schema: string;
const opened: TaskStore[] = [];

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
  schema = uniqueSchema("turn");
  await migrate(admin, { schema });
});

afterAll(async () => {
  for (const store of opened) await store.close();
  await admin?.end();
});

/** A PostgreSQL store of its own (own pool) on the file's schema. */
function postgresStore(): TaskStore {
  const made = createPostgresTaskStore({ pool: postgresUrl(), definition: A2AServiceV1_0, schema });
  opened.push(made);
  return made;
}

describe("two follow-ups at once to one input-required task", () => {
  it(`memory store: one turn runs, the other caller is refused (${TRIALS} trials)`, async () => {
    const turns: Turns = new Map();
    const handler = handlerOn(createMemoryTaskStore(), turns);
    await race(handler, handler, turns);
  });

  it(`PostgreSQL, one handler: one turn runs, the other caller is refused (${TRIALS} trials)`, async () => {
    const turns: Turns = new Map();
    const handler = handlerOn(postgresStore(), turns);
    await race(handler, handler, turns);
  });

  it(`PostgreSQL, two instances on one schema, one follow-up through each (${TRIALS} trials)`, async () => {
    const turns: Turns = new Map();
    await race(handlerOn(postgresStore(), turns), handlerOn(postgresStore(), turns), turns);
  });
});

describe.each([
  ["memory", () => createMemoryTaskStore()],
  ["PostgreSQL", postgresStore],
] as const)("a turn's end (%s store)", (_name, makeStore) => {
  it("an executor that returns leaving its task WORKING ends its turn: the next message is taken", async () => {
    const seen: string[] = [];
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        seen.push(textOf(ctx.message));
        await up.status(TaskState.WORKING);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store: makeStore() });
    const first = await sendFor(handler, message(`first-${crypto.randomUUID()}`));
    expect(first.status?.state).toBe(TaskState.WORKING);
    const next = await sendFor(handler, message(`next-${first.id}`, first.id));
    expect(next.status?.state).toBe(TaskState.WORKING);
    expect(seen).toEqual([textOf(first.history[0]), `next-${first.id}`]);
  });

  it("what a call publishes after its turn ended at input-required, while the next turn runs, is dropped", async () => {
    let late!: () => void;
    const lingering = new Promise<void>((resolve) => {
      late = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let published!: Promise<void>;
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        if (ctx.task) {
          await up.status(TaskState.WORKING);
          return released;
        }
        await up.status(TaskState.INPUT_REQUIRED, "more?");
        // Still running after its turn ended; publishes once the next turn runs.
        published = lingering.then(() => up.reply("too late"));
        await published;
      },
    };
    const store = makeStore();
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store });
    const asked = await sendFor(handler, message(`ask-${crypto.randomUUID()}`));
    await sendFor(handler, message(`answer-${asked.id}`, asked.id, true));
    late();
    await published;
    const stored = await store.get("", asked.id);
    expect(stored?.task.history.map((m) => textOf(m))).toEqual([
      textOf(asked.history[0]),
      "more?",
      `answer-${asked.id}`,
    ]);
    expect(stored?.turn).toBeDefined();
    release();
  });
});

describe("the busy error comes from the definition's task-turns rule (override target api.taskTurns)", () => {
  /** An executor whose continuing turn runs until `release` is called. */
  function heldTurns() {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        if (!ctx.task) return up.status(TaskState.INPUT_REQUIRED, "more?");
        await up.status(TaskState.WORKING);
        await held;
      },
    };
    return { executor, release };
  }

  it("answers a message to a busy task with the error the rule names", async () => {
    const { executor, release } = heldTurns();
    const definition = { ...A2AServiceV1_0, taskTurns: { busyError: "TaskNotCancelableError" } };
    const handler = createTaskHandler({ definition, executor });
    const asked = await sendFor(handler, message(`ask-${crypto.randomUUID()}`));
    await sendFor(handler, message(`first-${asked.id}`, asked.id, true));
    const refused = await sendFor(handler, message(`second-${asked.id}`, asked.id)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(A2AError);
    expect((refused as A2AError).type).toBe("TaskNotCancelableError");
    expect((refused as A2AError).message).toContain(asked.id);
    release();
  });

  it("refuses at once a definition without the rule, naming the override target", () => {
    const { executor } = heldTurns();
    const definition = { ...A2AServiceV1_0, taskTurns: null };
    expect(() => createTaskHandler({ definition, executor })).toThrow(
      "createTaskHandler: the definition of lf.a2a.v1.A2AService has no task-turns rule (override target api.taskTurns",
    );
  });
});
