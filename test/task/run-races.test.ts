/**
 * Races around one executor call (packages/runtime/src/task/run.ts, send-start.ts), made to happen many times
 * on the memory store, where a few microtasks decide who wins:
 *
 * - a CancelTask committed right after a follow-up message joins its task, before the executor starts, still
 *   aborts the executor's signal (the run listens from before the join); the executor's own terminal status
 *   does not;
 * - a blocking send waits through a burst of more events than a watch may buffer (its watch keeps only the
 *   events that end the wait), and a subscriber that stops reading holds no more than MAX_BUFFERED_BYTES of
 *   events: its stream then fails saying so (task-watch.ts);
 * - what an executor publishes after its call ended (from a timer) is refused, so it makes no task whose turn
 *   nobody ends; and a failed call during a continued turn reaches onError while the turn still runs;
 * - a blocking send answers with the task its executor completed even when the store drops it at once
 *   (terminalTtlMs 0), and with that task as stored, whatever the executor does to its artifact after
 *   handing it over.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
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
  ArtifactSchema,
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  Role,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { handlerContext } from "../helpers/task-values.js";

const context = handlerContext();

const send = (text: string, taskId = "", returnImmediately = false) =>
  create(SendMessageRequestSchema, {
    message: {
      messageId: crypto.randomUUID(),
      role: Role.USER,
      taskId,
      parts: [{ content: { case: "text", value: text } }],
    },
    configuration: { returnImmediately },
  });

/** The task a send answered with; it fails the test when the answer is a message. */
function taskOf(answer: { readonly payload?: { readonly case?: string | undefined; readonly value?: unknown } }): Task {
  if (answer.payload?.case !== "task") throw new Error(`expected a task, got ${answer.payload?.case}`);
  return answer.payload.value as Task;
}

/** Resolves after `n` turns of the microtask queue. */
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await undefined;
}

describe("a cancel right after a follow-up joins its task", () => {
  const TRIALS = 60;

  it(`aborts the executor's signal, whichever microtask it lands on (${TRIALS} trials)`, async () => {
    /** Per continued turn: whether its signal was aborted within the wait. */
    const heard = new Map<string, boolean>();
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        if (!ctx.task) return up.status(TaskState.INPUT_REQUIRED, "which one?");
        const aborted = new Promise<boolean>((resolve) => {
          if (ctx.signal.aborted) resolve(true);
          ctx.signal.addEventListener("abort", () => resolve(true));
          setTimeout(() => resolve(false), 1000);
        });
        heard.set(ctx.taskId, await aborted);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor });
    let both = 0;
    for (let k = 0; k < TRIALS; k++) {
      const answer = await handler.sendMessage!(send("ask"), context);
      const asked = taskOf(answer);
      const cancel = create(CancelTaskRequestSchema, { id: asked.id });
      const [sent, canceled] = await Promise.allSettled([
        handler.sendMessage!(send("answer", asked.id, true), context),
        ticks(k).then(() => handler.cancelTask!(cancel, context)),
      ]);
      // A cancel before the join refuses the message; only trials where both calls held race the executor.
      if (sent.status === "rejected" || canceled.status === "rejected") continue;
      both++;
      const stored = await handler.getTask!(create(GetTaskRequestSchema, { id: asked.id }), context);
      expect(stored.status?.state).toBe(TaskState.CANCELED);
      await expect.poll(() => heard.get(asked.id), { timeout: 2000 }).toBe(true);
    }
    expect(both).toBeGreaterThan(TRIALS / 2);
  });
});

describe("an executor that ended its task itself", () => {
  const OWN_END_TRIALS = 20;
  // A blocking send keeps a copy of its last commit and a streaming one does not: the run tells its own terminal
  // commit by the version it committed, which both keep.
  it.each(["blocking", "streaming"])(
    `keeps its signal after its terminal status, %s send (${OWN_END_TRIALS} trials)`,
    async (how) => {
      for (let i = 0; i < OWN_END_TRIALS; i++) {
        let afterwards: boolean | undefined;
        let done!: () => void;
        const finished = new Promise<void>((resolve) => (done = resolve));
        const executor: AgentExecutor = {
          async execute(ctx, updater) {
            await updater.status(TaskState.WORKING);
            await updater.status(TaskState.COMPLETED, "done");
            // Work after the end (a flush, a log) that watches the signal: its own end did not abort it.
            await new Promise((resolve) => setTimeout(resolve, 1));
            afterwards = ctx.signal.aborted;
            done();
          },
        };
        const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store: createMemoryTaskStore() });
        if (how === "blocking") await handler.sendMessage!(send("go"), context);
        else for await (const _ of handler.sendStreamingMessage!(send("go"), context));
        await finished;
        expect(afterwards).toBe(false);
      }
    },
  );
});

describe("bursts and readers that fall behind", () => {
  it("a blocking send waits through a burst of 12,000 calls made together", async () => {
    const calls = 12_000;
    const executor: AgentExecutor = {
      async execute(_ctx, up) {
        await up.status(TaskState.WORKING);
        const chunk = (i: number) =>
          create(ArtifactSchema, { artifactId: `a${i % 10}`, parts: [{ content: { case: "text", value: `${i}` } }] });
        await Promise.all(Array.from({ length: calls }, (_, i) => up.artifact(chunk(i), { append: true })));
        await up.status(TaskState.COMPLETED);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor });
    const answer = await handler.sendMessage!(send("burst"), context);
    const task = taskOf(answer);
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts.reduce((n, a) => n + a.parts.length, 0)).toBe(calls);
  });

  it("a subscriber that stops reading is ended once about 32 MiB of events wait for it", async () => {
    const replaced = 1000;
    let go!: () => void;
    const started = new Promise<void>((resolve) => (go = resolve));
    const big = (i: number) =>
      create(ArtifactSchema, {
        artifactId: "progress",
        parts: [{ content: { case: "raw", value: new Uint8Array(100_000).fill(i & 255) } }],
      });
    const executor: AgentExecutor = {
      async execute(_ctx, up: TaskUpdater) {
        await up.status(TaskState.WORKING);
        await started;
        for (let i = 0; i < replaced; i++) await up.artifact(big(i));
        await up.status(TaskState.COMPLETED);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor });
    const answer = await handler.sendMessage!(send("go", "", true), context);
    const id = taskOf(answer).id;
    const events = handler.subscribeToTask!(create(SubscribeToTaskRequestSchema, { id }), context);
    const reader = events[Symbol.asyncIterator]();
    expect((await reader.next()).value?.payload.case).toBe("task");
    go();
    await expect
      .poll(async () => {
        const t = await handler.getTask!(create(GetTaskRequestSchema, { id }), context);
        return t.status?.state;
      })
      .toBe(TaskState.COMPLETED);
    let read = 0;
    const end = await (async () => {
      for (;;) {
        const next = await reader.next();
        if (next.done) return "done";
        read++;
      }
    })().catch((e: unknown) => e);
    expect(end).toBeInstanceOf(Error);
    expect((end as Error).message).toBe(
      `task ${id}: a reader fell 33554432 bytes of events behind; its stream was ended`,
    );
    expect(read).toBeLessThan(replaced / 2);
  });
});

describe("calls outside the executor's call", () => {
  it("refuses a call made after the executor returned: no task is made, nothing stays busy", async () => {
    let late: Promise<unknown> | undefined;
    let taskId = "";
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        taskId = ctx.taskId;
        // Fire and forget: the call comes once the executor's call has ended.
        setTimeout(() => {
          late = up.status(TaskState.WORKING, "working in the background").catch((e: unknown) => e);
        }, 10);
      },
    };
    const errors: unknown[] = [];
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, onError: (e) => errors.push(e) });
    await expect(handler.sendMessage!(send("start"), context)).rejects.toThrow(/returned without a reply/);
    await expect.poll(() => late).toBeDefined();
    const refusal = await late;
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toBe(
      `task ${taskId}: the executor's call has ended; the status was not published`,
    );
    await expect(handler.getTask!(create(GetTaskRequestSchema, { id: taskId }), context)).rejects.toThrow(
      `Task ${taskId} not found`,
    );
    expect(errors).toContain(refusal);
  });

  it("tells onError of a failed call during a continued turn while the turn runs", async () => {
    const memory = createMemoryTaskStore();
    let failing = false;
    // The memory store, but for `update` failing while `failing` is set; every method runs on the store itself.
    const store = new Proxy(memory, {
      get(target, key) {
        if (key === "update") {
          return async (...args: Parameters<NonNullable<TaskStore["update"]>>) => {
            if (failing) throw new Error("store unreachable (made so by the test)");
            return target.update!(...args);
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        if (!ctx.task) return up.status(TaskState.INPUT_REQUIRED, "which one?");
        failing = true;
        void up.artifact(create(ArtifactSchema, { artifactId: "a" }));
        await finished;
      },
    };
    const errors: unknown[] = [];
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store, onError: (e) => errors.push(e) });
    const asked = taskOf(await handler.sendMessage!(send("ask"), context));
    await handler.sendMessage!(send("answer", asked.id, true), context);
    try {
      await expect
        .poll(() => errors.map((e) => (e as Error).message))
        .toEqual(["store unreachable (made so by the test)"]);
    } finally {
      failing = false;
      finish();
    }
  });
});

describe("a store that drops a task as soon as it ends", () => {
  it("still answers a blocking send with the task its executor completed (terminalTtlMs 0)", async () => {
    const executor: AgentExecutor = {
      async execute(_ctx, up) {
        await up.status(TaskState.WORKING);
        await up.artifact(
          create(ArtifactSchema, { artifactId: "a", parts: [{ content: { case: "text", value: "x" } }] }),
        );
        await up.status(TaskState.COMPLETED);
      },
    };
    const store = createMemoryTaskStore({ terminalTtlMs: 0 });
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store });
    for (let i = 0; i < 20; i++) {
      const task = taskOf(await handler.sendMessage!(send(`go ${i}`), context));
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      expect(task.artifacts.map((a) => a.artifactId)).toEqual(["a"]);
    }
  });

  it("answers a blocking send canceled through another handler as CANCELED, the task dropped at once", async () => {
    // The cancel is the other handler's commit, not this executor's: the task is gone before the answer is read.
    let started: (taskId: string) => void = () => {};
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        await up.status(TaskState.WORKING);
        started(ctx.taskId);
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) resolve();
          else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
        });
      },
    };
    const errors: unknown[] = [];
    const store = createMemoryTaskStore({ terminalTtlMs: 0 });
    const [running, canceling] = [0, 1].map(() =>
      createTaskHandler({ definition: A2AServiceV1_0, executor, store, onError: (e) => errors.push(e) }),
    );
    for (let i = 0; i < 20; i++) {
      const taskId = new Promise<string>((resolve) => (started = resolve));
      const answer = running!.sendMessage!(send(`wait ${i}`), context);
      const id = await taskId;
      await canceling!.cancelTask!(create(CancelTaskRequestSchema, { id }), context);
      const task = taskOf(await answer);
      expect([task.id, task.status?.state]).toEqual([id, TaskState.CANCELED]);
    }
    expect(errors).toEqual([]);
  });

  it("drops a canceled executor's calls once its task is gone; its rejection with the signal is no fault", async () => {
    // After the cancel, the executor publishes (dropped: the task ended) and then rejects as fetch(url, { signal })
    // does, with the signal's reason: neither is a fault to report.
    let started: (taskId: string) => void = () => {};
    let rejections = 0;
    const settled: string[] = [];
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        await up.status(TaskState.WORKING);
        started(ctx.taskId);
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        const artifact = create(ArtifactSchema, { artifactId: "late", parts: [] });
        settled.push(await up.artifact(artifact).then(() => "dropped", String));
        settled.push(await up.status(TaskState.COMPLETED).then(() => "dropped", String));
        // As fetch rejects (the reason itself), and as node:timers/promises does (an AbortError caused by it).
        rejections += 1;
        throw rejections % 2 === 0
          ? ctx.signal.reason
          : new Error("The operation was aborted", { cause: ctx.signal.reason });
      },
    };
    const errors: unknown[] = [];
    const store = createMemoryTaskStore({ terminalTtlMs: 0 });
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store, onError: (e) => errors.push(e) });
    for (let i = 0; i < 20; i++) {
      const taskId = new Promise<string>((resolve) => (started = resolve));
      const answer = handler.sendMessage!(send(`wait ${i}`), context);
      await handler.cancelTask!(create(CancelTaskRequestSchema, { id: await taskId }), context);
      expect(taskOf(await answer).status?.state).toBe(TaskState.CANCELED);
    }
    await expect.poll(() => settled.length).toBe(40);
    expect([new Set(settled), errors]).toEqual([new Set(["dropped"]), []]);
  });

  it("answers returnImmediately with the executor's commit, and a failure with its message", async () => {
    const store = createMemoryTaskStore({ terminalTtlMs: 0 });
    const at = (execute: AgentExecutor["execute"]) =>
      createTaskHandler({ definition: A2AServiceV1_0, executor: { execute }, store, onError: () => {} });
    const quick = at(async (_ctx, up) => {
      await up.status(TaskState.COMPLETED, "done");
    });
    const now = taskOf(await quick.sendMessage!(send("quick", "", true), context));
    expect(now.status?.state).toBe(TaskState.COMPLETED);
    const failing = at(async (_ctx, up) => {
      await up.status(TaskState.WORKING);
      throw new Error("executor fault");
    });
    const failed = taskOf(await failing.sendMessage!(send("fail"), context));
    expect(failed.status?.state).toBe(TaskState.FAILED);
    const said = failed.history.at(-1)?.parts[0]?.content.value;
    expect([said, failed.status?.message?.messageId]).toEqual([
      "The agent failed while working on this task.",
      failed.history.at(-1)?.messageId,
    ]);
  });

  it("reports a task lost while active as a failure, not as an end: the send settles, the calls reject", async () => {
    // A store of one's own that loses a working task (a bug, a row deleted by hand) breaks the contract that only
    // ended tasks go: the executor's calls and the blocking send must say so rather than wait for an end.
    const lost = new Set<string>();
    const inner = createMemoryTaskStore();
    const store = new Proxy(inner, {
      get(target, name, receiver) {
        if (name === "get" || name === "update") {
          const method = Reflect.get(target, name, receiver) as (
            tenant: string,
            id: string,
            ...more: never[]
          ) => unknown;
          return (tenant: string, id: string, ...more: never[]) =>
            lost.has(id) ? Promise.resolve(undefined) : method.call(target, tenant, id, ...more);
        }
        const value = Reflect.get(target, name, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const settled: string[] = [];
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        await up.status(TaskState.WORKING);
        lost.add(ctx.taskId);
        settled.push(
          await up.artifact(create(ArtifactSchema, { artifactId: "a", parts: [] })).then(() => "ok", String),
        );
      },
    };
    const errors: unknown[] = [];
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store, onError: (e) => errors.push(e) });
    const answer = handler.sendMessage!(send("lose it"), context).then(
      () => "answered",
      (e: unknown) => `refused: ${String(e)}`,
    );
    const within = new Promise((resolve) => setTimeout(() => resolve("still waiting after 3 s"), 3000));
    expect(await Promise.race([answer, within])).toMatch(/^refused: .*vanished from the store/);
    expect(settled).toEqual([expect.stringMatching(/TaskNotFoundError|not found/)]);
  });

  it("answers with the task as stored while the executor goes on changing the artifact it handed over", async () => {
    const executor: AgentExecutor = {
      async execute(_ctx, up) {
        const artifact = create(ArtifactSchema, {
          artifactId: "a",
          parts: [{ content: { case: "text", value: "as handed over" } }],
        });
        void up.artifact(artifact);
        void up.status(TaskState.COMPLETED);
        // Changed once a microtask while the commit and the answer are under way.
        void (async () => {
          for (let i = 0; i < 50; i++) {
            await undefined;
            artifact.parts[0]!.content = { case: "text", value: `changed ${i}` };
          }
        })();
      },
    };
    for (const terminalTtlMs of [undefined, 0]) {
      const store = createMemoryTaskStore(terminalTtlMs === undefined ? {} : { terminalTtlMs });
      const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store });
      for (let i = 0; i < 10; i++) {
        const task = taskOf(await handler.sendMessage!(send(`go ${i}`), context));
        expect(task.artifacts[0]?.parts[0]?.content.value).toBe("as handed over");
      }
    }
  });
});
