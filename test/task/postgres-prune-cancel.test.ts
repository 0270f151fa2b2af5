/**
 * A cancel through one instance reaches the executor on another while both prune as often as they can
 * (terminalTtlMs 0, pruneEveryMs 2): the prune keeps a terminal task, and its events, as long as eventsTtlMs
 * (prune.ts), so the running instance's feed reads the CANCELED event before anything goes. Two stores with
 * pools of their own on one schema of the tests' PostgreSQL, 30 cancels; each must abort its executor and answer
 * its blocking send CANCELED within 5 s (without the rule about half of them waited for good).
 */
import { create } from "@bufbuild/protobuf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import { type AgentExecutor, createTaskHandler, TaskState } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import {
  CancelTaskRequestSchema,
  Role,
  SendMessageRequestSchema,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { handlerContext } from "../helpers/task-values.js";

const context = handlerContext();
const pools: pg.Pool[] = [];

beforeAll(() => {
  for (let i = 0; i < 3; i++) pools.push(new pg.Pool({ connectionString: postgresUrl(), max: 6 }));
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

/** `promise`, or "timed out" after `ms`. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> =>
  Promise.race([promise, new Promise<"timed out">((resolve) => setTimeout(() => resolve("timed out"), ms))]);

describe("a cancel from another instance while both prune at once", () => {
  it("aborts the executor and answers the blocking send CANCELED, 30 times", async () => {
    const schema = uniqueSchema("pc");
    await migrate(pools[0]!, { schema });
    let onStart: (taskId: string, aborted: Promise<void>) => void = () => {};
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        await up.status(TaskState.WORKING);
        const aborted = new Promise<void>((resolve) => {
          if (ctx.signal.aborted) resolve();
          else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        onStart(ctx.taskId, aborted);
        await within(aborted, 8000);
      },
    };
    const errors: unknown[] = [];
    const stores = [pools[1]!, pools[2]!].map((pool) =>
      createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema, terminalTtlMs: 0, pruneEveryMs: 2 }),
    );
    const [running, canceling] = stores.map((store) =>
      createTaskHandler({ definition: A2AServiceV1_0, executor, store, onError: (e) => errors.push(e) }),
    );
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 30; i++) {
        const run = new Promise<[string, Promise<void>]>((resolve) => {
          onStart = (taskId, aborted) => resolve([taskId, aborted]);
        });
        const message = { messageId: crypto.randomUUID(), role: Role.USER, parts: [] };
        const answer = running!.sendMessage!(create(SendMessageRequestSchema, { message }), context);
        const [id, aborted] = await run;
        await canceling!.cancelTask!(create(CancelTaskRequestSchema, { id }), context);
        const abortedIn = await within(aborted, 5000);
        const answered = await within(answer, 5000);
        const state =
          answered === "timed out" ? answered : (answered.payload?.value as Task | undefined)?.status?.state;
        outcomes.push(`${abortedIn === "timed out" ? "not aborted" : "aborted"}, ${String(state)}`);
      }
      expect(new Set(outcomes)).toEqual(new Set([`aborted, ${TaskState.CANCELED}`]));
      expect(errors).toEqual([]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  }, 120_000);
});
