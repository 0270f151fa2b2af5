/**
 * A private PostgreSQL cluster for the tests, started by postgres-cluster.js
 * (shared with bench/: initdb, pg_ctl on 127.0.0.1 with a free port, stop and
 * delete), with a database "a2a_test" whose URL tests get through vitest's
 * provide/inject (postgres-setup.ts provides, postgresUrl() reads).
 *
 * Without binaries the setup provides an error message instead of a URL, and
 * every PostgreSQL test fails with it (CI=true fails the whole run at once).
 */
import pg from "pg";
import { inject } from "vitest";
import { findPostgresBin, INSTALL_HINT, locatePostgres, startPostgresCluster } from "./postgres-cluster.js";

export { findPostgresBin, INSTALL_HINT, locatePostgres };

export interface TestCluster {
  /** postgres://postgres@127.0.0.1:<port>/a2a_test */
  readonly url: string;
  stop(): Promise<void>;
}

/** Creates, starts and fills a private cluster (postgres-cluster.js); the caller stops it. */
export async function startTestCluster(bin: string): Promise<TestCluster> {
  const cluster = await startPostgresCluster(bin, "a2a_test");
  return { url: cluster.url, stop: async () => cluster.stop() };
}

/** The test database's URL from the global setup; throws (how to install PostgreSQL) when there is none. */
export function postgresUrl(): string {
  const provided = inject("postgres");
  if ("error" in provided) throw new Error(provided.error);
  return provided.url;
}

/** A fresh SQL schema name per test file or test, so stores of different tests never meet. */
export function uniqueSchema(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

declare module "vitest" {
  export interface ProvidedContext {
    postgres: { url: string } | { error: string };
  }
}

export interface TestDatabase {
  /** postgres://postgres@127.0.0.1:<port>/<name> */
  readonly url: string;
  /** Drops it, closing what is still connected to it. */
  drop(): Promise<void>;
}

/** A new database in the test cluster, named `<prefix>_<pid>_<random>`, for a file that needs one of its own. */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const admin = postgresUrl();
  const name = uniqueSchema(prefix);
  const run = async (sql: string) => {
    const client = new pg.Client(admin);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
