/**
 * The store's tables, as numbered migrations applied in order by migrate():
 *
 *   migrations     (version, name, applied_at): what has been applied
 *   tasks          one row per (tenant, id): context_id, state, status_time
 *                  and version as columns (ListTasks filters and pages on
 *                  them), the rest of the Task (status, metadata) as protobuf
 *                  binary in `body`
 *   history        the task's messages by position (seq), protobuf binary
 *   artifacts      the task's artifacts by artifact id, ordered by position
 *   push_configs   by (tenant, task_id, id), with the protocol version of the
 *                  call that created them
 *   task_events    the StreamResponse events of each commit, keyed by the
 *                  task version the commit produced and their order in it
 *   turns (2)      tasks.turn_id, turn_owner, turn_expires: the turn running on
 *                  the task (../turns.ts), the store instance running it and
 *                  when its lease runs out (leases.ts); two partial indexes over
 *                  the few rows with a turn, by owner (renewal) and by expiry
 *                  (the sweeper)
 *   owners (3)     tasks.owner and push_configs.owner: who the task (and its
 *                  configs, which belong to the task's owner) was created for
 *                  (../access.ts); every read on behalf of a caller names it
 *                  (`AND owner = $n`). Rows from before get owner '', visible
 *                  to servers without authentication and to policies that see
 *                  all. tasks_by_owner (tenant, owner, status_time DESC, id)
 *                  serves an owner's listing in the list order
 *   traces (4)     tasks.turn_trace: the W3C traceparent of the call that
 *                  started the task's last turn, when it was traced, so calls
 *                  on other instances link their spans to it (call-trace.ts)
 *   retention (5-7) partial indexes of terminal tasks (5) and of input-required
 *                  and auth-required ones (6) by status time, which prune.ts
 *                  walks; push_configs rows go with their task (7: a foreign
 *                  key ON DELETE CASCADE, as history and artifacts), so a
 *                  config put while its task is pruned is never left behind
 *
 * Bodies are protobuf binary (bytea), not ProtoJSON jsonb: the store only ever
 * gives back what it was given, binary round-trips protobuf-es messages
 * exactly (unknown fields too) without JSON name or well-known-type rules, and
 * is smaller and faster; nothing filters inside a body, the columns carry what
 * SQL needs. history and artifacts rows carry a sha256 `digest` of the body, so
 * a commit rewrites only the rows that changed without reading bodies back.
 *
 * migrate() runs in one transaction under an advisory lock per schema, so
 * concurrent runs (several instances starting) apply each migration once.
 *
 * Ids and tenants compare in the "C" collation (code point order, whatever the
 * database's locale), so listings order ties as the in-memory store does and
 * the keyset comparisons use the indexes.
 */
import type pg from "pg";
import { type SqlNames, sqlNames } from "./sql-names.js";

interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: (q: string) => string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tasks, history, artifacts, push configs, task events",
    sql: (q) => `
CREATE TABLE ${q}.tasks (
  tenant      text COLLATE "C" NOT NULL,
  id          text COLLATE "C" NOT NULL,
  context_id  text COLLATE "C" NOT NULL,
  state       integer     NOT NULL,
  status_time timestamptz NOT NULL,
  version     integer     NOT NULL,
  body        bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, id)
);
CREATE INDEX tasks_by_status_time ON ${q}.tasks (tenant, status_time DESC, id);
CREATE INDEX tasks_by_context ON ${q}.tasks (tenant, context_id, status_time DESC, id);
CREATE INDEX tasks_by_state ON ${q}.tasks (tenant, state, status_time DESC, id);

CREATE TABLE ${q}.history (
  tenant   text COLLATE "C" NOT NULL,
  task_id  text COLLATE "C" NOT NULL,
  seq      integer NOT NULL,
  message  bytea   NOT NULL,
  digest   bytea   NOT NULL,
  PRIMARY KEY (tenant, task_id, seq),
  FOREIGN KEY (tenant, task_id) REFERENCES ${q}.tasks (tenant, id) ON DELETE CASCADE
);

CREATE TABLE ${q}.artifacts (
  tenant      text COLLATE "C" NOT NULL,
  task_id     text COLLATE "C" NOT NULL,
  artifact_id text COLLATE "C" NOT NULL,
  position    integer NOT NULL,
  artifact    bytea   NOT NULL,
  digest      bytea   NOT NULL,
  PRIMARY KEY (tenant, task_id, artifact_id),
  FOREIGN KEY (tenant, task_id) REFERENCES ${q}.tasks (tenant, id) ON DELETE CASCADE
);

CREATE TABLE ${q}.push_configs (
  tenant           text COLLATE "C" NOT NULL,
  task_id          text COLLATE "C" NOT NULL,
  id               text COLLATE "C" NOT NULL,
  protocol_version text        NOT NULL,
  config           bytea       NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, task_id, id)
);

CREATE TABLE ${q}.task_events (
  tenant     text COLLATE "C" NOT NULL,
  task_id    text COLLATE "C" NOT NULL,
  version    integer     NOT NULL,
  seq        integer     NOT NULL,
  event      bytea       NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant, task_id, version, seq)
);
CREATE INDEX task_events_by_age ON ${q}.task_events (created_at);
`,
  },
  {
    version: 2,
    name: "turns and their leases",
    sql: (q) => `
ALTER TABLE ${q}.tasks
  ADD COLUMN turn_id      text COLLATE "C",
  ADD COLUMN turn_owner   text COLLATE "C",
  ADD COLUMN turn_expires timestamptz;
CREATE INDEX tasks_turns_by_owner ON ${q}.tasks (turn_owner) WHERE turn_id IS NOT NULL;
CREATE INDEX tasks_turns_by_expiry ON ${q}.tasks (turn_expires) WHERE turn_id IS NOT NULL;
`,
  },
  {
    version: 3,
    name: "task and push config owners",
    // Existing rows get owner '' (the DEFAULT): the owner of every task of a server that authenticates nothing.
    sql: (q) => `
ALTER TABLE ${q}.tasks ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE ${q}.push_configs ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX tasks_by_owner ON ${q}.tasks (tenant, owner, status_time DESC, id);
`,
  },
  {
    version: 4,
    name: "trace of the call that started a task's turn",
    sql: (q) => `
ALTER TABLE ${q}.tasks ADD COLUMN turn_trace text COLLATE "C";
`,
  },
  {
    version: 5,
    name: "terminal tasks by their end, for retention; room for in-place updates",
    // The terminal states' numbers: prune.ts TERMINAL_STATE_NUMBERS (a test holds the two together). The index is
    // on status_time, which only a status change moves (that rewrites every index anyway), not on updated_at, which
    // every commit moves: an artifact's commit may so stay a heap-only update, in the room fillfactor leaves.
    sql: (q) => `
CREATE INDEX tasks_terminal_by_end ON ${q}.tasks (status_time) WHERE state IN (3, 4, 5, 7);
ALTER TABLE ${q}.tasks SET (fillfactor = 85);
`,
  },
  {
    version: 6,
    name: "input-required and auth-required tasks by their status time, for retention",
    // The interrupted states' numbers: prune.ts INTERRUPTED_STATE_NUMBERS (a test holds the two together). Only a
    // status change moves a row into or out of it, as for migration 5's index.
    sql: (q) => `
CREATE INDEX tasks_interrupted_by_status ON ${q}.tasks (status_time) WHERE state IN (6, 8);
`,
  },
  {
    version: 7,
    name: "push configs deleted with their task",
    // Configs whose task is gone (a put that raced a prune before this migration) can never be read: they go, and
    // then the key is checked. Both tables are locked against writers first, tasks before push_configs as the old
    // prune takes them (so the two cannot deadlock), until the migration commits: an instance still on the old
    // release cannot add such a config between the DELETE and the check.
    sql: (q) => `
LOCK TABLE ${q}.tasks, ${q}.push_configs IN SHARE ROW EXCLUSIVE MODE;
ALTER TABLE ${q}.push_configs ADD CONSTRAINT push_configs_task
  FOREIGN KEY (tenant, task_id) REFERENCES ${q}.tasks (tenant, id) ON DELETE CASCADE NOT VALID;
DELETE FROM ${q}.push_configs p
  WHERE NOT EXISTS (SELECT 1 FROM ${q}.tasks t WHERE t.tenant = p.tenant AND t.id = p.task_id);
ALTER TABLE ${q}.push_configs VALIDATE CONSTRAINT push_configs_task;
`,
  },
];

/** The highest migration version this release ships. */
export const LATEST_MIGRATION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

export interface MigrateOptions {
  /** The SQL schema of the store's tables (created when missing); default "a2a". */
  readonly schema?: string;
}

export interface MigrateResult {
  /** The versions this call applied, in order (empty when the schema was up to date). */
  readonly applied: readonly number[];
  /** The schema's version afterwards. */
  readonly version: number;
}

/** Something that runs queries: a pg.Pool, or a connected pg.Client. */
export type Queryable = pg.Pool | pg.ClientBase;

/**
 * Creates or updates the store's tables in `options.schema`; safe to run again and concurrently. While it works,
 * an error listener is on the connection (transaction.ts says why): a connection that dies between two statements
 * fails the call, not the process; a pool's connection is then destroyed on release.
 */
export async function migrate(db: Queryable, options: MigrateOptions = {}): Promise<MigrateResult> {
  const names = sqlNames(options.schema);
  const isPool = "totalCount" in db;
  const client = isPool ? await (db as pg.Pool).connect() : (db as pg.ClientBase);
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    try {
      const result = await applyMissing(client, names);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw new Error(`PostgreSQL task store: migrating schema "${names.schema}" failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  } finally {
    if (isPool) (client as pg.PoolClient).release(broken);
    client.off("error", onError);
  }
}

async function applyMissing(client: pg.ClientBase, names: SqlNames): Promise<MigrateResult> {
  const { q } = names;
  await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`a2a-task-store-migrate:${names.schema}`]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${q}.migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const done = await client.query<{ version: number }>(`SELECT version FROM ${q}.migrations`);
  const have = new Set(done.rows.map((r) => r.version));
  const newer = [...have].filter((v) => v > LATEST_MIGRATION);
  if (newer.length > 0) {
    throw new Error(`the schema has migration ${Math.max(...newer)}, newer than this release's ${LATEST_MIGRATION}`);
  }
  const applied: number[] = [];
  for (const m of MIGRATIONS) {
    if (have.has(m.version)) continue;
    await client.query(m.sql(q));
    await client.query(`INSERT INTO ${q}.migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
    applied.push(m.version);
  }
  return { applied, version: Math.max(0, ...have, ...applied) };
}
