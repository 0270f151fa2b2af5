/**
 * Turn leases of the PostgreSQL store (packages/runtime/src/task/postgres/leases.ts)
 * on the test cluster, one schema for the file: a live instance renews its
 * leases, so another instance's sweeper leaves its task alone; a store
 * sweeps once when it starts (a lease of ten minutes: no timer tick comes
 * within the test), ending a dead owner's WORKING task FAILED with its event
 * row (that its NOTIFY reaches other instances' subscribers is
 * orphaned-tasks.test.ts's part); an expired turn on a task already terminal
 * only loses the turn (no commit, no event); the executor of a task swept so is aborted; a renewal that
 * fails (a row lock held past lock_timeout) is tried again soon, not at the next tick, and reported at the
 * tick's cadence, not at each retry. Every wait is
 * bounded; no assertion is on speed.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPostgresTaskStore, LEASE_FAILURE_TEXT, migrate } from "@protoc-gen-a2a/runtime/postgres";
import { fromBinary } from "@bufbuild/protobuf";
import type { TaskStore } from "../../packages/runtime/src/task/store.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { type StreamResponse, StreamResponseSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { handlerContext, task, TaskState } from "../helpers/task-values.js";
import { createTaskHandler } from "@protoc-gen-a2a/runtime/task";
import { create } from "@bufbuild/protobuf";
import { Role, SendMessageRequestSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

const WAIT = { timeout: 30_000, interval: 20 };

let admin: pg.Pool;
let schema: string;
const opened: TaskStore[] = [];

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
  schema = uniqueSchema("lease");
  await migrate(admin, { schema });
});

afterAll(async () => {
  for (const store of opened) await store.close();
  await admin?.end();
});

function store(leaseMs: number): TaskStore {
  const made = createPostgresTaskStore({ pool: postgresUrl(), definition: A2AServiceV1_0, schema, leaseMs });
  opened.push(made);
  return made;
}

interface TurnRow {
  turn_id: string | null;
  turn_owner: string | null;
  expires_ms: string | null;
  version: number;
  state: number;
}

async function turnRow(tenant: string, id: string): Promise<TurnRow> {
  const result = await admin.query<TurnRow>(
    `SELECT turn_id, turn_owner, (extract(epoch FROM turn_expires) * 1000)::bigint::text AS expires_ms, version, state
     FROM "${schema}".tasks WHERE tenant = $1 AND id = $2`,
    [tenant, id],
  );
  return result.rows[0]!;
}

/** Gives the task a turn of a dead owner whose lease ran out a second ago. */
async function orphan(tenant: string, id: string): Promise<void> {
  await admin.query(
    `UPDATE "${schema}".tasks SET turn_id = 'gone', turn_owner = 'dead instance', turn_expires = now() - interval '1 s'
     WHERE tenant = $1 AND id = $2`,
    [tenant, id],
  );
}

/** Writes `t` through a store that is closed at once (no sweep of its own later), then orphans its turn. */
async function orphaned(tenant: string, t: ReturnType<typeof task>): Promise<void> {
  const writer = store(600_000);
  await writer.commit(tenant, { task: t, expectedVersion: 0, events: [] });
  await writer.close();
  await orphan(tenant, t.id);
}

/** The task_events rows of a task, decoded. */
async function eventsOf(tenant: string, id: string): Promise<{ version: number; event: StreamResponse }[]> {
  const rows = await admin.query<{ version: number; event: Buffer }>(
    `SELECT version, event FROM "${schema}".task_events WHERE tenant = $1 AND task_id = $2 ORDER BY version, seq`,
    [tenant, id],
  );
  return rows.rows.map((r) => ({ version: r.version, event: fromBinary(StreamResponseSchema, r.event) }));
}

describe("turn leases", () => {
  it("a live instance renews its lease; another instance's sweeper leaves its task running", async () => {
    const [owner, other] = [store(600), store(600)];
    const tenant = crypto.randomUUID();
    const t = task("live", { ms: 1000, state: TaskState.WORKING });
    expect(await owner.commit(tenant, { task: t, expectedVersion: 0, events: [], startTurn: "t1" })).toBe(1);
    expect((await other.get(tenant, "live"))?.turn).toBe("t1");
    const seen = new Set<string>();
    await vi.waitFor(async () => {
      const row = await turnRow(tenant, "live");
      expect(row.turn_id).toBe("t1");
      seen.add(row.expires_ms!);
      // Five renewals: several of the other instance's sweeps ran meanwhile.
      expect(seen.size).toBeGreaterThanOrEqual(6);
    }, WAIT);
    expect(await turnRow(tenant, "live")).toMatchObject({ turn_id: "t1", version: 1, state: TaskState.WORKING });
    await owner.endTurn(tenant, "live", "t1");
    expect((await turnRow(tenant, "live")).turn_id).toBeNull();
    // Their sweeps stop here: in the next tests, only a store's start may sweep.
    await owner.close();
    await other.close();
  });

  it("renews again soon after a failed renewal, so a short outage never lets the lease run out", async () => {
    // Renewals every 2 s; a renewal that waits 50 ms for a row lock fails.
    const leaseMs = 6000;
    const pool = new pg.Pool({ connectionString: postgresUrl(), max: 2, options: "-c lock_timeout=50" });
    const failures: number[] = [];
    // Each renewal and sweep takes a connection from the pool: the attempts, reported or not.
    let acquired = 0;
    pool.on("acquire", () => acquired++);
    const owner = createPostgresTaskStore({
      pool,
      definition: A2AServiceV1_0,
      schema,
      leaseMs,
      pruneEveryMs: 0,
      onError: (e) => {
        if (e.message.includes("renewing and sweeping turn leases")) failures.push(Date.now());
      },
    });
    const tenant = crypto.randomUUID();
    const locker = await admin.connect();
    try {
      const t = task("blip", { ms: 1000, state: TaskState.WORKING });
      await owner.commit(tenant, { task: t, expectedVersion: 0, events: [], startTurn: "t1" });
      await locker.query("BEGIN");
      await locker.query(`SELECT 1 FROM "${schema}".tasks WHERE tenant = $1 AND id = 'blip' FOR UPDATE`, [tenant]);
      const { expires_ms } = await turnRow(tenant, "blip");
      const lease = Number(expires_ms);
      // Held past the renewal after the first failed one: without early renewals, the next comes as the lease ends.
      await vi.waitFor(() => expect(failures.length).toBeGreaterThan(0), WAIT);
      const attemptsBefore = acquired;
      await new Promise((resolve) => setTimeout(resolve, leaseMs / 3 + 500));
      await locker.query("ROLLBACK");
      const attempts = acquired - attemptsBefore;
      // Renewed while more than 700 ms of the old lease were left (PostgreSQL's clock on both sides).
      await vi.waitFor(async () => expect(Number((await turnRow(tenant, "blip")).expires_ms)).toBeGreaterThan(lease), {
        timeout: leaseMs,
        interval: 20,
      });
      const now = await admin.query<{ ms: string }>("SELECT (extract(epoch FROM now()) * 1000)::bigint::text AS ms");
      expect(lease - Number(now.rows[0]!.ms)).toBeGreaterThan(700);
      // Tried again every 200 ms while the lock was held (2.5 s), and reported about once per 2 s tick: twice.
      expect(attempts).toBeGreaterThan(4);
      expect(failures.length).toBeGreaterThanOrEqual(2);
      expect(failures.length).toBeLessThan(attempts / 2);
    } finally {
      locker.release();
      await owner.close();
      await pool.end();
    }
  });

  it("a store sweeps when it starts: a dead owner's WORKING task ends FAILED, with its event", async () => {
    const tenant = crypto.randomUUID();
    await orphaned(tenant, task("orphan", { ms: 1000, state: TaskState.WORKING, history: ["hi"] }));
    const sweeper = store(600_000);
    await vi.waitFor(async () => expect((await sweeper.get(tenant, "orphan"))?.version).toBe(2), WAIT);
    const stored = await sweeper.get(tenant, "orphan");
    expect(stored?.task.status?.state).toBe(TaskState.FAILED);
    expect(stored?.turn).toBeUndefined();
    expect(stored?.task.history.map((m) => m.parts[0]?.content.value)).toEqual(["hi", LEASE_FAILURE_TEXT]);
    const events = await eventsOf(tenant, "orphan");
    expect(events.map((e) => e.version)).toEqual([2]);
    const status = events[0]?.event.payload.case === "statusUpdate" ? events[0].event.payload.value.status : undefined;
    expect(status?.state).toBe(TaskState.FAILED);
    expect(status?.message?.parts[0]?.content.value).toBe(LEASE_FAILURE_TEXT);
  });

  it("aborts the executor of a task another instance's sweep ended FAILED", async () => {
    const live = store(600_000);
    let aborted: (reason: unknown) => void = () => {};
    const abortedWith = new Promise<unknown>((resolve) => (aborted = resolve));
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      store: live,
      executor: {
        async execute(context, updater) {
          await updater.status(TaskState.WORKING);
          const { signal } = context;
          await new Promise<void>((resolve) =>
            signal.addEventListener("abort", () => {
              aborted(signal.reason);
              resolve();
            }),
          );
        },
      },
    });
    const request = create(SendMessageRequestSchema, {
      message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "go" } }] },
      configuration: { returnImmediately: true },
    });
    const answer = await handler.sendMessage!(request, handlerContext());
    const id = (answer.payload?.value as { readonly id?: string } | undefined)?.id ?? "";
    await vi.waitFor(async () => expect((await turnRow("", id)).state).toBe(TaskState.WORKING), WAIT);
    // Its lease taken for run out (as after an outage longer than leaseMs): the next store to start sweeps it.
    await orphan("", id);
    store(600_000);
    const reason = await Promise.race([
      abortedWith,
      new Promise((resolve) => setTimeout(() => resolve(new Error("not aborted within 10 s")), 10_000)),
    ]);
    expect(String((reason as Error).message)).toBe(`task ${id} ended (TASK_STATE_FAILED)`);
    expect((await turnRow("", id)).state).toBe(TaskState.FAILED);
  });

  it("an expired turn on a task already terminal only loses the turn", async () => {
    const tenant = crypto.randomUUID();
    await orphaned(tenant, task("done", { ms: 1000, state: TaskState.COMPLETED }));
    store(600_000);
    await vi.waitFor(async () => expect((await turnRow(tenant, "done")).turn_id).toBeNull(), WAIT);
    expect(await turnRow(tenant, "done")).toMatchObject({ version: 1, state: TaskState.COMPLETED, turn_owner: null });
    expect(await eventsOf(tenant, "done")).toEqual([]);
  });
});
