/**
 * Two node processes, each with its own pg pool and PostgreSQL TaskStore on
 * one database (test/helpers/postgres-peer.ts, forked from dist-examples/):
 * a task created through one is read, listed and its events received by a
 * subscriber in the other, both ways; nothing is shared but PostgreSQL.
 */
import { type JsonValue, toJson } from "@bufbuild/protobuf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { migrate } from "@protoc-gen-a2a/runtime/postgres";
import { StreamResponseSchema, TaskSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { statusEvent, task, TaskState } from "../helpers/task-values.js";
import { type Peer, startPeer } from "./peer-process.js";

describe("two processes sharing one PostgreSQL", () => {
  let a: Peer;
  let b: Peer;

  beforeAll(async () => {
    const url = postgresUrl();
    const schema = uniqueSchema("proc");
    const admin = new pg.Client(url);
    await admin.connect();
    await migrate(admin, { schema });
    await admin.end();
    [a, b] = await Promise.all([startPeer(url, schema), startPeer(url, schema)]);
  });

  afterAll(async () => {
    for (const peer of [a, b]) {
      if (peer === undefined) continue;
      await peer.call({ op: "close" }).catch(() => undefined);
      if (peer.child.exitCode === null) peer.child.kill();
    }
  });

  it("run as distinct processes", () => {
    expect(new Set([a.pid, b.pid, process.pid]).size).toBe(3);
  });

  for (const [from, to] of [
    ["a", "b"],
    ["b", "a"],
  ] as const) {
    it(`a task made through ${from} is read, listed and followed through ${to}`, async () => {
      const writer = from === "a" ? a : b;
      const reader = from === "a" ? b : a;
      const id = `made-by-${from}`;
      const created = task(id, { contextId: `ctx-${from}`, ms: 1000, history: ["question"] });
      const json = (t: ReturnType<typeof task>) => toJson(TaskSchema, t);
      const create = { op: "commit", task: json(created), expectedVersion: 0 } as const;
      expect(await writer.call({ ...create, events: [toJson(StreamResponseSchema, statusEvent(created))] })).toBe(1);
      expect(await reader.call({ op: "get", id })).toEqual({ version: 1, task: json(created) });
      expect(await reader.call({ op: "list", contextId: `ctx-${from}` })).toEqual({
        ids: [id],
        totalSize: 1,
        pid: reader.pid,
      });
      await reader.call({ op: "subscribe", id });
      const states = [TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.COMPLETED];
      const sent: JsonValue[] = [];
      for (const [i, state] of states.entries()) {
        const next = task(id, { contextId: `ctx-${from}`, ms: 2000 + i, state, history: ["question"] });
        const event = toJson(StreamResponseSchema, statusEvent(next));
        sent.push(event);
        const version = await writer.call({ op: "commit", task: json(next), expectedVersion: i + 1, events: [event] });
        expect(version).toBe(i + 2);
      }
      await vi.waitFor(() => expect(reader.events.filter((e) => e.taskId === id)).toHaveLength(3), {
        timeout: 30_000,
        interval: 20,
      });
      expect(reader.events.filter((e) => e.taskId === id)).toEqual(
        sent.map((event, i) => ({ taskId: id, version: i + 2, json: event })),
      );
      expect(writer.events.filter((e) => e.taskId === id)).toEqual([]);
    });
  }
});
