/**
 * A PostgreSQL store whose database cannot serve now (store-error.ts): it refuses the connection for want of
 * room (SQLSTATE 53300, here a role's CONNECTION LIMIT), the pool has no connection free within
 * connectionTimeoutMillis, or the network drops what a connection carries (a TCP proxy gone silent) until
 * query_timeout. Each is the 503 InternalError "store unavailable ... retry later", as a
 * database that cannot be reached is, not a 500: they pass, and what waits on a 503 (store-retry.ts) asks again.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import type { TaskStore } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { storeError } from "../../packages/runtime/dist/task/postgres/store-error.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { startTcpProxy } from "../helpers/tcp-proxy.js";

let admin: pg.Pool;
let schema: string;
const role = uniqueSchema("busy_role");

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
  schema = uniqueSchema("busy");
  await migrate(admin, { schema });
  await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
});

afterAll(async () => {
  await admin?.query(`DROP ROLE IF EXISTS ${role}`);
  await admin?.end();
});

/** The message of the store's 503 for a get of task "any" failed for `why`. */
const unavailable = (why: string) =>
  `PostgreSQL task store unavailable: get of task "any" (tenant "") failed (${why}); retry later`;

/** The error of a store's get (what its background work reports is ignored); `pipelined` connections of its own. */
async function getFails(pool: pg.Pool, pipelined?: number): Promise<unknown> {
  pool.on("error", () => {});
  const store: TaskStore = createPostgresTaskStore({
    pool,
    definition: A2AServiceV1_0,
    schema,
    pruneEveryMs: 0,
    onError: () => {},
    ...(pipelined === undefined ? {} : { pipelineConnections: pipelined }),
  });
  try {
    return await store.get("", "any").then(
      () => new Error("get succeeded"),
      (e: unknown) => e,
    );
  } finally {
    await store.close();
  }
}

describe("a database that cannot serve now", () => {
  it("is a 503 when it refuses the connection: too many connections (SQLSTATE 53300)", async () => {
    const as = new URL(postgresUrl());
    as.username = role;
    const holder = new pg.Client({ connectionString: as.href });
    await holder.connect();
    const pool = new pg.Pool({ connectionString: as.href, max: 2 });
    try {
      const error = await getFails(pool);
      expect(error).toBeInstanceOf(A2AError);
      expect([(error as A2AError).options.httpStatus, (error as Error).message]).toEqual([503, unavailable("53300")]);
    } finally {
      await holder.end();
      await pool.end();
    }
  });

  it("is a 503 when the pool has no connection free within connectionTimeoutMillis", async () => {
    const pool = new pg.Pool({ connectionString: postgresUrl(), max: 2, connectionTimeoutMillis: 200 });
    const held = [await pool.connect(), await pool.connect()];
    try {
      // A get goes to the store's pipelined connections, which no pool holds (pipeline.ts); without them, the pool.
      const error = await getFails(pool, 0);
      expect(error).toBeInstanceOf(A2AError);
      expect([(error as A2AError).options.httpStatus, (error as Error).message]).toEqual([
        503,
        unavailable("no connection free in time"),
      ]);
    } finally {
      for (const client of held) client.release();
      await pool.end();
    }
  });

  it("is a 503 when the network drops what an open connection carries, past query_timeout", async () => {
    const proxy = await startTcpProxy(Number(new URL(postgresUrl()).port));
    const through = new URL(postgresUrl());
    through.port = String(proxy.port);
    const pool = new pg.Pool({ connectionString: through.href, max: 2, query_timeout: 300 });
    pool.on("error", () => {});
    const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema, onError: () => {} });
    try {
      // The connections are open and answer before the network goes silent.
      expect(await store.get("", "any")).toBeUndefined();
      proxy.mode = "silent";
      const error = await store.get("", "any").then(
        () => new Error("get succeeded"),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(A2AError);
      expect([(error as A2AError).options.httpStatus, (error as Error).message]).toEqual([
        503,
        unavailable("query unanswered in time"),
      ]);
    } finally {
      proxy.mode = "pass";
      proxy.cut();
      await store.close();
      await pool.end();
      await proxy.close();
    }
  });

  it("is a 500, not a 503, when a query meets a configured limit (SQLSTATE 53400)", async () => {
    const client = await admin.connect();
    try {
      await client.query("SET work_mem = '64kB'; SET temp_file_limit = '64kB'");
      const error = await client.query("SELECT g FROM generate_series(1, 200000) g ORDER BY g DESC").then(
        () => new Error("the query succeeded"),
        (e: unknown) => e,
      );
      expect((error as { code?: unknown }).code).toBe("53400");
      const answered = storeError("listing tasks", error);
      expect(answered).not.toBeInstanceOf(A2AError);
      expect(answered.message).toMatch(/^PostgreSQL task store: listing tasks failed: temporary file size exceeds/);
    } finally {
      await client.query("RESET work_mem; RESET temp_file_limit");
      client.release();
    }
  });
});
