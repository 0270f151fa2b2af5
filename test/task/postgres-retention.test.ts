/**
 * Retention and connections of the PostgreSQL store, on the test cluster:
 * events past eventsTtlMs, terminal tasks past terminalTtlMs and unanswered
 * input-required or auth-required ones past interruptedTtlMs are pruned,
 * by prune() and by the store's own timer, with their history, artifacts,
 * push configs and events, while running tasks and recent ones stay; rows
 * stay bounded while tasks keep coming; the LISTEN connection goes back to
 * the pool once nobody listens and is taken again on demand; one commit is
 * one statement; and the memory store keeps terminal tasks seven days by
 * default.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryTaskStore, DEFAULT_TERMINAL_TTL_MS } from "@protoc-gen-a2a/runtime/task";
import { createPostgresTaskStore, migrate, prune } from "@protoc-gen-a2a/runtime/postgres";
import { INTERRUPTED_STATE_NUMBERS, TERMINAL_STATE_NUMBERS } from "../../packages/runtime/src/task/postgres/prune.js";
import { INTERRUPTED_STATES, TERMINAL_STATES } from "../../packages/runtime/src/task/a2a-types.js";
import type { TaskEvent, TaskStore } from "../../packages/runtime/src/task/store.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { TaskPushNotificationConfigSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { repoRoot } from "../helpers/run.js";
import { artifactEvent, statusEvent, task, TaskState } from "../helpers/task-values.js";

/** The built a2a-task-store command line. */
const CLI = join(repoRoot, "packages/runtime/dist/task/postgres/cli.js");

let url: string;
let admin: pg.Pool;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(() => {
  url = postgresUrl();
  admin = new pg.Pool({ connectionString: url, max: 4 });
});

afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
  await admin?.end();
});

type StoreOptions = Partial<Parameters<typeof createPostgresTaskStore>[0]>;

/** A migrated schema and a store on it with its own pool (pruning off unless asked). */
async function storeOn(options: StoreOptions = {}) {
  const schema = uniqueSchema("ret");
  await migrate(admin, { schema });
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema, pruneEveryMs: 0, ...options });
  cleanup.push(async () => {
    await store.close();
    await pool.end();
  });
  return { schema, pool, store };
}

async function count(schema: string, table: string, where = "true"): Promise<number> {
  const r = await admin.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${schema}".${table} WHERE ${where}`);
  return Number(r.rows[0]?.n);
}

/** Moves every row's clock of the schema back by `ms`, as if that much time had passed. */
async function age(schema: string, ms: number): Promise<void> {
  const back = `- ${ms} * interval '1 millisecond'`;
  await admin.query(`UPDATE "${schema}".task_events SET created_at = created_at ${back}`);
  await admin.query(`UPDATE "${schema}".tasks SET updated_at = updated_at ${back}`);
}

/** Creates a task in `state` with one message, one artifact and (unless told not to) a push config. */
async function made(store: TaskStore, id: string, state: TaskState, withConfig = true): Promise<string> {
  const t = task(id, { state, history: ["hi"], artifacts: [["a", "x"]] });
  const events = [statusEvent(t), artifactEvent(t, t.artifacts[0]!)];
  // A creating commit stores no events (commit.ts): the second one does, as an executor's next update would.
  // Created working, which no prune takes: a pruner with TTL 0 may not take the task before its second commit.
  const working = task(id, { state: TaskState.WORKING, history: ["hi"], artifacts: [["a", "x"]] });
  expect(await store.commit("", { task: working, expectedVersion: 0, events: [statusEvent(working)] })).toBe(1);
  expect(await store.commit("", { task: t, expectedVersion: 1, events })).toBe(2);
  if (!withConfig) return id;
  const config = create(TaskPushNotificationConfigSchema, { taskId: id, id: "c", url: "https://example.com/hook" });
  await store.putPushConfig("", { config, protocolVersion: "1.0" });
  return id;
}

/** The state numbers in the predicate of the schema's partial index `name`, sorted. */
async function indexedStates(schema: string, name: string): Promise<number[]> {
  const index = await admin.query<{ indexdef: string }>(
    "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2",
    [schema, name],
  );
  const predicate = /WHERE \((.*)\)$/.exec(index.rows[0]?.indexdef ?? "")?.[1] ?? "";
  return [...predicate.matchAll(/\d+/g)].map(Number).sort((a, b) => a - b);
}

describe("retention", () => {
  it("indexes (migrations 5 and 6) and prunes exactly the terminal and interrupted states of the runtime", async () => {
    const { schema } = await storeOn();
    const byNumber = (a: number, b: number) => a - b;
    const terminal = [...TERMINAL_STATES].sort(byNumber);
    expect(await indexedStates(schema, "tasks_terminal_by_end")).toEqual(terminal);
    expect([...TERMINAL_STATE_NUMBERS].sort(byNumber)).toEqual(terminal);
    const interrupted = [...INTERRUPTED_STATES].sort(byNumber);
    expect(await indexedStates(schema, "tasks_interrupted_by_status")).toEqual(interrupted);
    expect([...INTERRUPTED_STATE_NUMBERS].sort(byNumber)).toEqual(interrupted);
  });

  it("prunes unanswered input- and auth-required tasks past interruptedTtlMs; answered, recent ones stay", async () => {
    const { schema, store } = await storeOn();
    await made(store, "input-old", TaskState.INPUT_REQUIRED);
    await made(store, "auth-old", TaskState.AUTH_REQUIRED);
    await made(store, "answered", TaskState.INPUT_REQUIRED);
    await made(store, "working-old", TaskState.WORKING);
    await age(schema, 3 * 3_600_000);
    // The answer: a next turn works on it, so the rule no longer holds for it.
    const answered = task("answered", { state: TaskState.WORKING, history: ["hi"], artifacts: [["a", "x"]] });
    expect(await store.commit("", { task: answered, expectedVersion: 2, events: [statusEvent(answered)] })).toBe(3);
    await made(store, "input-new", TaskState.INPUT_REQUIRED);

    const options = { schema, eventsTtlMs: 3_600_000, terminalTtlMs: 0 };
    expect(await prune(admin, { ...options, interruptedTtlMs: Number.POSITIVE_INFINITY })).toMatchObject({ tasks: 0 });
    expect(await prune(admin, { ...options, interruptedTtlMs: 2 * 3_600_000 })).toMatchObject({ tasks: 2 });
    const ids = (await admin.query(`SELECT id FROM "${schema}".tasks ORDER BY id`)).rows.map((r) => r.id);
    expect(ids).toEqual(["answered", "input-new", "working-old"]);
    for (const table of ["history", "artifacts", "push_configs"]) {
      expect(await count(schema, table, "task_id IN ('input-old', 'auth-old')"), table).toBe(0);
    }
    expect(await store.get("", "input-old")).toBeUndefined();
    await expect(prune(admin, { schema, interruptedTtlMs: -1 })).rejects.toThrow(/interruptedTtlMs must be a number/);
  });

  it("keeps a prompt whose status time is recent, though its last commit is old", async () => {
    const { schema, store } = await storeOn();
    const recent = task("recent", { state: TaskState.INPUT_REQUIRED, ms: Date.now() });
    expect(await store.commit("", { task: recent, expectedVersion: 0, events: [statusEvent(recent)] })).toBe(1);
    expect(await store.commit("", { task: recent, expectedVersion: 1, events: [statusEvent(recent)] })).toBe(2);
    await age(schema, 3 * 3_600_000);
    const options = { schema, eventsTtlMs: 3_600_000, interruptedTtlMs: 2 * 3_600_000 };
    expect(await prune(admin, options)).toEqual({ events: 1, tasks: 0 });
    expect(await count(schema, "tasks")).toBe(1);
  });

  it("prunes what the CLI's flags say: --interrupted-older-than never keeps prompts, seconds prune them", async () => {
    const { schema, store } = await storeOn();
    await made(store, "prompt", TaskState.INPUT_REQUIRED);
    await age(schema, 2 * 3_600_000);
    const run = (...flags: string[]) =>
      spawnSync(process.execPath, [CLI, "prune", "--database-url", url, "--schema", schema, ...flags], {
        encoding: "utf8",
      });
    const kept = run("--interrupted-older-than", "never");
    expect([kept.status, kept.stderr, await count(schema, "tasks")]).toEqual([0, "", 1]);
    const pruned = run("--interrupted-older-than", "3600");
    expect(pruned.stdout).toContain("deleted 0 task events and 1 tasks (terminal or unanswered)");
    expect([await count(schema, "tasks"), await count(schema, "push_configs")]).toEqual([0, 0]);
  });

  it("leaves no push config behind when a put races the prune of its task (migration 7), many times", async () => {
    const { schema, store } = await storeOn();
    const outcomes = new Map<string, number>();
    const note = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    for (let round = 0; round < 10; round++) {
      // Many due rows, so that the prune's scan takes a while and the puts land during it.
      await admin.query(
        `INSERT INTO "${schema}".tasks (tenant, id, context_id, state, status_time, version, body, updated_at)
           SELECT '', 'filler-' || $1 || '-' || g, 'c', 6, 'epoch', 1, '\\x'::bytea, now() - interval '1 day'
           FROM generate_series(1, 900) g`,
        [round],
      );
      const ids = Array.from({ length: 60 }, (_, i) => `r${round}-${i}`);
      for (const id of ids) await made(store, id, TaskState.INPUT_REQUIRED, false);
      await admin.query(`UPDATE "${schema}".tasks SET updated_at = now() - interval '1 day'`);
      const puts = ids.map(async (id, i) => {
        await new Promise((resolve) => setTimeout(resolve, i % 7));
        const config = create(TaskPushNotificationConfigSchema, { taskId: id, id: "c", url: "https://example.com/h" });
        await store.putPushConfig("", { config, protocolVersion: "1.0" }).then(
          () => note("stored"),
          (e: { type?: string }) => note(e.type ?? "other"),
        );
      });
      await Promise.all([...puts, prune(admin, { schema, eventsTtlMs: 0, interruptedTtlMs: 0 })]);
      await prune(admin, { schema, eventsTtlMs: 0, interruptedTtlMs: 0 });
    }
    // Both sides of the race happened: some puts came first, some found their task gone.
    expect([...outcomes.keys()].sort()).toEqual(["TaskNotFoundError", "stored"]);
    expect([await count(schema, "tasks"), await count(schema, "push_configs")]).toEqual([0, 0]);
  });

  it("drops the configs of tasks already gone when migration 7 ties configs to their task", async () => {
    const { schema, store } = await storeOn();
    await admin.query(`ALTER TABLE "${schema}".push_configs DROP CONSTRAINT push_configs_task`);
    await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 7`);
    await made(store, "kept", TaskState.WORKING);
    await made(store, "gone", TaskState.WORKING);
    await admin.query(`DELETE FROM "${schema}".tasks WHERE id = 'gone'`);
    expect(await count(schema, "push_configs")).toBe(2);
    expect(await migrate(admin, { schema })).toEqual({ applied: [7], version: 7 });
    expect(await count(schema, "push_configs", "task_id = 'kept'")).toBe(1);
    expect(await count(schema, "push_configs")).toBe(1);
    await admin.query(`DELETE FROM "${schema}".tasks WHERE id = 'kept'`);
    expect(await count(schema, "push_configs")).toBe(0);
  });

  it("applies migration 7 while a writer of the old release adds a config of a task already gone", async () => {
    const { schema } = await storeOn();
    await admin.query(`ALTER TABLE "${schema}".push_configs DROP CONSTRAINT push_configs_task`);
    await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 7`);
    const writer = await admin.connect();
    try {
      await writer.query("BEGIN");
      await writer.query(
        `INSERT INTO "${schema}".push_configs (tenant, task_id, id, protocol_version, config, owner)
           VALUES ('', 'gone', 'c', '1.0', '\\x', '')`,
      );
      const migrated = migrate(admin, { schema });
      // The migration waits for the writer's lock; then the writer commits its orphan.
      await expect
        .poll(async () => {
          const waiting = await admin.query(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%push_configs_task%'",
          );
          return waiting.rowCount;
        })
        .toBeGreaterThan(0);
      await writer.query("COMMIT");
      expect(await migrated).toEqual({ applied: [7], version: 7 });
    } finally {
      writer.release();
    }
    expect(await count(schema, "push_configs")).toBe(0);
  });

  it("prunes them by default seven days after their last commit, on the store's own timer", async () => {
    const errors: Error[] = [];
    const { schema, store } = await storeOn({ pruneEveryMs: 50, onError: (e) => errors.push(e) });
    await made(store, "eight-days", TaskState.AUTH_REQUIRED);
    await age(schema, 6 * 24 * 3_600_000);
    await made(store, "two-days", TaskState.INPUT_REQUIRED);
    await age(schema, 2 * 24 * 3_600_000);
    await expect.poll(() => count(schema, "tasks"), { timeout: 10_000 }).toBe(1);
    expect((await store.get("", "two-days"))?.task.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(errors).toEqual([]);
  });

  it("prunes old events and old terminal tasks with all of theirs; running and recent tasks stay", async () => {
    const { schema, store } = await storeOn();
    await made(store, "done-old", TaskState.COMPLETED);
    await made(store, "failed-old", TaskState.FAILED);
    await made(store, "working-old", TaskState.WORKING);
    await age(schema, 3 * 3_600_000);
    await made(store, "done-new", TaskState.COMPLETED);
    expect(await count(schema, "task_events")).toBe(8);

    const result = await prune(admin, { schema, eventsTtlMs: 3_600_000, terminalTtlMs: 2 * 3_600_000 });
    expect(result).toEqual({ events: 6, tasks: 2 });
    const ids = (await admin.query(`SELECT id FROM "${schema}".tasks ORDER BY id`)).rows.map((r) => r.id);
    expect(ids).toEqual(["done-new", "working-old"]);
    for (const table of ["history", "artifacts", "push_configs"]) {
      expect(await count(schema, table, "task_id IN ('done-old', 'failed-old')"), table).toBe(0);
      expect(await count(schema, table, "task_id = 'working-old'"), table).toBe(1);
    }
    expect(await count(schema, "task_events")).toBe(2);
    expect((await store.get("", "working-old"))?.task.artifacts).toHaveLength(1);
    expect(await store.get("", "done-old")).toBeUndefined();
  });

  it("keeps a terminal task as long as its events, whatever a shorter terminalTtlMs says", async () => {
    // Another instance's feed may not have read the task's last events (a cancel) yet: they would go with it.
    const { schema, store } = await storeOn();
    await made(store, "ended", TaskState.CANCELED);
    await age(schema, 30 * 60_000);
    expect(await prune(admin, { schema, eventsTtlMs: 3_600_000, terminalTtlMs: 0 })).toEqual({ events: 0, tasks: 0 });
    await age(schema, 60 * 60_000);
    expect(await prune(admin, { schema, eventsTtlMs: 3_600_000, terminalTtlMs: 0 })).toEqual({ events: 2, tasks: 1 });
  });

  it("keeps terminal tasks with terminalTtlMs Infinity, and refuses a negative TTL naming it", async () => {
    const { schema, store } = await storeOn();
    await made(store, "kept", TaskState.CANCELED);
    await age(schema, 365 * 24 * 3_600_000);
    expect(await prune(admin, { schema, terminalTtlMs: Number.POSITIVE_INFINITY })).toEqual({ events: 2, tasks: 0 });
    expect(await count(schema, "tasks")).toBe(1);
    await expect(prune(admin, { schema, terminalTtlMs: -1 })).rejects.toThrow(/terminalTtlMs must be a number of/);
    // A finite TTL past 100 years would take the database's timestamps out of range at every prune.
    await expect(prune(admin, { schema, interruptedTtlMs: 1e15 })).rejects.toThrow(
      "interruptedTtlMs must be a number of milliseconds from 0 to 3153600000000 or Infinity, got 1000000000000000",
    );
    await expect(prune(admin, { schema, eventsTtlMs: Number.POSITIVE_INFINITY })).rejects.toThrow(
      "eventsTtlMs must be a number of milliseconds from 0 to 3153600000000, got Infinity",
    );
    expect(() =>
      createPostgresTaskStore({ pool: admin, definition: A2AServiceV1_0, schema, pruneEveryMs: 0.5 }),
    ).toThrow(/pruneEveryMs must be an integer >= 0, got 0.5/);
  });

  it("prunes on the store's own timer while tasks keep coming: the rows stay bounded", async () => {
    const errors: Error[] = [];
    const { schema, store } = await storeOn({
      pruneEveryMs: 50,
      eventsTtlMs: 0,
      terminalTtlMs: 0,
      onError: (e) => errors.push(e),
    });
    let most = 0;
    for (let i = 0; i < 300; i++) {
      // No push config: the pruner may take a task (TTL 0) between its commit and a put.
      await made(store, `t${i}`, TaskState.COMPLETED, false);
      if (i % 25 === 0) {
        await new Promise((r) => setTimeout(r, 60));
        most = Math.max(most, await count(schema, "tasks"));
      }
    }
    await expect.poll(() => count(schema, "task_events"), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => count(schema, "tasks"), { timeout: 10_000 }).toBe(0);
    expect(await count(schema, "history")).toBe(0);
    expect(most).toBeLessThan(100);
    expect(errors).toEqual([]);
  });
});

describe("the LISTEN connection", () => {
  async function listeners(): Promise<number> {
    const r = await admin.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()",
    );
    return Number(r.rows[0]?.n);
  }

  it("goes back to the pool once nobody listens, and is taken again on demand", async () => {
    const before = await listeners();
    const { pool, store } = await storeOn({ listenIdleMs: 20 });
    await made(store, "l1", TaskState.WORKING);
    const seen: TaskEvent[] = [];
    const stop = await store.subscribe("", "l1", (e) => seen.push(e));
    expect(await listeners()).toBe(before + 1);
    expect(pool.totalCount - pool.idleCount).toBe(1);
    await stop();
    await expect.poll(() => pool.totalCount - pool.idleCount, { timeout: 5000 }).toBe(0);
    expect(await listeners()).toBe(before);

    const again = await store.subscribe("", "l1", (e) => seen.push(e));
    const working = task("l1", { state: TaskState.COMPLETED, history: ["hi"], artifacts: [["a", "x"]] });
    expect(await store.commit("", { task: working, expectedVersion: 2, events: [statusEvent(working)] })).toBe(3);
    await expect.poll(() => seen.map((e) => e.version)).toEqual([3]);
    expect(await listeners()).toBe(before + 1);
    await again();
  });

  it("hears another instance's commits after being taken again", async () => {
    const { schema, store } = await storeOn({ listenIdleMs: 0 });
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const other = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema, pruneEveryMs: 0 });
    cleanup.push(async () => {
      await other.close();
      await pool.end();
    });
    await made(store, "x1", TaskState.WORKING);
    for (let round = 3; round <= 5; round++) {
      const seen: number[] = [];
      const stop = await store.subscribe("", "x1", (e) => seen.push(e.version));
      const t = task("x1", { state: TaskState.WORKING, history: ["hi", `r${round}`], artifacts: [["a", "x"]] });
      expect(await other.commit("", { task: t, expectedVersion: round - 1, events: [statusEvent(t)] })).toBe(round);
      await expect.poll(() => seen).toEqual([round]);
      await stop();
    }
  });
});

describe("one commit", () => {
  it("is one statement, and sends only the rows that changed since this store's last commit", async () => {
    const { store } = await storeOn();
    const texts: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { text?: string; values?: unknown[] } | string;
      const text = typeof config === "string" ? config : (config.text ?? "");
      // The commits' statements; the store's own timers (lease sweeps) may run queries of their own meanwhile.
      if (text.startsWith("WITH t AS"))
        texts.push(JSON.stringify((config as { values?: unknown[] }).values).length.toString());
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const history = Array.from({ length: 40 }, (_, i) => `message ${i} ${"x".repeat(200)}`);
      const t1 = task("big", { state: TaskState.WORKING, history });
      await store.commit("", { task: t1, expectedVersion: 0, events: [statusEvent(t1)] });
      const t2 = task("big", { state: TaskState.WORKING, history: [...history, "one more"] });
      await store.commit("", { task: t2, expectedVersion: 1, events: [statusEvent(t2)] });
    } finally {
      pg.Client.prototype.query = query;
    }
    expect(texts).toHaveLength(2);
    const [first, second] = texts.map(Number);
    expect(second).toBeLessThan(first! / 10);
    expect((await store.get("", "big"))?.task.history).toHaveLength(41);
  });
});

describe("the memory store's terminal tasks", () => {
  it("are kept seven days after their last commit by default, then dropped", async () => {
    let now = 1_000_000;
    const store = createMemoryTaskStore({ now: () => now });
    const t = task("m1", { state: TaskState.COMPLETED });
    await store.commit("", { task: t, expectedVersion: 0, events: [] });
    now += DEFAULT_TERMINAL_TTL_MS - 1;
    expect(await store.get("", "m1")).toBeDefined();
    now += 2;
    expect(await store.get("", "m1")).toBeUndefined();
    expect(DEFAULT_TERMINAL_TTL_MS).toBe(7 * 24 * 3_600_000);
    await store.close();
  });

  it("are kept for good with terminalTtlMs Infinity", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ now: () => now, terminalTtlMs: Number.POSITIVE_INFINITY });
    const t = task("m2", { state: TaskState.FAILED });
    await store.commit("", { task: t, expectedVersion: 0, events: [] });
    now += 10 * DEFAULT_TERMINAL_TTL_MS;
    expect(await store.get("", "m2")).toBeDefined();
    await store.close();
  });
});
