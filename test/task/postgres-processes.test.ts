/**
 * Two node processes, each with its own pg pool and PostgreSQL TaskStore on
 * one database (test/helpers/postgres-peer.ts, forked from dist-examples/):
 * a task created through one is read, listed and its events received by a
 * subscriber in the other, both ways; nothing is shared but PostgreSQL.
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type JsonValue, toJson } from "@bufbuild/protobuf";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { migrate } from "@protoc-gen-a2a/runtime/postgres";
import { StreamResponseSchema, TaskSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import type { PeerMessage, PeerRequest } from "../helpers/postgres-peer.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { repoRoot } from "../helpers/run.js";
import { statusEvent, task, TaskState } from "../helpers/task-values.js";

const PEER = join(repoRoot, "dist-examples/test/helpers/postgres-peer.js");

type Omit1<T> = T extends unknown ? Omit<T, "n"> : never;

interface Peer {
  readonly pid: number;
  readonly events: { taskId: string; version: number; json: JsonValue }[];
  call(request: Omit1<PeerRequest>): Promise<JsonValue>;
  readonly child: ChildProcess;
}

function startPeer(url: string, schema: string): Promise<Peer> {
  if (!existsSync(PEER)) throw new Error(`${PEER} is missing: run \`npm run build:examples\``);
  const child = fork(PEER, [], { env: { ...process.env, DATABASE_URL: url, A2A_SCHEMA: schema }, stdio: "inherit" });
  const waiting = new Map<number, { resolve: (v: JsonValue) => void; reject: (e: Error) => void }>();
  const events: Peer["events"] = [];
  let next = 1;
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      const error = new Error(`peer process ${child.pid} exited (${code})`);
      reject(error);
      for (const w of waiting.values()) w.reject(error);
    });
    child.on("message", (message: PeerMessage) => {
      if ("event" in message) {
        events.push(message.event);
        return;
      }
      if (message.n === 0 && "ok" in message) {
        const call = (request: Omit1<PeerRequest>) =>
          new Promise<JsonValue>((res, rej) => {
            const n = next++;
            waiting.set(n, { resolve: res, reject: rej });
            child.send({ ...request, n });
          });
        resolve({ pid: Number(message.ok), events, call, child });
        return;
      }
      const w = waiting.get(message.n);
      waiting.delete(message.n);
      if ("ok" in message) w?.resolve(message.ok);
      else w?.reject(new Error(`peer ${child.pid}: ${message.error}`));
    });
  });
}

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
