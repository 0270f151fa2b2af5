/**
 * The PostgreSQL store's pipelined connections (pipeline.ts) on the run's
 * cluster: commits and gets go on while every connection of the pool is held
 * elsewhere, on no more than pipelineConnections connections of the store's
 * own; a statement that fails fails alone on its connection; a connection
 * killed under statements (pg_terminate_backend, ROUNDS times) fails them as
 * the 503 of a database that cannot serve now, is reported, and the next
 * statement opens another; close() answers what was sent, then ends the
 * connections; idle, they keep no process alive (a child that never closes
 * its store exits by itself); size 0 and a node-postgres without pipeline
 * mode go through the pool. Connections are told apart by application_name, which the
 * store's own take from the pool's options.
 */
import { spawn } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { PipelinedConnections } from "../../packages/runtime/dist/task/postgres/pipeline.js";
import { storeError } from "../../packages/runtime/dist/task/postgres/store-error.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { repoRoot } from "../helpers/run.js";
import { task, TaskState } from "../helpers/task-values.js";

const ROUNDS = 5;
const CALLS = 200;

let admin: pg.Pool;
let schema: string;

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
  schema = uniqueSchema("pipe");
  await migrate(admin, { schema });
});

afterAll(async () => {
  await admin?.end();
});

/** A pool whose connections (and so the pipelined ones made from its options) carry a name of their own. */
function namedPool(max: number): { pool: pg.Pool; name: string } {
  const name = uniqueSchema("app");
  const pool = new pg.Pool({ connectionString: postgresUrl(), max, application_name: name });
  pool.on("error", () => {});
  return { pool, name };
}

/** The backends connected under `name`. */
async function backends(name: string): Promise<number[]> {
  const result = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid",
    [name],
  );
  return result.rows.map((r) => r.pid);
}

/** Every backend under `name` not among `except`, terminated; how many. */
async function terminate(name: string, except: readonly number[] = []): Promise<number> {
  const pids = (await backends(name)).filter((pid) => !except.includes(pid));
  for (const pid of pids) await admin.query("SELECT pg_terminate_backend($1)", [pid]);
  return pids.length;
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe("the store's pipelined connections", () => {
  it("carry commits and gets while the pool's every connection is held, on no more than their number", async () => {
    const { pool, name } = namedPool(2);
    const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema, pruneEveryMs: 0 });
    const held = [await pool.connect(), await pool.connect()];
    try {
      const ids = Array.from({ length: CALLS }, (_, i) => `p-${name}-${i}`);
      const versions = await Promise.all(
        ids.map((id) =>
          store.commit("", { task: task(id, { state: TaskState.WORKING }), expectedVersion: 0, events: [] }),
        ),
      );
      expect(versions).toEqual(ids.map(() => 1));
      const read = await Promise.all(ids.map((id) => store.get("", id)));
      expect(read.map((r) => [r?.task.id, r?.version])).toEqual(ids.map((id) => [id, 1]));
      // The pool's two, held here, and the store's two.
      expect((await backends(name)).length).toBe(4);
    } finally {
      for (const client of held) client.release();
      await store.close();
      await pool.end();
    }
  });

  it("fail a failing statement alone: those sent before and after it on its connection are answered", async () => {
    const { pool } = namedPool(2);
    const pipeline = new PipelinedConnections(pool, 1, () => {});
    try {
      const answers = await Promise.all(
        ["SELECT 1 AS n", "SELECT 1 / 0 AS n", "SELECT 3 AS n"].map((text) => settle(pipeline.query({ text }))),
      );
      expect(answers.map((a) => (a.ok ? a.value.rows[0]?.n : (a.error as { code?: string }).code))).toEqual([
        1,
        "22012",
        3,
      ]);
    } finally {
      await pipeline.close();
      await pool.end();
    }
  });

  it("fail what a killed connection carried as a 503, report it, and open another (each round)", async () => {
    const { pool, name } = namedPool(2);
    const reported: Error[] = [];
    const pipeline = new PipelinedConnections(pool, 1, (e) => reported.push(e));
    try {
      for (let round = 0; round < ROUNDS; round++) {
        expect((await pipeline.query<{ n: number }>({ text: "SELECT 1 AS n" })).rows).toEqual([{ n: 1 }]);
        const sent = [
          settle(pipeline.query({ text: "SELECT pg_sleep(30)" })),
          settle(pipeline.query({ text: "SELECT 2" })),
        ];
        expect(await terminate(name)).toBe(1);
        const outcomes = await Promise.all(sent);
        for (const outcome of outcomes) {
          expect(outcome.ok).toBe(false);
          const answered = storeError('get of task "t" (tenant "")', outcome.ok ? undefined : outcome.error);
          expect(answered).toBeInstanceOf(A2AError);
          expect((answered as A2AError).options.httpStatus).toBe(503);
        }
        expect(reported.length).toBe(round + 1);
        expect(reported[round]?.message).toMatch(/^PostgreSQL task store: pipelined connection: /);
      }
      expect((await pipeline.query<{ n: number }>({ text: "SELECT 4 AS n" })).rows).toEqual([{ n: 4 }]);
    } finally {
      await pipeline.close();
      await pool.end();
    }
  });

  it("answer at close what was sent before, then end their connections", async () => {
    const { pool, name } = namedPool(2);
    const pipeline = new PipelinedConnections(pool, 2, () => {});
    try {
      const slow = pipeline.query<{ n: number }>({ text: "SELECT 5 AS n FROM pg_sleep(0.2)" });
      const other = pipeline.query<{ n: number }>({ text: "SELECT 6 AS n" });
      const closed = pipeline.close();
      expect([(await slow).rows, (await other).rows]).toEqual([[{ n: 5 }], [{ n: 6 }]]);
      await closed;
      expect(await backends(name)).toEqual([]);
      // After close a statement goes through the pool.
      expect((await pipeline.query<{ n: number }>({ text: "SELECT 7 AS n" })).rows).toEqual([{ n: 7 }]);
      expect((await backends(name)).length).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it("keep no process alive once idle: an agent that never closes its store exits by itself", async () => {
    const { name } = namedPool(1);
    // The child's pool lets its idle connections go at once; the store is never closed.
    const script = `
      import pg from "pg";
      import { createPostgresTaskStore } from "@protoc-gen-a2a/runtime/postgres";
      import { A2AServiceV1_0 } from "./dist-examples/generated-samples/v1.0.1/a2a_a2a.js";
      const pool = new pg.Pool({ connectionString: process.argv[1], max: 2, idleTimeoutMillis: 1, application_name: process.argv[3] });
      const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema: process.argv[2], pruneEveryMs: 0 });
      const got = await store.get("", "none");
      console.log(got === undefined ? "answered" : "found");
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script, postgresUrl(), schema, name], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      // Bounded: a child kept alive by a connection is killed, and the test fails on its signal.
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.on("exit", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect([code, out.trim()]).toEqual([0, "answered"]);
    expect(await backends(name)).toEqual([]);
  }, 30_000);

  it("are none at size 0 or with a node-postgres without pipeline mode: the pool carries all", async () => {
    // A client as before node-postgres 8.23: the option is not kept.
    class OldClient extends pg.Client {
      constructor(config?: pg.ClientConfig) {
        super(config);
        Object.assign(this, { pipeline: false });
      }
    }
    const { pool, name } = namedPool(1);
    const old = new pg.Pool({ connectionString: postgresUrl(), max: 1, Client: OldClient });
    const none = new PipelinedConnections(pool, 0, () => {});
    const unsupported = new PipelinedConnections(old, 2, () => {});
    try {
      expect([none.size, unsupported.size, PipelinedConnections.supported(OldClient)]).toEqual([0, 0, false]);
      const held = await pool.connect();
      const waiting = none.query<{ n: number }>({ text: "SELECT 8 AS n" });
      // The pool's one connection is held: the statement waits for it, as it did before pipelining.
      expect((await backends(name)).length).toBe(1);
      held.release();
      expect((await waiting).rows).toEqual([{ n: 8 }]);
      expect((await unsupported.query<{ n: number }>({ text: "SELECT 9 AS n" })).rows).toEqual([{ n: 9 }]);
    } finally {
      await Promise.all([none.close(), unsupported.close()]);
      await Promise.all([pool.end(), old.end()]);
    }
  });

  it("refuse a pipelineConnections that is not a whole number >= 0, naming it", () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() =>
        createPostgresTaskStore({ pool: admin, definition: A2AServiceV1_0, schema, pipelineConnections: bad }),
      ).toThrow(`PostgreSQL task store: pipelineConnections must be an integer >= 0, got ${bad}`);
    }
  });
});
