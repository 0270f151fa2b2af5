/**
 * A task store peer process (test/helpers/postgres-peer.ts, forked from its
 * build in dist-examples/): `call` sends it one request over IPC and resolves
 * with its answer; `events` collects what its subscriptions heard. `env` is
 * added to the child's environment (A2A_TASK_LEASE_MS, ...).
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "@bufbuild/protobuf";
import type { PeerMessage, PeerRequest } from "../helpers/postgres-peer.js";
import { repoRoot } from "../helpers/run.js";

const PEER = join(repoRoot, "dist-examples/test/helpers/postgres-peer.js");

type Omit1<T> = T extends unknown ? Omit<T, "n"> : never;

export interface Peer {
  readonly pid: number;
  readonly events: { taskId: string; version: number; json: JsonValue }[];
  call(request: Omit1<PeerRequest>): Promise<JsonValue>;
  readonly child: ChildProcess;
}

export function startPeer(url: string, schema: string, env: Record<string, string> = {}): Promise<Peer> {
  if (!existsSync(PEER)) throw new Error(`${PEER} is missing: run \`npm run build:examples\``);
  const child = fork(PEER, [], {
    env: { ...process.env, DATABASE_URL: url, A2A_SCHEMA: schema, ...env },
    stdio: "inherit",
  });
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
