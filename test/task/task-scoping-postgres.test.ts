/**
 * Owners on PostgreSQL (packages/runtime/src/task/postgres/): migration 3
 * adds tasks.owner and push_configs.owner to a schema a release before made,
 * and its rows get owner '' (visible to a server without authentication and
 * to a policy that sees all, no longer to the principal that made them);
 * the owner is a condition of the store's one statement, so another
 * principal's task costs the statements of a missing one; and an owner's
 * listing walks tasks_by_owner in the list order.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import type { TaskStore } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { callerContext, principal } from "../helpers/caller-context.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import {
  adminSeesAll,
  configRequest,
  getConfigRequest,
  getRequest,
  listAll,
  listConfigsRequest,
  refusal,
  scopedHandler,
  send,
} from "../helpers/scoping-agent.js";
import { freshTenant, makeTask } from "./store-fixtures.js";

const ALICE = principal("alice");
const BOB = principal("bob");
const ROOT = principal("root", ["admin"]);
const notFound = (id: string) => ({ type: "TaskNotFoundError", message: `Task ${id} not found` });

let admin: pg.Pool;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(() => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
});

afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
  await admin?.end();
});

/** A pool whose query() records each statement's text: the store's reads go through it, one statement each. */
function recordingPool(): { pool: pg.Pool; statements: string[] } {
  const statements: string[] = [];
  const record =
    (query: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      const text = args[0];
      statements.push(typeof text === "string" ? text : String((text as { text?: string }).text));
      return query(...args);
    };
  // The store's pipelined connections, made with the pool's Client class, record what they are sent.
  class PipelinedRecorded extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super(config);
      if (this.pipeline)
        this.query = record(this.query.bind(this) as (...args: unknown[]) => unknown) as typeof this.query;
    }
  }
  const pool = new pg.Pool({ connectionString: postgresUrl(), max: 4, Client: PipelinedRecorded });
  pool.query = record(pool.query.bind(pool) as (...args: unknown[]) => unknown) as typeof pool.query;
  return { pool, statements };
}

async function storeOn(schema: string, pool: pg.Pool | string = postgresUrl()): Promise<TaskStore> {
  const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema });
  cleanup.push(async () => {
    await store.close();
    if (typeof pool !== "string") await pool.end();
  });
  return store;
}

/** Takes migrations 5, 4 and 3 back out, leaving the schema as the release that added owners found it (version 2). */
async function backToVersion2(schema: string): Promise<void> {
  await admin.query(`ALTER TABLE "${schema}".push_configs DROP CONSTRAINT push_configs_task`);
  await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 7`);
  await admin.query(`DROP INDEX "${schema}".tasks_interrupted_by_status`);
  await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 6`);
  await admin.query(`DROP INDEX "${schema}".tasks_terminal_by_end`);
  await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 5`);
  await admin.query(`ALTER TABLE "${schema}".tasks DROP COLUMN turn_trace`);
  await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 4`);
  await admin.query(`DROP INDEX "${schema}".tasks_by_owner`);
  await admin.query(`ALTER TABLE "${schema}".tasks DROP COLUMN owner`);
  await admin.query(`ALTER TABLE "${schema}".push_configs DROP COLUMN owner`);
  await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 3`);
}

describe("migration 3 on a schema a release before made", () => {
  it("gives its rows owner '': seen without authentication and by a policy that sees all", async () => {
    const schema = uniqueSchema("owners");
    await migrate(admin, { schema });
    const tenant = freshTenant();
    const [alice, nobody, root] = [ALICE, undefined, ROOT].map((p) => callerContext(p, { tenant }));
    const before = scopedHandler(await storeOn(schema));
    const kept = await send(before, alice!);
    await before.createTaskPushNotificationConfig!(configRequest(kept.id, "https://hooks.example/a", "c1"), alice!);
    expect((await before.getTask!(getRequest(kept.id), alice!)).id).toBe(kept.id);
    await backToVersion2(schema);

    expect(await migrate(admin, { schema })).toEqual({ applied: [3, 4, 5, 6, 7], version: 7 });
    const owners = await admin.query<{ owner: string }>(`SELECT owner FROM "${schema}".tasks`);
    expect(owners.rows).toEqual([{ owner: "" }]);
    const store = await storeOn(schema);
    const h = scopedHandler(store);
    expect((await h.getTask!(getRequest(kept.id), nobody!)).history).toHaveLength(2);
    expect((await h.getTaskPushNotificationConfig!(getConfigRequest(kept.id, "c1"), nobody!)).url).toBe(
      "https://hooks.example/a",
    );
    expect(await listAll(h, nobody!, {}, 50)).toEqual({ ids: [kept.id], totals: [1] });
    expect(await refusal(h.getTask!(getRequest(kept.id), alice!))).toEqual(notFound(kept.id));
    expect(await listAll(h, alice!, {}, 50)).toEqual({ ids: [], totals: [0] });
    const all = scopedHandler(store, adminSeesAll);
    expect((await all.listTaskPushNotificationConfigs!(listConfigsRequest(kept.id), root!)).configs).toHaveLength(1);
    expect(await store.getPushConfig(tenant, kept.id, "c1", "")).toBeDefined();
    expect(await store.getPushConfig(tenant, kept.id, "c1", "alice")).toBeUndefined();
  });
});

describe("the owner in the store's statements", () => {
  let schema: string;
  let recorded: { pool: pg.Pool; statements: string[] };
  let store: TaskStore;

  beforeAll(async () => {
    schema = uniqueSchema("owners");
    await migrate(admin, { schema });
    recorded = recordingPool();
    store = await storeOn(schema, recorded.pool);
  });

  /** The statements `call` made (its outcome ignored), without the lease timer's, which may run meanwhile. */
  async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
    const from = recorded.statements.length;
    await call().catch(() => undefined);
    return recorded.statements.slice(from).filter((sql) => !sql.includes("turn_expires"));
  }

  it("another principal's task costs one statement, as a missing one, the owner in it", async () => {
    const h = scopedHandler(store);
    const tenant = freshTenant();
    const [alice, bob] = [ALICE, BOB].map((p) => callerContext(p, { tenant }));
    const a = await send(h, alice!);
    await h.createTaskPushNotificationConfig!(configRequest(a.id, "https://hooks.example/a", "c1"), alice!);
    const own = await statementsOf(() => h.getTask!(getRequest(a.id), alice!));
    const foreign = await statementsOf(() => h.getTask!(getRequest(a.id), bob!));
    const missing = await statementsOf(() => h.getTask!(getRequest("missing"), bob!));
    expect([own.length, foreign.length, missing.length]).toEqual([1, 1, 1]);
    expect(foreign[0]).toMatch(/WHERE t\.tenant = \$1 AND t\.id = \$2 AND t\.owner = \$3$/);
    const config = (id: string) => () => h.getTaskPushNotificationConfig!(getConfigRequest(id, "c1"), bob!);
    expect((await statementsOf(config(a.id))).length).toBe((await statementsOf(config("missing"))).length);
    const configRead = await statementsOf(() => store.getPushConfig(tenant, a.id, "c1", "bob"));
    expect(configRead).toHaveLength(1);
    expect(configRead[0]).toContain("AND owner = $4");
    const continued = (id: string) => () => send(h, bob!, "answer", { taskId: id });
    expect((await statementsOf(continued(a.id))).length).toBe((await statementsOf(continued("missing"))).length);
  });

  it("an owner's listing counts and pages with the owner, walking tasks_by_owner in list order", async () => {
    const tenant = freshTenant();
    for (let i = 0; i < 200; i++) {
      const owner = i % 50 === 0 ? "alice" : "bob";
      await store.commit(tenant, {
        task: makeTask(`t${i}`, { ms: 1_700_000_000_000 + i }),
        expectedVersion: 0,
        events: [],
        owner,
      });
    }
    const page = await statementsOf(() =>
      store.list(tenant, {
        contextId: "",
        status: 0,
        statusAfterMs: undefined,
        pageSize: 2,
        pageToken: "",
        owner: "alice",
      }),
    );
    expect(page).toHaveLength(2);
    for (const sql of page) expect(sql).toContain("t.owner = $2");
    const listed = await store.list(tenant, {
      contextId: "",
      status: 0,
      statusAfterMs: undefined,
      pageSize: 3,
      pageToken: "",
      owner: "alice",
    });
    expect([listed.tasks.map((t) => t.id), listed.totalSize]).toEqual([["t150", "t100", "t50"], 4]);
    await admin.query(`ANALYZE "${schema}".tasks`);
    const client = await admin.connect();
    try {
      await client.query("SET enable_seqscan = off");
      const plan = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${page[1]}`, [tenant, "alice", 3]);
      const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
      // The rows come off the index in list order: no Sort above the scan (the artifacts' subplan sorts its own).
      expect(text).toMatch(/^Limit .*\n\s+->\s+Index Scan using tasks_by_owner on tasks t /);
    } finally {
      client.release();
    }
    const indexes = await admin.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'tasks_by_owner'",
      [schema],
    );
    expect(indexes.rows[0]?.indexdef).toContain("(tenant, owner, status_time DESC, id)");
  });
});
