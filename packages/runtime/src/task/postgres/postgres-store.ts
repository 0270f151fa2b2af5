/**
 * createPostgresTaskStore: the TaskStore (../store.ts) on PostgreSQL through
 * node-postgres, for any number of instances sharing one database.
 *
 *   tables       created beforehand by migrate() / `a2a-task-store migrate`
 *                (migrations.ts); the store never changes the schema
 *   connections  the given pg.Pool (left open at close) or one made from a
 *                connection string (ended at close); one of its connections
 *                is held for LISTEN while anyone is subscribed, and for
 *                listenIdleMs after (event-feed.ts, listen-connection.ts).
 *                Commits and gets of a task go to pipelineConnections
 *                connections of the store's own, in pipeline mode, made as
 *                the pool makes its own (pipeline.ts)
 *   commits      compare-and-set on tasks.version in one statement with the
 *                history, artifacts and event rows and the NOTIFY (commit.ts)
 *   events       through task_events + NOTIFY, to subscribers of every
 *                instance, in version order, exactly once (event-feed.ts);
 *                those of a task's creation to this instance's only (commit.ts)
 *   turns        started and ended in the commits' own statements (commit.ts);
 *                leased by this store instance, renewed, and swept in every
 *                instance when their lease runs out (leases.ts)
 *   owners       tasks.owner and push_configs.owner (migration 3), written by
 *                the creating commit and a config's put; a read on behalf of
 *                a caller names the owner in its own statement (task-read.ts,
 *                push-configs.ts), so another owner's task costs the round
 *                trips of a missing one. Rows from before get owner '',
 *                visible to servers without authentication and to policies
 *                that see all
 *   refusals     keys holding NUL (../store-keys.ts), forged page tokens
 *                (page-token.ts), a push config beyond maxPushConfigsPerTask
 *                or for a missing task (push-configs.ts): InvalidParamsError
 *                or TaskNotFoundError as the memory store answers, never a
 *                PostgreSQL error
 *   retention    events past eventsTtlMs, terminal tasks past
 *                terminalTtlMs and input-required or auth-required ones
 *                past interruptedTtlMs are deleted every pruneEveryMs
 *                (prune.ts)
 *   pool errors  an 'error' listener on the pool, given or made (a dying idle
 *                connection is reported to onError, never an uncaught event)
 */
import pg from "pg";
import type { A2aServiceDefinition } from "../../core/definition.js";
import type { TaskStore } from "../store.js";
import { storeCodecs, type StoreCodecs } from "./codec.js";
import { CommitWriter, type TurnWriter, type Written } from "./commit.js";
import { EventFeed } from "./event-feed.js";
import { TurnLeases } from "./leases.js";
import { PipelinedConnections } from "./pipeline.js";
import { PushConfigTable } from "./push-configs.js";
import { type SqlNames, sqlNames } from "./sql-names.js";
import { named } from "./store-error.js";
import { checkKeys, checkTaskKeys } from "../store-keys.js";
import { DEFAULT_MAX_PUSH_CONFIGS_PER_TASK } from "../store-refusals.js";
import { listTasks, readTask } from "./task-read.js";
import { DEFAULT_PRUNE_EVERY_MS, PruneTimer, retentionOf } from "./prune.js";

export interface PostgresTaskStoreOptions {
  /** A pool (the store leaves it open at close) or a connection string (the store's own pool). */
  readonly pool: pg.Pool | string;
  /** The v1.0 service definition (e.g. A2AServiceV1_0): the protobuf schemas of what is stored. */
  readonly definition: A2aServiceDefinition;
  /** The SQL schema holding the tables (as given to migrate); default "a2a". */
  readonly schema?: string;
  /** The most push configs one task may have (as the memory store's option). Default 100. */
  readonly maxPushConfigsPerTask?: number;
  /** How often subscribed tasks are re-read in case a notification was missed; default 5000, 0: never. */
  readonly recheckMs?: number;
  /**
   * How long the LISTEN connection stays checked out of the pool after the last subscriber left, in milliseconds
   * (listen-connection.ts); taken again on demand. Default 10000; 0: given back at once.
   */
  readonly listenIdleMs?: number;
  /**
   * How long a turn's lease lasts, in milliseconds (leases.ts): renewed every leaseMs / 3 while its instance
   * lives; a task whose instance stopped renewing ends FAILED within leaseMs + leaseMs / 3. Default 15000.
   */
  readonly leaseMs?: number;
  /** Events older than this are deleted (prune.ts); default 3 600 000 (one hour). Keep it well above recheckMs. */
  readonly eventsTtlMs?: number;
  /**
   * Terminal tasks whose last commit is older than this, and than eventsTtlMs, are deleted (prune.ts); default 7 days;
   * Infinity: never.
   */
  readonly terminalTtlMs?: number;
  /**
   * Input-required and auth-required tasks whose last commit is older than this, and than eventsTtlMs, are
   * deleted (prune.ts): nobody answered them. Default 7 days; Infinity: never.
   */
  readonly interruptedTtlMs?: number;
  /** How often this store prunes (prune.ts), in milliseconds; default 60000; 0: never (prune from cron instead). */
  readonly pruneEveryMs?: number;
  /**
   * How many connections of its own, beside the pool's, the store sends commits and gets of a task through in
   * node-postgres's pipeline mode (pipeline.ts): each opened on first need, made as the pool makes its own. Default
   * 2; 0: none, every statement through the pool (as with a node-postgres before 8.23, which has no pipeline mode).
   */
  readonly pipelineConnections?: number;
  /**
   * Failures outside any call: a lost LISTEN connection, a failed event read, a throwing subscriber, a failed
   * lease renewal, sweep or prune, an idle pool connection that died.
   */
  readonly onError?: (error: Error) => void;
}

export const DEFAULT_LEASE_MS = 15_000;
export const DEFAULT_LISTEN_IDLE_MS = 10_000;
export const DEFAULT_PIPELINE_CONNECTIONS = 2;

/**
 * The options of a pool the store makes from a connection string: every wait bounded, so that no call waits
 * forever on a database that went away mid-answer (a connection attempt 10 s, a statement's answer 30 s).
 * An application giving its own pool sets the same (README "Tasks in PostgreSQL").
 */
export const BOUNDED_POOL_OPTIONS = { connectionTimeoutMillis: 10_000, query_timeout: 30_000 } as const;

function reportToConsole(error: Error): void {
  console.error(error.message);
}

export function createPostgresTaskStore(options: PostgresTaskStoreOptions): TaskStore {
  const ownPool = typeof options.pool === "string";
  const db =
    typeof options.pool === "string"
      ? new pg.Pool({ connectionString: options.pool, ...BOUNDED_POOL_OPTIONS })
      : options.pool;
  return storeOnPool(options, db, ownPool);
}

interface Settings {
  readonly leaseMs: number;
  readonly maxPerTask: number;
  readonly pipelined: number;
}

/** The options' bounds with their defaults, each checked: a RangeError (an Error for the pool) names the bad one. */
function settingsOf(options: PostgresTaskStoreOptions, db: pg.Pool): Settings {
  if ((db.options.max ?? 10) < 2) {
    throw new Error("PostgreSQL task store: the pool needs max >= 2 (one connection listens while others query)");
  }
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 30) {
    throw new RangeError(`PostgreSQL task store: leaseMs must be an integer >= 30, got ${leaseMs}`);
  }
  const maxPerTask = options.maxPushConfigsPerTask ?? DEFAULT_MAX_PUSH_CONFIGS_PER_TASK;
  if (!Number.isSafeInteger(maxPerTask) || maxPerTask < 1) {
    throw new RangeError(`PostgreSQL task store: maxPushConfigsPerTask must be an integer >= 1, got ${maxPerTask}`);
  }
  const pipelined = options.pipelineConnections ?? DEFAULT_PIPELINE_CONNECTIONS;
  if (!Number.isSafeInteger(pipelined) || pipelined < 0) {
    throw new RangeError(`PostgreSQL task store: pipelineConnections must be an integer >= 0, got ${pipelined}`);
  }
  return { leaseMs, maxPerTask, pipelined };
}

/** The store on `db`, which it ends at close when `ownPool` (made from the options' connection string). */
export function storeOnPool(options: PostgresTaskStoreOptions, db: pg.Pool, ownPool: boolean): TaskStore {
  return storeOf(openParts(options, db), ownPool);
}

/** What the store is made of: the tables' writers and readers, the event feed, the leases and the pruner. */
interface StoreParts {
  readonly db: pg.Pool;
  /** Where commits and gets of a task go (pipeline.ts). */
  readonly pipeline: PipelinedConnections;
  readonly names: SqlNames;
  readonly codecs: StoreCodecs;
  readonly feed: EventFeed;
  readonly pushConfigs: PushConfigTable;
  readonly commits: CommitWriter;
  readonly leases: TurnLeases;
  readonly writer: TurnWriter;
  readonly pruner: PruneTimer;
  /** Heard on the pool until close. */
  readonly onIdleError: (error: Error) => void;
}

function openParts(options: PostgresTaskStoreOptions, db: pg.Pool): StoreParts {
  const names = sqlNames(options.schema);
  const codecs = storeCodecs(options.definition);
  const { leaseMs, maxPerTask, pipelined } = settingsOf(options, db);
  const onError = options.onError ?? reportToConsole;
  // On any pool, the caller's too: an idle connection that dies (a restart) is an 'error' event, fatal unheard.
  const onIdleError = (error: Error) => onError(new Error(`PostgreSQL task store: idle connection: ${error.message}`));
  db.on("error", onIdleError);
  const feed = new EventFeed(db, names, codecs, {
    recheckMs: options.recheckMs ?? 5000,
    listenIdleMs: options.listenIdleMs ?? DEFAULT_LISTEN_IDLE_MS,
    onError,
  });
  const pipeline = new PipelinedConnections(db, pipelined, onError);
  const commits = new CommitWriter(pipeline, names, codecs);
  const leases = new TurnLeases(db, names, codecs, commits, {
    leaseMs,
    onError,
    onCommit: (tenant, taskId, written) => feed.committed(tenant, taskId, written),
  });
  const pruner = new PruneTimer(db, {
    ...retentionOf(options),
    schema: names.schema,
    everyMs: options.pruneEveryMs ?? DEFAULT_PRUNE_EVERY_MS,
    onError,
  });
  return {
    db,
    pipeline,
    names,
    codecs,
    feed,
    pushConfigs: new PushConfigTable(db, names, codecs, maxPerTask),
    commits,
    leases,
    writer: { owner: leases.owner, leaseMs },
    pruner,
    onIdleError,
  };
}

/** The TaskStore on its parts: each method checks its keys, then names the task in what it throws. */
function storeOf(parts: StoreParts, ownPool: boolean): TaskStore {
  const { db, pipeline, names, codecs, feed, pushConfigs, commits, leases, writer, pruner, onIdleError } = parts;
  const task = (tenant: string, id: string) => `task "${id}" (tenant "${tenant}")`;
  const config = (tenant: string, taskId: string, id: string) => `push config "${id}" of ${task(tenant, taskId)}`;
  let closing: Promise<void> | undefined;
  return {
    system: "postgresql",
    get: (tenant, taskId, owner) =>
      named(`get of ${task(tenant, taskId)}`, () => {
        checkKeys("task store get", { tenant, taskId, owner });
        return readTask(pipeline, names, codecs, tenant, taskId, owner);
      }),
    async commit(tenant, commit) {
      checkTaskKeys("task store commit", tenant, commit.task);
      checkKeys("task store commit", { owner: commit.owner });
      const done = feed.commitStarts(tenant, commit.task.id);
      let written: Written | undefined;
      try {
        written = await commits.commit(tenant, commit, writer);
      } finally {
        if (written !== undefined)
          leases.committed(tenant, commit.task.id, commit.task.status?.state, commit.startTurn);
        done(written);
      }
      return written?.version;
    },
    endTurn: (tenant, taskId, turn) =>
      named(`end of the turn of ${task(tenant, taskId)}`, () => leases.end(tenant, taskId, turn)),
    list: (tenant, query) =>
      named(`ListTasks (tenant "${tenant}")`, () => {
        checkKeys("ListTasks", { tenant, contextId: query.contextId, owner: query.owner });
        return listTasks(db, names, codecs, tenant, query);
      }),
    subscribe: (tenant, taskId, listener, from) =>
      named(`subscribe to ${task(tenant, taskId)}`, () => {
        checkKeys("task store subscribe", { tenant, taskId });
        return feed.subscribe(tenant, taskId, listener, from);
      }),
    putPushConfig: (tenant, stored, owner) =>
      named(`put of ${config(tenant, stored.config.taskId, stored.config.id)}`, () => {
        checkKeys("push config put", { tenant, taskId: stored.config.taskId, id: stored.config.id, owner });
        return pushConfigs.put(tenant, stored, owner);
      }),
    getPushConfig: (tenant, taskId, id, owner) =>
      named(`get of ${config(tenant, taskId, id)}`, () => {
        checkKeys("push config get", { tenant, taskId, id, owner });
        return pushConfigs.get(tenant, taskId, id, owner);
      }),
    listPushConfigs: (tenant, taskId, pageSize, pageToken, owner) =>
      named(`list of the push configs of ${task(tenant, taskId)}`, () => {
        checkKeys("push config list", { tenant, taskId, owner });
        return pushConfigs.list(tenant, taskId, { pageSize, pageToken }, owner);
      }),
    deletePushConfig: (tenant, taskId, id, owner) =>
      named(`delete of ${config(tenant, taskId, id)}`, () => {
        checkKeys("push config delete", { tenant, taskId, id, owner });
        return pushConfigs.delete(tenant, taskId, id, owner);
      }),
    close() {
      // Once: a second close finds the own pool ended already.
      closing ??= (async () => {
        await leases.close();
        await pruner.close();
        await feed.close();
        await pipeline.close();
        if (ownPool) await db.end();
        db.off("error", onIdleError);
      })();
      return closing;
    },
  };
}
