/**
 * openPostgresTaskStore: createPostgresTaskStore after a check of the
 * database, so that an agent that cannot work says why at start, in one
 * line, instead of failing its first calls.
 *
 *   connect    one query on the pool: a database that cannot be reached, a
 *              missing database, a refused login are "cannot connect to
 *              <where>: <reason>; check DATABASE_URL (or the pool's settings)"
 *              (<where> is the connection string without its password, or
 *              host:port/database)
 *   migrate    with `migrate: true`, the missing migrations are applied first
 *              (migrate(), safe to run concurrently from several instances)
 *   version    the schema's migrations against LATEST_MIGRATION: older is
 *              "schema "a2a" is at version 2, this release needs 3: run
 *              `npx a2a-task-store migrate --database-url …` (or migrate(), or the
 *              option migrate: true)";
 *              newer is "… newer than this release's 3: upgrade
 *              @protoc-gen-a2a/runtime"
 *
 * Each failure is a StoreStartError whose message is that one line; a pool
 * the store made from a connection string is ended first.
 */
import pg from "pg";
import { BOUNDED_POOL_OPTIONS, type PostgresTaskStoreOptions, storeOnPool } from "./postgres-store.js";
import { LATEST_MIGRATION, migrate } from "./migrations.js";
import { sqlNames } from "./sql-names.js";
import type { TaskStore } from "../store.js";

export interface OpenPostgresTaskStoreOptions extends PostgresTaskStoreOptions {
  /** Apply the missing migrations before the check (as `a2a-task-store migrate` would). Default false. */
  readonly migrate?: boolean;
}

/** Why the store cannot start; the message is one line saying what to do. */
export class StoreStartError extends Error {
  override name = "StoreStartError";
}

/** The connection string without its password, or host:port/database of the pool's settings. */
function whereOf(pool: pg.Pool): string {
  const options = pool.options as pg.PoolConfig;
  if (typeof options.connectionString === "string") {
    try {
      const url = new URL(options.connectionString);
      url.password = "";
      return url.href;
    } catch {
      return "the connection string";
    }
  }
  return `${options.host ?? "localhost"}:${options.port ?? 5432}/${options.database ?? "(default database)"}`;
}

/** The schema's migration version: 0 when it has no migrations table. */
async function schemaVersion(pool: pg.Pool, q: string): Promise<number> {
  try {
    const result = await pool.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${q}.migrations`);
    return result.rows[0]?.v ?? 0;
  } catch (error) {
    if ((error as { code?: unknown }).code === "42P01") return 0;
    throw error;
  }
}

/** Checks the database (see the header), then creates the store; StoreStartError when it cannot start. */
export async function openPostgresTaskStore(options: OpenPostgresTaskStoreOptions): Promise<TaskStore> {
  const names = sqlNames(options.schema);
  const ownPool = typeof options.pool === "string";
  const pool =
    typeof options.pool === "string"
      ? new pg.Pool({ connectionString: options.pool, ...BOUNDED_POOL_OPTIONS })
      : options.pool;
  // Until the store exists, nobody else listens: a connection dying meanwhile must not be fatal.
  const quiet = () => undefined;
  pool.on("error", quiet);
  try {
    await pool.query("SELECT 1").catch((error: Error) => {
      const reason = error.message || (error as { code?: string }).code || String(error);
      throw new StoreStartError(
        `PostgreSQL task store: cannot connect to ${whereOf(pool)}: ${reason}; check DATABASE_URL ` +
          "(or the pool's settings)",
      );
    });
    let version = await schemaVersion(pool, names.q);
    if (options.migrate === true && version < LATEST_MIGRATION) {
      version = (await migrate(pool, { schema: names.schema })).version;
    }
    if (version < LATEST_MIGRATION) {
      throw new StoreStartError(
        `PostgreSQL task store: schema "${names.schema}" is at version ${version}, this release needs ` +
          `${LATEST_MIGRATION}: run \`npx a2a-task-store migrate --database-url … --schema ${names.schema}\` ` +
          "(or migrate() from @protoc-gen-a2a/runtime/postgres, or the option migrate: true)",
      );
    }
    if (version > LATEST_MIGRATION) {
      throw new StoreStartError(
        `PostgreSQL task store: schema "${names.schema}" is at version ${version}, newer than this release's ` +
          `${LATEST_MIGRATION}: upgrade @protoc-gen-a2a/runtime`,
      );
    }
    return storeOnPool(options, pool, ownPool);
  } catch (error) {
    if (ownPool) await pool.end().catch(() => undefined);
    if (error instanceof StoreStartError) throw error;
    const line = (error as Error).message.split("\n")[0] ?? String(error);
    throw new StoreStartError(line.startsWith("PostgreSQL task store") ? line : `PostgreSQL task store: ${line}`);
  } finally {
    pool.off("error", quiet);
  }
}
