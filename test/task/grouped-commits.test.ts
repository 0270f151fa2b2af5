/**
 * Group commit of the updater's calls (packages/runtime/src/task/updater.ts),
 * on the memory store and on PostgreSQL; the stored version counts commits:
 *
 *   together   calls made together (Promise.all) are one commit with the same
 *              events, in the same order, as calls awaited one by one
 *   cut        a call after a terminal state is dropped; a status that
 *              interrupts the task ends its commit, the calls after it make
 *              the next one
 *   failures   a call whose own change throws rejects alone (onError told
 *              once); a store refusal rejects its whole commit; an executor
 *              rethrowing a call's error is told once; a caller answered with
 *              a call's error is not told; a call made after the executor
 *              returned is refused and told; status() never throws by itself
 *   replies    a reply made first answers and what follows it is refused; a
 *              reply that throws leaves the call open for the next, and so do
 *              failed calls before a reply; a reply after a status joins the
 *              task's history in the same commit
 *   bounds     at most MAX_GROUP_CALLS calls per commit
 *   unawaited  an executor that returns without awaiting its calls publishes
 *              them; when they fail, the send is refused with the failure,
 *              nothing is left unhandled
 *   race       on PostgreSQL, a group raced against CancelTask: each trial
 *              ends completed by the group or canceled, a subscriber's events
 *              ending there, until both outcomes were seen (bounded). The
 *              group starts at once or 1-2 ms after the cancel, in turn: on
 *              the store's pipelined connections statements run in the order
 *              sent, so a group started at once is always first
 */
import { create } from "@bufbuild/protobuf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import {
  createMemoryTaskStore,
  createTaskHandler,
  TaskState,
  type AgentExecutor,
  type TaskStore,
  type TaskUpdater,
} from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import {
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  Role,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  type Artifact,
  type StreamResponse,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { MAX_GROUP_CALLS } from "../../packages/runtime/src/task/updater.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { artifact, handlerContext } from "../helpers/task-values.js";

/** Race trials at least, and at most while one outcome has not been seen yet. */
const TRIALS = 50;
const MAX_TRIALS = 300;
/** Calls made together by the "many" script, with its status: more than two groups' worth. */
const MANY = 2 * MAX_GROUP_CALLS + 50;
const context = handlerContext();

type Script = (up: TaskUpdater, text: string) => Promise<unknown>;

/** The executor runs the script named by the message's text (before the first ":"). */
const SCRIPTS: Readonly<Record<string, Script>> = {
  together: (up) =>
    Promise.all([up.status(TaskState.WORKING), up.artifact(artifact("a1", "x")), up.status(TaskState.COMPLETED)]),
  awaited: async (up) => {
    await up.status(TaskState.WORKING);
    await up.artifact(artifact("a1", "x"));
    await up.status(TaskState.COMPLETED);
  },
  "after-terminal": (up) => Promise.all([up.status(TaskState.COMPLETED), up.artifact(artifact("late", "x"))]),
  "one-throws": async (up) => {
    // Appending parts to an artifact whose parts are missing throws in the change itself.
    const broken = { ...artifact("a1", "y"), parts: undefined } as unknown as Artifact;
    const settled = await Promise.allSettled([
      up.artifact(artifact("a1", "x")),
      up.artifact(broken, { append: true }),
      up.status(TaskState.COMPLETED),
    ]);
    outcomes.set("one-throws", settled);
  },
  "reply-first": async (up) => {
    outcomes.set("reply-first", await Promise.allSettled([up.reply("hi"), up.status(TaskState.COMPLETED)]));
  },
  "reply-throws": async (up) => {
    await Promise.allSettled([up.reply(undefined as unknown as string), up.reply("fallback")]);
  },
  "reply-joins": (up) => Promise.all([up.status(TaskState.WORKING), up.reply("note"), up.status(TaskState.COMPLETED)]),
  interrupts: (up) => Promise.all([up.status(TaskState.INPUT_REQUIRED, "more?"), up.artifact(artifact("a1", "x"))]),
  "bad-key": async (up) => {
    const settled = await Promise.allSettled([
      up.status(TaskState.WORKING),
      up.artifact(artifact("a\u0000", "x")),
      up.status(TaskState.COMPLETED),
    ]);
    outcomes.set("bad-key", settled);
  },
  "caught-refusal": async (up) => {
    await up.status(TaskState.WORKING);
    await up.artifact(artifact("a\u0000", "x")).catch(() => undefined);
    await up.status(TaskState.COMPLETED);
  },
  "fail-then-reply": async (up) => {
    await Promise.allSettled([up.status(TaskState.WORKING, null as never), up.reply("fallback")]);
  },
  "open-rethrow": async (up) => {
    let threw = false;
    let call: Promise<void> | undefined;
    try {
      call = up.status(TaskState.WORKING, null as never);
    } catch {
      threw = true;
    }
    outcomes.set("open-rethrow", [{ status: "fulfilled", value: threw }]);
    await call;
  },
  late: async (up) => {
    await up.status(TaskState.INPUT_REQUIRED, "more?");
    setTimeout(() => void up.status(TaskState.WORKING, null as never), 5);
  },
  rethrows: async (up) => {
    await up.artifact(artifact("a1", "x"));
    await up.artifact({ ...artifact("a1", "y"), parts: undefined } as unknown as Artifact, { append: true });
  },
  many: (up) =>
    Promise.all([
      ...Array.from({ length: MANY }, (_, i) => up.artifact(artifact("a1", `p${i}`), { append: i > 0 })),
      up.status(TaskState.COMPLETED),
    ]),
  unawaited: async (up) => {
    void up.status(TaskState.WORKING);
    void up.artifact(artifact("a1", "x"));
    void up.status(TaskState.COMPLETED);
  },
};

/** What the scripts that look at their calls' outcomes saw, by script name. */
const outcomes = new Map<string, PromiseSettledResult<unknown>[]>();
/** Released by the race test: the gated script waits for it between creating its task and its group. */
const gates = new Map<string, () => void>();

const executor: AgentExecutor = {
  async execute(ctx, up) {
    const part = ctx.message.parts[0]?.content;
    const text = part?.case === "text" ? part.value : "";
    const name = text.split(":")[0]!;
    if (name !== "gated") return void (await SCRIPTS[name]!(up, text));
    await up.status(TaskState.WORKING);
    await new Promise<void>((resolve) => gates.set(ctx.taskId, resolve));
    await Promise.all([up.artifact(artifact("a1", "x")), up.status(TaskState.COMPLETED)]);
  },
};

const request = (text: string, returnImmediately = false) =>
  create(SendMessageRequestSchema, {
    message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
    configuration: { returnImmediately },
  });

type Handler = ReturnType<typeof createTaskHandler<typeof A2AServiceV1_0.service>>;

async function sendFor(handler: Handler, text: string, returnImmediately = false): Promise<Task> {
  const answer = await handler.sendMessage!(request(text, returnImmediately), context);
  if (answer.payload?.case !== "task") throw new Error(`expected a task, got ${answer.payload?.case}`);
  return answer.payload.value as Task;
}

/** A state's name (TaskState maps names to numbers). */
const stateName = (state: number | undefined) =>
  Object.entries(TaskState).find(([, n]) => n === (state ?? 0))?.[0] ?? String(state);

/** Each event's kind, with the state of a status update or Task. */
function kinds(events: readonly StreamResponse[]): string[] {
  return events.map((e) => {
    const p = e.payload;
    if (p.case === "task") return `task:${stateName(p.value.status?.state)}`;
    if (p.case === "statusUpdate") return `status:${stateName(p.value.status?.state)}`;
    if (p.case === "artifactUpdate") return `artifact:${p.value.artifact?.artifactId}`;
    return p.case ?? "none";
  });
}

async function streamed(handler: Handler, text: string): Promise<string[]> {
  const events: StreamResponse[] = [];
  for await (const e of handler.sendStreamingMessage!(request(text), context)) events.push(e as StreamResponse);
  return kinds(events);
}

function describeGrouping(name: string, open: () => Promise<TaskStore>): void {
  describe(`grouped updater calls: ${name}`, () => {
    let store: TaskStore;
    let handler: Handler;
    const errors: unknown[] = [];
    beforeAll(async () => {
      store = await open();
      handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store, onError: (e) => errors.push(e) });
    });
    const version = async (task: Task) => (await store.get("", task.id))?.version;

    it("commits calls made together once, with the events of calls awaited one by one", async () => {
      const together = await sendFor(handler, "together");
      const awaited = await sendFor(handler, "awaited");
      for (const task of [together, awaited]) {
        expect(task.status?.state).toBe(TaskState.COMPLETED);
        expect(task.artifacts.map((a) => a.artifactId)).toEqual(["a1"]);
      }
      expect(await version(together)).toBe(1);
      expect(await version(awaited)).toBe(3);
      const expected = ["task:SUBMITTED", "status:WORKING", "artifact:a1", "status:COMPLETED"];
      expect(await streamed(handler, "together")).toEqual(expected);
      expect(await streamed(handler, "awaited")).toEqual(expected);
    });

    it("drops a call after a terminal state in the same group, as it would alone", async () => {
      const task = await sendFor(handler, "after-terminal");
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      expect(task.artifacts).toEqual([]);
      expect(await version(task)).toBe(1);
    });

    it("rejects only the call whose change throws; the rest of its group commits", async () => {
      errors.length = 0;
      const task = await sendFor(handler, "one-throws");
      const settled = outcomes.get("one-throws") ?? [];
      expect(settled.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
      await expect.poll(() => errors).toEqual([(settled[1] as PromiseRejectedResult).reason]);
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      expect(task.artifacts.map((a) => a.parts.length)).toEqual([1]);
      expect(await version(task)).toBe(1);
    });

    it("cuts a commit after a status that interrupts the task", async () => {
      const task = await sendFor(handler, "interrupts");
      expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
      // The send answers at the interruption; the artifact's commit follows it.
      await expect.poll(async () => (await store.get("", task.id))?.version).toBe(2);
      const stored = await store.get("", task.id);
      expect(stored?.task.artifacts.map((a) => a.artifactId)).toEqual(["a1"]);
      expect(stored?.task.status?.state).toBe(TaskState.INPUT_REQUIRED);
    });

    it("stores calls made together or none of them when the store refuses one", async () => {
      errors.length = 0;
      await expect(handler.sendMessage!(request("bad-key"), context)).rejects.toThrow(/NUL/);
      expect((outcomes.get("bad-key") ?? []).map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
      // An A2A error is an answer (to the executor here), not a failure for onError.
      expect((await sendFor(handler, "caught-refusal")).status?.state).toBe(TaskState.COMPLETED);
      expect(errors).toEqual([]);
    });

    it("tells onError once of a call's failure the executor rethrows, and fails the task", async () => {
      errors.length = 0;
      const task = await sendFor(handler, "rethrows", true);
      await expect.poll(async () => (await store.get("", task.id))?.task.status?.state).toBe(TaskState.FAILED);
      await expect.poll(() => errors.length).toBe(1);
      expect(errors[0]).toBeInstanceOf(TypeError);
    });

    it("answers a caller with a call's failure without telling onError; status() throws nothing itself", async () => {
      errors.length = 0;
      await expect(handler.sendMessage!(request("open-rethrow"), context)).rejects.toBeInstanceOf(TypeError);
      expect(outcomes.get("open-rethrow")).toEqual([{ status: "fulfilled", value: false }]);
      expect(errors).toEqual([]);
    });

    it("tells onError of a call made after the executor returned, which is refused", async () => {
      errors.length = 0;
      const task = await sendFor(handler, "late");
      expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
      await expect.poll(() => errors.length).toBe(1);
      expect((errors[0] as Error).message).toBe(
        `task ${task.id}: the executor's call has ended; the status was not published`,
      );
    });

    it("answers with a reply made first and refuses what follows it in the group", async () => {
      const answer = await handler.sendMessage!(request("reply-first"), context);
      expect(answer.payload?.case).toBe("message");
      const [reply, status] = outcomes.get("reply-first")!;
      expect(reply?.status).toBe("fulfilled");
      expect(String((status as PromiseRejectedResult).reason)).toMatch(/answered with a message; the status cannot/);
    });

    it(`commits at most ${MAX_GROUP_CALLS} calls at once, in order`, async () => {
      const task = await sendFor(handler, "many");
      const parts = task.artifacts[0]?.parts.map((p) => (p.content.case === "text" ? p.content.value : "")) ?? [];
      expect(parts).toEqual(Array.from({ length: MANY }, (_, i) => `p${i}`));
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      expect(await version(task)).toBe(Math.ceil((MANY + 1) / MAX_GROUP_CALLS));
    });

    it("lets a reply that threw leave the call open, and a reply after a status join the history", async () => {
      const answer = await handler.sendMessage!(request("reply-throws"), context);
      if (answer.payload?.case !== "message") throw new Error(`expected a message, got ${answer.payload?.case}`);
      expect(answer.payload.value.parts?.map((p) => p.content?.value)).toEqual(["fallback"]);
      const afterFailure = await handler.sendMessage!(request("fail-then-reply"), context);
      expect(afterFailure.payload?.case).toBe("message");
      const task = await sendFor(handler, "reply-joins");
      expect(task.history.map((m) => m.parts[0]?.content.value)).toContain("note");
      expect(await version(task)).toBe(1);
    });

    it("publishes the calls of an executor that returned without awaiting them", async () => {
      const task = await sendFor(handler, "unawaited");
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      expect(task.artifacts.map((a) => a.artifactId)).toEqual(["a1"]);
      expect(await version(task)).toBe(1);
    });
  });
}

describeGrouping("memory store", async () => createMemoryTaskStore());

let admin: pg.Pool | undefined;
const closing: (() => Promise<void>)[] = [];

async function postgresStore(): Promise<TaskStore> {
  admin ??= new pg.Pool({ connectionString: postgresUrl(), max: 2 });
  const schema = uniqueSchema("grouped");
  await migrate(admin, { schema });
  const pool = new pg.Pool({ connectionString: postgresUrl(), max: 6 });
  const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema });
  closing.push(async () => {
    await store.close();
    await pool.end();
  });
  return store;
}

afterAll(async () => {
  for (const close of closing.reverse()) await close();
  await admin?.end();
});

describeGrouping("PostgreSQL", postgresStore);

describe("grouped updater calls raced against CancelTask: PostgreSQL", () => {
  it(`ends completed by the group or canceled, never both (${TRIALS}-${MAX_TRIALS} trials)`, async () => {
    const store = await postgresStore();
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store, onError: () => {} });
    const ends: string[] = [];
    for (let i = 0; i < MAX_TRIALS && (i < TRIALS || new Set(ends).size < 2); i++) {
      const task = await sendFor(handler, "gated", true);
      await expect.poll(() => gates.has(task.id)).toBe(true);
      // Subscribed before the race: its first event is the task as it stands (WORKING).
      const feed = handler.subscribeToTask!(create(SubscribeToTaskRequestSchema, { id: task.id }), context);
      const reader = feed[Symbol.asyncIterator]();
      const events: StreamResponse[] = [(await reader.next()).value as StreamResponse];
      const watching = (async () => {
        for (let next = await reader.next(); !next.done; next = await reader.next())
          events.push(next.value as StreamResponse);
      })();
      const cancel = handler.cancelTask!(create(CancelTaskRequestSchema, { id: task.id }), context);
      if (i % 3 > 0) await new Promise((resolve) => setTimeout(resolve, i % 3));
      gates.get(task.id)!();
      const canceled = await cancel.then(
        (t) => t.status?.state === TaskState.CANCELED,
        () => false,
      );
      await watching;
      const stored = await handler.getTask!(create(GetTaskRequestSchema, { id: task.id }), context);
      const state = stored.status?.state;
      expect(state).toBe(canceled ? TaskState.CANCELED : TaskState.COMPLETED);
      expect(kinds(events)[0]).toBe("task:WORKING");
      expect(kinds(events).at(-1)).toBe(`status:${stateName(state)}`);
      if (canceled) expect(kinds(events)).not.toContain("status:COMPLETED");
      ends.push(stateName(state));
    }
    // The race is run, not avoided: each side wins some trials.
    expect(new Set(ends)).toEqual(new Set(["CANCELED", "COMPLETED"]));
  });
});

describe("unawaited updater calls whose commit fails", () => {
  it("refuse the send with the failure, an answer not told to onError, and reject nothing unhandled", async () => {
    const errors: unknown[] = [];
    const big = artifact("big", "x".repeat(64 * 1024));
    const refusing: AgentExecutor = {
      async execute(_ctx, up) {
        void up.status(TaskState.WORKING);
        void up.artifact(big);
      },
    };
    const store = createMemoryTaskStore({ maxBytes: 16 * 1024 });
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor: refusing,
      store,
      onError: (e) => errors.push(e),
    });
    const sent = handler.sendMessage!(request("big"), context);
    await expect(sent).rejects.toThrow(/maxBytes/);
    expect(errors).toEqual([]);
  });
});
