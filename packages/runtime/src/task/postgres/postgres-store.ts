/**
 * createPostgresTaskStore: the TaskStore (../store.ts) on PostgreSQL through
 * node-postgres, for any number of instances sharing one database.
 *
 *   tables       created beforehand by migrate() / `a2a-task-store migrate`
 *                (migrations.ts); the store never changes the schema
 *   connections  the given pg.Pool (left open at close) or one made from a
 *                connection string (ended at close); one of its connections
 *                is held for LISTEN while anyone is subscribed (event-feed.ts)
 *   commits      compare-and-set on tasks.version in one transaction with the
 *                history, artifacts and event rows (commit.ts)
 *   events       through task_events + NOTIFY, to subscribers of every
 *                instance, in version order, exactly once (event-feed.ts)
 */
import pg from "pg";
import type { A2aServiceDefinition } from "../../definition.js";
import type { TaskStore } from "../store.js";
import { storeCodecs } from "./codec.js";
import { commitTask } from "./commit.js";
import { EventFeed } from "./event-feed.js";
import { PushConfigTable } from "./push-configs.js";
import { sqlNames } from "./sql-names.js";
import { named } from "./store-error.js";
import { listTasks, readTask } from "./task-read.js";

export interface PostgresTaskStoreOptions {
  /** A pool (the store leaves it open at close) or a connection string (the store's own pool). */
  readonly pool: pg.Pool | string;
  /** The v1.0 service definition (e.g. A2AServiceV1_0): the protobuf schemas of what is stored. */
  readonly definition: A2aServiceDefinition;
  /** The SQL schema holding the tables (as given to migrate); default "a2a". */
  readonly schema?: string;
  /** How often subscribed tasks are re-read in case a notification was missed; default 5000, 0: never. */
  readonly recheckMs?: number;
  /** Failures outside any call: a lost LISTEN connection, a failed event read, a throwing subscriber. */
  readonly onError?: (error: Error) => void;
}

function reportToConsole(error: Error): void {
  console.error(error.message);
}

export function createPostgresTaskStore(options: PostgresTaskStoreOptions): TaskStore {
  const names = sqlNames(options.schema);
  const codecs = storeCodecs(options.definition);
  const ownPool = typeof options.pool === "string";
  const db = typeof options.pool === "string" ? new pg.Pool({ connectionString: options.pool }) : options.pool;
  if ((db.options.max ?? 10) < 2) {
    throw new Error("PostgreSQL task store: the pool needs max >= 2 (one connection listens while others query)");
  }
  const onError = options.onError ?? reportToConsole;
  if (ownPool)
    db.on("error", (error) => onError(new Error(`PostgreSQL task store: idle connection: ${error.message}`)));
  const feed = new EventFeed(db, names, codecs, { recheckMs: options.recheckMs ?? 5000, onError });
  const pushConfigs = new PushConfigTable(db, names, codecs);
  const task = (tenant: string, id: string) => `task "${id}" (tenant "${tenant}")`;
  const config = (tenant: string, taskId: string, id: string) => `push config "${id}" of ${task(tenant, taskId)}`;
  return {
    get: (tenant, taskId) => named(`get of ${task(tenant, taskId)}`, () => readTask(db, names, codecs, tenant, taskId)),
    async commit(tenant, commit) {
      const version = await commitTask(db, names, codecs, tenant, commit);
      if (version !== undefined) feed.poke(tenant, commit.task.id, version);
      return version;
    },
    list: (tenant, query) => named(`ListTasks (tenant "${tenant}")`, () => listTasks(db, names, codecs, tenant, query)),
    subscribe: (tenant, taskId, listener) =>
      named(`subscribe to ${task(tenant, taskId)}`, () => feed.subscribe(tenant, taskId, listener)),
    putPushConfig: (tenant, stored) =>
      named(`put of ${config(tenant, stored.config.taskId, stored.config.id)}`, () => pushConfigs.put(tenant, stored)),
    getPushConfig: (tenant, taskId, id) =>
      named(`get of ${config(tenant, taskId, id)}`, () => pushConfigs.get(tenant, taskId, id)),
    listPushConfigs: (tenant, taskId, pageSize, pageToken) =>
      named(`list of the push configs of ${task(tenant, taskId)}`, () =>
        pushConfigs.list(tenant, taskId, pageSize, pageToken),
      ),
    deletePushConfig: (tenant, taskId, id) =>
      named(`delete of ${config(tenant, taskId, id)}`, () => pushConfigs.delete(tenant, taskId, id)),
    async close() {
      await feed.close();
      if (ownPool) await db.end();
    },
  };
}
