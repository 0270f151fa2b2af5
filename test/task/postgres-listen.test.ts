/**
 * The PostgreSQL store's LISTEN connection through a network blip (listen-connection.ts): a reconnect attempt
 * that hangs, then fails after a release and a new subscriber's attempt, must neither replace that attempt nor
 * leave a second LISTEN connection checked out; close() gives back every connection the store took. Through a
 * TCP proxy on 127.0.0.1 in front of the tests' PostgreSQL, whose connections can be cut and left unanswered.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { task } from "../helpers/task-values.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

let admin: pg.Pool;
let proxy: TcpProxy;

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
  proxy = await startTcpProxy(Number(new URL(postgresUrl()).port));
});

afterAll(async () => {
  await proxy?.close();
  await admin?.end();
});

describe("the LISTEN connection after a blip", () => {
  it("is one, and every connection is given back on close, when a hung reconnect fails late", async () => {
    const schema = uniqueSchema("ll");
    await migrate(admin, { schema });
    const through = new URL(postgresUrl());
    through.port = String(proxy.port);
    // A connection attempt that gets no answer fails after a second.
    const pool = new pg.Pool({ connectionString: through.href, max: 4, connectionTimeoutMillis: 1000 });
    pool.on("error", () => {});
    const errors: string[] = [];
    const store = createPostgresTaskStore({
      pool,
      definition: A2AServiceV1_0,
      schema,
      listenIdleMs: 0,
      pruneEveryMs: 0,
      onError: (e) => errors.push(e.message),
    });
    try {
      for (const id of ["t1", "t2"]) await store.commit("", { task: task(id), expectedVersion: 0, events: [] });
      const first = await store.subscribe("", "t1", () => {});
      proxy.mode = "hang";
      proxy.cut();
      // The lost connection is reported, and its first reconnect attempt (after 100 ms) hangs.
      await vi.waitFor(() => expect(errors.join("\n")).toContain("LISTEN connection lost"));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first();
      proxy.mode = "pass";
      const second = await store.subscribe("", "t2", () => {});
      // The hung attempt fails (connectionTimeoutMillis) after the new subscriber's attempt listens.
      await vi.waitFor(() => expect(errors.join("\n")).toContain("reconnecting the LISTEN connection"), {
        timeout: 5000,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(pool.totalCount - pool.idleCount).toBe(1);
      await second();
      await store.close();
      expect(pool.totalCount - pool.idleCount).toBe(0);
    } finally {
      await store.close();
      // A connection left checked out would keep pool.end() waiting: the assertions above say so first.
      await Promise.race([pool.end(), new Promise((resolve) => setTimeout(resolve, 2000))]);
    }
  });
});
