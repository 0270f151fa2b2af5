/**
 * The PostgreSQL TaskStore on a real, private PostgreSQL (the global setup's
 * cluster; each test file its own SQL schema): migrations (function and CLI on
 * the built dist), compare-and-set commits, whole-task reads, ListTasks
 * filters and keyset pages, push configs, events across two stores with their
 * own pools (including a lost LISTEN connection and a missed notification),
 * and concurrent commits from two stores losing no event and no artifact
 * (fast-check); and the backend-neutral contract suite (store-contract.ts).
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { createPostgresTaskStore, migrate, pruneEvents } from "@protoc-gen-a2a/runtime/postgres";
import type { TaskEvent, TaskQuery, TaskStore } from "../../packages/runtime/src/task/store.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { create } from "@bufbuild/protobuf";
import { MessageSchema, TaskPushNotificationConfigSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { repoRoot } from "../helpers/run.js";
import { describeTaskStore } from "./store-contract.js";
import { artifact, artifactEvent, statusEvent, task, TaskState } from "../helpers/task-values.js";

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

/** A migrated schema and `count` stores on it, each with its own pool. */
async function stores(count: number, options: { recheckMs?: number; onError?: (e: Error) => void } = {}) {
  const schema = uniqueSchema("st");
  await migrate(admin, { schema });
  const made: TaskStore[] = [];
  for (let i = 0; i < count; i++) {
    const pool = new pg.Pool({ connectionString: url, max: 6 });
    const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema, ...options });
    made.push(store);
    cleanup.push(async () => {
      await store.close();
      await pool.end();
    });
  }
  return { schema, stores: made };
}

function query(overrides: Partial<TaskQuery> = {}): TaskQuery {
  return { contextId: "", status: 0, statusAfterMs: undefined, pageSize: 50, pageToken: "", ...overrides };
}

let contractSchema: Promise<string> | undefined;
describeTaskStore("postgres", async () => {
  contractSchema ??= (async () => {
    const schema = uniqueSchema("contract");
    await migrate(admin, { schema });
    return schema;
  })();
  return createPostgresTaskStore({ pool: url, definition: A2AServiceV1_0, schema: await contractSchema });
});

describe("migrate", () => {
  it("creates the tables once, records the version, and may run concurrently", async () => {
    const schema = uniqueSchema("mig");
    const runs = await Promise.all([
      migrate(admin, { schema }),
      migrate(admin, { schema }),
      migrate(admin, { schema }),
    ]);
    expect(runs.map((r) => r.applied.length).sort()).toEqual([0, 0, 7]);
    expect(runs.every((r) => r.version === 7)).toBe(true);
    const again = await migrate(admin, { schema });
    expect(again).toEqual({ applied: [], version: 7 });
    const tables = await admin.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      "artifacts",
      "history",
      "migrations",
      "push_configs",
      "task_events",
      "tasks",
    ]);
    const indexes = await admin.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE schemaname = $1", [
      schema,
    ]);
    expect(indexes.rows.map((r) => r.indexdef).join("\n")).toContain("(tenant, status_time DESC, id)");
    const collations = await admin.query<{ collation_name: string }>(
      "SELECT collation_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'tasks' " +
        "AND column_name IN ('tenant', 'id', 'context_id')",
      [schema],
    );
    expect(collations.rows.map((r) => r.collation_name)).toEqual(["C", "C", "C"]);
  });

  it("a store on an unmigrated schema says so, naming the operation", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema: uniqueSchema("none") });
    await expect(store.get("ten", "t9")).rejects.toThrow(
      /get of task "t9" \(tenant "ten"\) failed: .*does not exist \(run `a2a-task-store migrate`/,
    );
    await expect(store.commit("", { task: task("t9"), expectedVersion: 0, events: [] })).rejects.toThrow(
      /commit of task "t9" \(tenant "", expected version 0\) failed/,
    );
    await store.close();
    await pool.end();
  });

  it("refuses a pool of one connection, which the LISTEN connection would starve", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    expect(() => createPostgresTaskStore({ pool, definition: A2AServiceV1_0 })).toThrow(/max >= 2/);
    await pool.end();
  });

  it("refuses a schema name that is no plain identifier, naming it", async () => {
    await expect(migrate(admin, { schema: 'x"; DROP TABLE y; --' })).rejects.toThrow(/schema "x"; DROP/);
  });

  it("runs as the a2a-task-store CLI on the built dist, from --database-url or DATABASE_URL", () => {
    const schema = uniqueSchema("cli");
    const first = spawnSync(process.execPath, [CLI, "migrate", "--database-url", url, "--schema", schema], {
      encoding: "utf8",
    });
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`schema "${schema}" at version 7 (applied 1, 2, 3, 4, 5, 6, 7)`);
    const second = spawnSync(process.execPath, [CLI, "migrate", "--schema", schema], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: url },
    });
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("already up to date");
    const prune = spawnSync(process.execPath, [CLI, "prune", "--schema", schema, "--older-than", "0"], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: url },
    });
    expect(prune.status).toBe(0);
    expect(prune.stdout).toContain("deleted 0 task events and 0 tasks");
    const flags = ["--terminal-older-than", "never", "--interrupted-older-than", "never"];
    const kept = spawnSync(process.execPath, [CLI, "prune", "--schema", schema, "--database-url", url, ...flags], {
      encoding: "utf8",
    });
    expect([kept.status, kept.stderr]).toEqual([0, ""]);
    const bad = spawnSync(process.execPath, [CLI, "prune", "--database-url", url, "--interrupted-older-than", "soon"], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--interrupted-older-than "soon" is not a number of seconds up to 3153600000');
    for (const [flag, value] of [
      ["--interrupted-older-than", " "],
      ["--terminal-older-than", "1e12"],
      ["--older-than", "never"],
    ]) {
      const refused = spawnSync(process.execPath, [CLI, "prune", "--database-url", url, flag!, value!], {
        encoding: "utf8",
      });
      expect([refused.status, refused.stderr.split("\n")[0]]).toEqual([
        2,
        expect.stringContaining(`${flag} "${value}"`),
      ]);
    }
    // A long value is shown by its start only.
    const long = spawnSync(process.execPath, [CLI, "prune", "--database-url", url, "--older-than", "9".repeat(400)], {
      encoding: "utf8",
    });
    expect([long.status, long.stderr.split("\n")[0]]).toEqual([
      2,
      `a2a-task-store: --older-than "${"9".repeat(40)}…" is not a number of seconds up to 3153600000`,
    ]);
  });

  it("fails, not the process, when its connection dies mid-migration (in process and in the CLI)", async () => {
    // The migration waits for its advisory lock, held here; its backend is then terminated, as a restart would.
    const lockHolder = await admin.connect();
    const holder = (await lockHolder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
    /** Terminates the backend the lock holder blocks, once there is one. */
    const killWaiting = () =>
      vi.waitFor(
        async () => {
          const { rowCount } = await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
            [holder],
          );
          expect(rowCount).toBe(1);
        },
        { timeout: 10_000, interval: 50 },
      );
    try {
      const schema = uniqueSchema("mk");
      await lockHolder.query("BEGIN");
      await lockHolder.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`a2a-task-store-migrate:${schema}`]);
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      pool.on("error", () => {});
      const migrating = migrate(pool, { schema }).then(
        () => "migrated",
        (e: Error) => e.message,
      );
      await killWaiting();
      expect(await migrating).toMatch(/^PostgreSQL task store: migrating schema "mk_.*" failed: /);
      await pool.end();
      const cli = spawn(process.execPath, [CLI, "migrate", "--database-url", url, "--schema", schema]);
      const output = { stdout: "", stderr: "" };
      cli.stdout.on("data", (d: Buffer) => (output.stdout += d));
      cli.stderr.on("data", (d: Buffer) => (output.stderr += d));
      const exited = new Promise<number | null>((resolve) => cli.on("close", resolve));
      await killWaiting();
      expect([await exited, output.stderr.split("\n")[0]]).toEqual([
        1,
        expect.stringMatching(/^a2a-task-store migrate: PostgreSQL task store: migrating schema "mk_.*" failed/),
      ]);
      expect(output.stderr).not.toContain("    at ");
    } finally {
      await lockHolder.query("ROLLBACK").catch(() => {});
      lockHolder.release();
    }
  });

  it("CLI: usage errors exit 2, a database failure exits 1 with the reason", () => {
    const env = { ...process.env, DATABASE_URL: "" };
    const noUrl = spawnSync(process.execPath, [CLI, "migrate"], { encoding: "utf8", env });
    expect(noUrl.status).toBe(2);
    expect(noUrl.stderr).toContain("no --database-url and no DATABASE_URL");
    const badCommand = spawnSync(process.execPath, [CLI, "drop", "--database-url", url], { encoding: "utf8", env });
    expect(badCommand.status).toBe(2);
    expect(badCommand.stderr).toContain('got "drop"');
    const badDb = spawnSync(process.execPath, [CLI, "migrate", "--database-url", `${url}_missing`], {
      encoding: "utf8",
      env,
    });
    expect(badDb.status).toBe(1);
    expect(badDb.stderr).toMatch(/a2a-task-store migrate: .*a2a_test_missing/);
  });
});

describe("tasks", () => {
  it("creates, reads whole, and refuses a second create or a stale version", async () => {
    const [store] = (await stores(1)).stores as [TaskStore];
    const t = task("t1", { ms: 1000, history: ["hi", "there"], artifacts: [["a", "x"]] });
    expect(await store.commit("", { task: t, expectedVersion: 0, events: [statusEvent(t)] })).toBe(1);
    expect(await store.get("", "t1")).toEqual({ task: t, version: 1 });
    expect(await store.get("other-tenant", "t1")).toBeUndefined();
    expect(await store.commit("", { task: task("t1", { ms: 5 }), expectedVersion: 0, events: [] })).toBeUndefined();
    const stale = task("t1", { ms: 2000, state: TaskState.WORKING });
    expect(await store.commit("", { task: stale, expectedVersion: 7, events: [] })).toBeUndefined();
    expect(await store.get("", "t1")).toEqual({ task: t, version: 1 });
  });

  it("stores the task after each commit exactly: history grows and shrinks, artifacts change, move, go", async () => {
    const [store] = (await stores(1)).stores as [TaskStore];
    const steps = [
      task("t", {
        history: ["a"],
        artifacts: [
          ["x", "1"],
          ["y", "2"],
        ],
      }),
      task("t", {
        history: ["a", "b", "c"],
        artifacts: [
          ["x", "1"],
          ["y", "2 changed"],
          ["z", "3"],
        ],
      }),
      task("t", {
        state: TaskState.WORKING,
        history: ["a", "B"],
        artifacts: [
          ["z", "3"],
          ["x", "1"],
        ],
      }),
      task("t", { state: TaskState.COMPLETED, ms: 99, history: [], artifacts: [] }),
    ];
    let version = 0;
    for (const step of steps) {
      const next = await store.commit("", { task: step, expectedVersion: version, events: [] });
      expect(next).toBe(version + 1);
      version = next ?? 0;
      expect(await store.get("", "t")).toEqual({ task: step, version });
    }
  });

  it("reads back a message that encodes to no bytes, and one of 300 KiB, exactly", async () => {
    const [store] = (await stores(1)).stores as [TaskStore];
    const big = "x".repeat(300 * 1024);
    const whole = task("big", { history: ["a"], artifacts: [["x", big]] });
    const stored = { ...whole, history: [create(MessageSchema), ...whole.history, create(MessageSchema)] };
    stored.history[1] = {
      ...stored.history[1]!,
      parts: [{ ...stored.history[1]!.parts[0]!, content: { case: "text", value: big } }],
    };
    expect(await store.commit("", { task: stored, expectedVersion: 0, events: [] })).toBe(1);
    expect(await store.get("", "big")).toEqual({ task: stored, version: 1 });
  });

  it("keeps tenants apart", async () => {
    const [store] = (await stores(1)).stores as [TaskStore];
    await store.commit("a", { task: task("same", { contextId: "in-a" }), expectedVersion: 0, events: [] });
    await store.commit("b", { task: task("same", { contextId: "in-b" }), expectedVersion: 0, events: [] });
    expect((await store.get("a", "same"))?.task.contextId).toBe("in-a");
    expect((await store.get("b", "same"))?.task.contextId).toBe("in-b");
    expect((await store.list("a", query())).tasks.map((t) => t.contextId)).toEqual(["in-a"]);
  });
});

describe("ListTasks", () => {
  let store: TaskStore;
  beforeAll(async () => {
    [store] = (await stores(1)).stores as [TaskStore];
    for (let i = 0; i < 25; i++) {
      const t = task(`task-${String(i).padStart(2, "0")}`, {
        contextId: i % 2 === 0 ? "even" : "odd",
        state: i % 3 === 0 ? TaskState.COMPLETED : TaskState.WORKING,
        ms: 1_000_000 + Math.floor(i / 4) * 1000,
      });
      await store.commit("", { task: t, expectedVersion: 0, events: [] });
    }
    await store.commit("", { task: task("no-time"), expectedVersion: 0, events: [] });
    await store.commit("elsewhere", { task: task("x", { ms: 5_000_000 }), expectedVersion: 0, events: [] });
  });

  /** Every page of a query; each page is checked against the page size. */
  async function walk(q: TaskQuery): Promise<{ ids: string[]; totals: number[] }> {
    const ids: string[] = [];
    const totals: number[] = [];
    let token = "";
    for (let page = 0; page < 100; page++) {
      const result = await store.list("", { ...q, pageToken: token });
      expect(result.tasks.length).toBeLessThanOrEqual(q.pageSize);
      ids.push(...result.tasks.map((t) => t.id));
      totals.push(result.totalSize);
      token = result.nextPageToken;
      if (token === "") return { ids, totals };
    }
    throw new Error("more than 100 pages");
  }

  it("orders newest status first, ties by id, and pages through everything once", async () => {
    const all = await store.list("", query({ pageSize: 100 }));
    const expected = [...all.tasks]
      .map((t) => t.id)
      .filter((id) => id !== "no-time")
      .sort((a, b) => {
        const n = (id: string) => Math.floor(Number(id.slice(5)) / 4);
        return n(b) - n(a) || (a < b ? -1 : 1);
      });
    expect(all.tasks.map((t) => t.id)).toEqual([...expected, "no-time"]);
    expect(all.totalSize).toBe(26);
    for (const pageSize of [1, 3, 4, 7, 26]) {
      const { ids, totals } = await walk(query({ pageSize }));
      expect(ids).toEqual(all.tasks.map((t) => t.id));
      expect(new Set(totals)).toEqual(new Set([26]));
    }
  });

  it("filters by context, state and status time in SQL, with totalSize over the filters", async () => {
    const q = query({ contextId: "even", status: TaskState.COMPLETED, statusAfterMs: 1_001_000, pageSize: 2 });
    const { ids, totals } = await walk(q);
    const wanted = Array.from({ length: 25 }, (_, i) => i).filter(
      (i) => i % 2 === 0 && i % 3 === 0 && 1_000_000 + Math.floor(i / 4) * 1000 >= 1_001_000,
    );
    expect([...ids].sort()).toEqual(wanted.map((i) => `task-${String(i).padStart(2, "0")}`).sort());
    expect(totals[0]).toBe(wanted.length);
    expect((await store.list("", query({ contextId: "none" }))).totalSize).toBe(0);
  });

  it("refuses a malformed page token with InvalidParamsError naming pageToken", async () => {
    const pushToken = (await storeWithConfigs()).nextPageToken;
    for (const pageToken of [
      "garbage!",
      "bm90IGpzb24",
      Buffer.from('["t1","x","y"]').toString("base64url"),
      pushToken,
    ]) {
      const error = await store.list("", query({ pageToken })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2AError);
      expect((error as A2AError).type).toBe("InvalidParamsError");
      expect((error as A2AError).message).toContain("pageToken");
    }
  });

  async function storeWithConfigs() {
    for (const id of ["c1", "c2"]) {
      const config = create(TaskPushNotificationConfigSchema, { id, taskId: "task-00", url: "https://x.example/" });
      await store.putPushConfig("", { config, protocolVersion: "1.0" });
    }
    return store.listPushConfigs("", "task-00", 1, "");
  }
});

describe("push configs", () => {
  it("puts, replaces, gets, pages, deletes, with the protocol version", async () => {
    const [store] = (await stores(1)).stores as [TaskStore];
    await store.commit("", { task: task("t"), expectedVersion: 0, events: [] });
    const config = (id: string, url: string) =>
      create(TaskPushNotificationConfigSchema, { id, taskId: "t", url, token: `tok-${id}` });
    for (const id of ["b", "a", "c"])
      await store.putPushConfig("", { config: config(id, "https://1/"), protocolVersion: "1.0" });
    await store.putPushConfig("", { config: config("b", "https://2/"), protocolVersion: "0.3" });
    expect(await store.getPushConfig("", "t", "b")).toEqual({
      config: config("b", "https://2/"),
      protocolVersion: "0.3",
      owner: "",
    });
    expect(await store.getPushConfig("", "other", "b")).toBeUndefined();
    const all = await store.listPushConfigs("", "t", 0, "");
    expect(all.configs.map((c) => c.config.id)).toEqual(["a", "b", "c"]);
    expect(all.nextPageToken).toBe("");
    const first = await store.listPushConfigs("", "t", 2, "");
    expect(first.configs.map((c) => c.config.id)).toEqual(["a", "b"]);
    const second = await store.listPushConfigs("", "t", 2, first.nextPageToken);
    expect(second.configs.map((c) => c.config.id)).toEqual(["c"]);
    expect(second.nextPageToken).toBe("");
    await expect(store.listPushConfigs("", "t", 2, "nope")).rejects.toThrow(/pageToken/);
    expect(await store.deletePushConfig("", "t", "a")).toBe(true);
    expect(await store.deletePushConfig("", "t", "a")).toBe(false);
    expect((await store.listPushConfigs("", "t", 0, "")).configs.map((c) => c.config.id)).toEqual(["b", "c"]);
  });
});

/** Collects a subscription's events. */
async function collect(store: TaskStore, tenant: string, taskId: string) {
  const events: TaskEvent[] = [];
  const stop = await store.subscribe(tenant, taskId, (e) => events.push(e));
  return { events, stop };
}

async function eventually(check: () => void): Promise<void> {
  await vi.waitFor(check, { timeout: 30_000, interval: 20 });
}

describe("events", () => {
  it("reach subscribers of another store (own pool) in version order, from subscribe on", async () => {
    const [a, b] = (await stores(2)).stores as [TaskStore, TaskStore];
    const t = task("e1", { state: TaskState.SUBMITTED });
    await a.commit("", { task: t, expectedVersion: 0, events: [statusEvent(t)] });
    const onB = await collect(b, "", "e1");
    const onA = await collect(a, "", "e1");
    const working = task("e1", { state: TaskState.WORKING });
    await a.commit("", { task: working, expectedVersion: 1, events: [statusEvent(working)] });
    const done = task("e1", { state: TaskState.COMPLETED, artifacts: [["r", "result"]] });
    const events = [artifactEvent(done, artifact("r", "result")), statusEvent(done)];
    await b.commit("", { task: done, expectedVersion: 2, events });
    const want = [
      { tenant: "", taskId: "e1", version: 2, event: statusEvent(working) },
      { tenant: "", taskId: "e1", version: 3, event: events[0] },
      { tenant: "", taskId: "e1", version: 3, event: events[1] },
    ];
    await eventually(() => expect(onB.events).toEqual(want));
    await eventually(() => expect(onA.events).toEqual(want));
    await onB.stop();
    const later = task("e1", { state: TaskState.COMPLETED, ms: 5 });
    await a.commit("", { task: later, expectedVersion: 3, events: [statusEvent(later)] });
    await eventually(() => expect(onA.events).toHaveLength(4));
    expect(onB.events).toHaveLength(3);
  });

  it("arrive when the tenant and task id are too long for a NOTIFY payload", async () => {
    const [a, b] = (await stores(2)).stores as [TaskStore, TaskStore];
    // Keys of the longest a store takes (512 bytes each); the payload's limit is 1000 bytes (commit.ts).
    const tenant = "t".repeat(512);
    const id = `long-${"x".repeat(507)}`;
    const t = task(id);
    await a.commit(tenant, { task: t, expectedVersion: 0, events: [statusEvent(t)] });
    const sub = await collect(b, tenant, id);
    await a.commit(tenant, { task: t, expectedVersion: 1, events: [statusEvent(t)] });
    await eventually(() => expect(sub.events.map((e) => e.version)).toEqual([2]));
  });

  it("of a task's creation are neither stored nor notified; another store's subscriber gets the next", async () => {
    const { schema, stores: made } = await stores(2, { recheckMs: 0 });
    const [a, b] = made as [TaskStore, TaskStore];
    const heard: string[] = [];
    const listener = await admin.connect();
    cleanup.push(async () => listener.release());
    listener.on("notification", (n) => heard.push(n.payload ?? ""));
    await listener.query(`LISTEN "a2a_task_events:${schema}"`);
    // Listening before the task exists, as SubscribeToTask does before its read finds the task missing.
    const early = await collect(b, "", "born");
    const t = task("born", { state: TaskState.WORKING });
    await a.commit("", { task: t, expectedVersion: 0, events: [statusEvent(t)] });
    const done = task("born", { state: TaskState.COMPLETED });
    await a.commit("", { task: done, expectedVersion: 1, events: [statusEvent(done)] });
    await eventually(() => expect(early.events.map((e) => e.version)).toEqual([2]));
    await listener.query("SELECT 1");
    expect(await admin.query(`SELECT version FROM "${schema}".task_events`)).toMatchObject({ rows: [{ version: 2 }] });
    expect(heard.map((payload) => JSON.parse(payload))).toEqual([{ t: "", i: "born", v: 2 }]);
  });

  it("of a task's creation reach the creating store's subscribers while its reads are under way", async () => {
    // A recheck every millisecond keeps a read of the watched tasks under way at almost every commit.
    const [store] = (await stores(1, { recheckMs: 1 })).stores as [TaskStore];
    const subs: Awaited<ReturnType<typeof collect>>[] = [];
    for (let i = 0; i < 40; i++) {
      const sub = await collect(store, "", `busy-${i}`);
      const t = task(`busy-${i}`, { state: TaskState.WORKING });
      await store.commit("", { task: t, expectedVersion: 0, events: [statusEvent(t), statusEvent(t)] });
      subs.push(sub);
    }
    await eventually(() => expect(subs.map((s) => s.events.length)).toEqual(subs.map(() => 2)));
    for (const sub of subs) await sub.stop();
  });

  it("arrive after the LISTEN connection is killed, and the loss is reported", async () => {
    const errors: Error[] = [];
    const { schema, stores: made } = await stores(2, { recheckMs: 0, onError: (e) => errors.push(e) });
    const [a, b] = made as [TaskStore, TaskStore];
    const t = task("k1");
    await a.commit("", { task: t, expectedVersion: 0, events: [] });
    const sub = await collect(b, "", "k1");
    const killed = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND datname = 'a2a_test'",
      [`LISTEN "a2a_task_events:${schema}"`],
    );
    expect(killed.rowCount).toBe(1);
    for (let v = 1; v <= 3; v++) {
      const next = task("k1", { ms: v });
      await a.commit("", { task: next, expectedVersion: v, events: [statusEvent(next)] });
    }
    await eventually(() => expect(sub.events.map((e) => e.version)).toEqual([2, 3, 4]));
    expect(errors.map((e) => e.message).join("\n")).toContain("LISTEN connection lost");
  });

  it("arrive when a notification never comes, through the recheck", async () => {
    const { schema, stores: made } = await stores(1, { recheckMs: 50 });
    const [store] = made as [TaskStore];
    const t = task("quiet");
    await store.commit("", { task: t, expectedVersion: 0, events: [] });
    const sub = await collect(store, "", "quiet");
    // A commit whose NOTIFY was lost: the rows alone, written behind the store's back.
    await admin.query(`UPDATE "${schema}".tasks SET version = 2 WHERE id = 'quiet'`);
    await admin.query(
      `INSERT INTO "${schema}".task_events (tenant, task_id, version, seq, event) VALUES ('', 'quiet', 2, 0, '')`,
    );
    await eventually(() => expect(sub.events.map((e) => e.version)).toEqual([2]));
  });

  it("go on to other subscribers when one throws, and the throw is reported", async () => {
    const errors: Error[] = [];
    const [store] = (await stores(1, { onError: (e) => errors.push(e) })).stores as [TaskStore];
    const t = task("throws");
    await store.commit("", { task: t, expectedVersion: 0, events: [] });
    await store.subscribe("", "throws", () => {
      throw new Error("listener broke");
    });
    const sub = await collect(store, "", "throws");
    await store.commit("", { task: t, expectedVersion: 1, events: [statusEvent(t)] });
    await store.commit("", { task: t, expectedVersion: 2, events: [statusEvent(t)] });
    await eventually(() => expect(sub.events.map((e) => e.version)).toEqual([2, 3]));
    expect(errors.map((e) => e.message)).toEqual([
      'PostgreSQL task store: a subscriber of task "throws" threw: listener broke',
      'PostgreSQL task store: a subscriber of task "throws" threw: listener broke',
    ]);
  });

  it("can be pruned when old", async () => {
    const { schema, stores: made } = await stores(1);
    const [store] = made as [TaskStore];
    const t = task("p1");
    await store.commit("", { task: t, expectedVersion: 0, events: [statusEvent(t)] });
    await store.commit("", { task: t, expectedVersion: 1, events: [statusEvent(t), statusEvent(t)] });
    expect(await pruneEvents(admin, { schema })).toBe(0);
    await admin.query(`UPDATE "${schema}".task_events SET created_at = now() - interval '2 hours'`);
    expect(await pruneEvents(admin, { schema })).toBe(2);
    expect((await store.get("", "p1"))?.version).toBe(2);
  });
});

describe("concurrent commits through two stores", () => {
  it("lose no event and no artifact (fast-check)", async () => {
    const [a, b] = (await stores(2)).stores as [TaskStore, TaskStore];
    let run = 0;
    let conflicts = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }), async (writers, commits) => {
        const id = `race-${run++}`;
        const start = task(id);
        await a.commit("", { task: start, expectedVersion: 0, events: [] });
        const seen = [await collect(a, "", id), await collect(b, "", id)];
        const won = new Map<number, string>();
        const writer = async (store: TaskStore, name: string) => {
          for (let k = 0; k < commits; k++) {
            const artifactId = `${name}-${k}`;
            for (let attempt = 0; ; attempt++) {
              if (attempt > 1000) throw new Error(`${artifactId}: no commit in 1000 attempts`);
              const read = await store.get("", id);
              if (read === undefined) throw new Error(`${id} vanished`);
              const added = artifact(artifactId, name);
              const next = { ...read.task, artifacts: [...read.task.artifacts, added] };
              const event = artifactEvent(next, added);
              const version = await store.commit("", { task: next, expectedVersion: read.version, events: [event] });
              if (version === undefined) {
                conflicts++;
                continue;
              }
              expect(won.has(version)).toBe(false);
              won.set(version, artifactId);
              break;
            }
          }
        };
        const names = Array.from({ length: writers }, (_, w) => w);
        await Promise.all(names.flatMap((w) => [writer(a, `a${w}`), writer(b, `b${w}`)]));
        const total = 2 * writers * commits;
        const final = await b.get("", id);
        expect(final?.version).toBe(1 + total);
        const ids = final?.task.artifacts.map((x) => x.artifactId) ?? [];
        expect(ids).toEqual(Array.from({ length: total }, (_, i) => won.get(i + 2)));
        for (const sub of seen) {
          await eventually(() => expect(sub.events).toHaveLength(total));
          const got = sub.events.map((e) =>
            e.event.payload.case === "artifactUpdate" ? [e.version, e.event.payload.value.artifact?.artifactId] : [],
          );
          expect(got).toEqual(Array.from({ length: total }, (_, i) => [i + 2, won.get(i + 2)]));
          await sub.stop();
        }
      }),
      { numRuns: 8 },
    );
    expect(conflicts).toBeGreaterThan(0);
  });
});
