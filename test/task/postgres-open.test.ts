/**
 * Starting on PostgreSQL (packages/runtime/src/task/postgres/open-store.ts):
 * openPostgresTaskStore checks the database first and says in one line what
 * to do (StoreStartError) for a database that cannot be reached (the password
 * never shown), a schema never migrated, one a migration behind (version 1,
 * upgraded in place by migrate() with its tasks kept), and one newer than this
 * release; with `migrate: true` it creates the tables. The example agent,
 * started with such a DATABASE_URL, exits 1 with that one line and no stack.
 */
import { createServer } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LATEST_MIGRATION, migrate, openPostgresTaskStore, StoreStartError } from "@protoc-gen-a2a/runtime/postgres";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { startExampleProcess } from "../helpers/example-process.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { task } from "../helpers/task-values.js";

let admin: pg.Pool;

beforeAll(() => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
});

afterAll(async () => {
  await admin?.end();
});

/** A port nothing listens on (taken, then freed). */
function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startError(options: Parameters<typeof openPostgresTaskStore>[0]): Promise<string> {
  const error = await openPostgresTaskStore(options).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreStartError);
  const message = (error as Error).message;
  expect(message).not.toContain("\n");
  return message;
}

describe("openPostgresTaskStore", () => {
  it("says it cannot connect, naming the database without its password and what to check", async () => {
    const url = `postgres://app:s3cret@127.0.0.1:${await deadPort()}/agents`;
    const message = await startError({ pool: url, definition: A2AServiceV1_0 });
    expect(message).toMatch(/^PostgreSQL task store: cannot connect to postgres:\/\/app@127\.0\.0\.1:\d+\/agents: /);
    expect(message).toMatch(/ECONNREFUSED.*; check DATABASE_URL/);
    expect(message).not.toContain("s3cret");
  });

  it("says to migrate a schema that never was, or is a migration behind", async () => {
    const schema = uniqueSchema("open");
    expect(await startError({ pool: postgresUrl(), definition: A2AServiceV1_0, schema })).toBe(
      `PostgreSQL task store: schema "${schema}" is at version 0, this release needs ${LATEST_MIGRATION}: run ` +
        `\`npx a2a-task-store migrate --database-url … --schema ${schema}\` ` +
        "(or migrate() from @protoc-gen-a2a/runtime/postgres, or the option migrate: true)",
    );
    await migrate(admin, { schema });
    await admin.query(`DELETE FROM "${schema}".migrations WHERE version >= 2`);
    const behind = await startError({ pool: postgresUrl(), definition: A2AServiceV1_0, schema });
    expect(behind).toContain(`schema "${schema}" is at version 1, this release needs ${LATEST_MIGRATION}`);
  });

  it("says to upgrade for a schema newer than this release", async () => {
    const schema = uniqueSchema("open");
    await migrate(admin, { schema });
    await admin.query(`INSERT INTO "${schema}".migrations (version, name) VALUES (99, 'future')`);
    expect(await startError({ pool: postgresUrl(), definition: A2AServiceV1_0, schema, migrate: true })).toBe(
      `PostgreSQL task store: schema "${schema}" is at version 99, newer than this release's ${LATEST_MIGRATION}: ` +
        "upgrade @protoc-gen-a2a/runtime",
    );
  });

  it("with migrate: true creates the tables, and the store works", async () => {
    const schema = uniqueSchema("open");
    const store = await openPostgresTaskStore({
      pool: postgresUrl(),
      definition: A2AServiceV1_0,
      schema,
      migrate: true,
    });
    const t = task("t1", { ms: 1000 });
    expect(await store.commit("", { task: t, expectedVersion: 0, events: [] })).toBe(1);
    expect((await store.get("", "t1"))?.task).toEqual(t);
    await store.close();
  });
});

describe("migrations 2 to 7 on a schema at version 1", () => {
  it("adds the turn columns and keeps the tasks", async () => {
    const schema = uniqueSchema("upgrade");
    await migrate(admin, { schema });
    const store = await openPostgresTaskStore({ pool: postgresUrl(), definition: A2AServiceV1_0, schema });
    const t = task("kept", { ms: 1000, history: ["hello"] });
    await store.commit("", { task: t, expectedVersion: 0, events: [] });
    await store.close();
    // Back to version 1, as a database an early release made: migrations 7 to 2 undone.
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
    await admin.query(`DROP INDEX "${schema}".tasks_turns_by_owner, "${schema}".tasks_turns_by_expiry`);
    await admin.query(
      `ALTER TABLE "${schema}".tasks DROP COLUMN turn_id, DROP COLUMN turn_owner, DROP COLUMN turn_expires`,
    );
    await admin.query(`DELETE FROM "${schema}".migrations WHERE version = 2`);
    expect(await migrate(admin, { schema })).toEqual({ applied: [2, 3, 4, 5, 6, 7], version: 7 });
    const reopened = await openPostgresTaskStore({ pool: postgresUrl(), definition: A2AServiceV1_0, schema });
    expect(await reopened.get("", "kept")).toEqual({ task: t, version: 1, turn: undefined });
    await reopened.close();
  });
});

describe("the example agent at start", () => {
  it("exits 1 with one line for a database it cannot reach, and for a schema newer than it", async () => {
    const unreachable = `postgres://postgres:pw@127.0.0.1:${await deadPort()}/nowhere`;
    const failed = await startExampleProcess({ DATABASE_URL: unreachable }).then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(failed).toContain("exited with 1 before printing its URLs");
    const stderr = failed.slice(failed.indexOf("--- stderr\n") + "--- stderr\n".length);
    expect(stderr).toMatch(
      /^echo agent: PostgreSQL task store: cannot connect to postgres:\/\/postgres@127\.0\.0\.1:\d+\/nowhere: .*ECONNREFUSED.*; check DATABASE_URL \(or the pool's settings\)\n$/,
    );

    const database = `newer_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await admin.query(`CREATE DATABASE ${database}`);
    try {
      const url = new URL(postgresUrl());
      url.pathname = `/${database}`;
      const client = new pg.Client(url.href);
      await client.connect();
      await migrate(client);
      await client.query("INSERT INTO a2a.migrations (version, name) VALUES (99, 'future')");
      await client.end();
      const newer = await startExampleProcess({ DATABASE_URL: url.href }).then(
        () => "started",
        (e: Error) => e.message,
      );
      const err = newer.slice(newer.indexOf("--- stderr\n") + "--- stderr\n".length);
      expect(err).toBe(
        `echo agent: PostgreSQL task store: schema "a2a" is at version 99, newer than this release's ${LATEST_MIGRATION}: ` +
          "upgrade @protoc-gen-a2a/runtime\n",
      );
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    }
  });
});
