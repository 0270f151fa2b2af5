/**
 * Tasks of a dead instance end (packages/runtime/src/task/postgres/leases.ts):
 * example agent processes (test/helpers/example-process.ts) on one database
 * made for this file, with short turn leases (A2A_TASK_LEASE_MS). Three times:
 * a `wait` task runs in a fresh process A, a subscriber listens through
 * process B, A is killed (SIGKILL); B's subscriber hears FAILED with the
 * lease's status message, and B reads the task FAILED. And a task SUBMITTED
 * by a store instance (a task store peer process) that is killed before it
 * publishes anything ends FAILED for B's subscriber the same way. Every wait
 * is bounded; nothing asserts how long it took.
 */
import { type JsonValue, toJson } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LEASE_FAILURE_TEXT } from "@protoc-gen-a2a/runtime/postgres";
import { WAIT_TEXT } from "../../examples/echo-agent/echo-handler.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role, type StreamResponse, TaskSchema, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type ExampleProcess, startExampleProcess, stopAllExampleProcesses } from "../helpers/example-process.js";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.js";
import { task } from "../helpers/task-values.js";
import { type Peer, startPeer } from "./peer-process.js";

/** Long enough that a loaded machine still renews in time, short enough for three rounds. */
const LEASE = { A2A_TASK_LEASE_MS: "3000" };
const WAIT = { timeout: 60_000, interval: 50 };
const ROUNDS = 3;

const text = (t: string, contextId: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
  contextId,
});

/** A stream's first event, and the rest until it ends (bounded by WAIT.timeout). */
async function open(
  stream: AsyncIterable<StreamResponse>,
): Promise<{ first: StreamResponse; rest: Promise<StreamResponse[]> }> {
  const it = stream[Symbol.asyncIterator]();
  const head = await it.next();
  if (head.done) throw new Error("the stream ended before its first event");
  const rest = (async () => {
    const out: StreamResponse[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value);
    return out;
  })();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream did not end within ${WAIT.timeout} ms`)), WAIT.timeout);
  });
  const ended = Promise.race([rest, bound]).finally(() => clearTimeout(timer));
  ended.catch(() => undefined);
  return { first: head.value, rest: ended };
}

const stateOf = (e: StreamResponse) =>
  e.payload.case === "task" || e.payload.case === "statusUpdate" ? e.payload.value.status?.state : undefined;

/** Checks that `events` end with FAILED whose status message is the lease's. */
function expectLeaseFailure(events: readonly StreamResponse[]): void {
  const last = events.at(-1);
  expect(last?.payload.case).toBe("statusUpdate");
  expect(last && stateOf(last)).toBe(TaskState.FAILED);
  const status = last?.payload.case === "statusUpdate" ? last.payload.value.status : undefined;
  const part = status?.message?.parts[0]?.content;
  expect(part?.case === "text" && part.value).toBe(LEASE_FAILURE_TEXT);
}

let database: TestDatabase | undefined;
let url: string;
let b: ExampleProcess;
let clientB: A2AServiceClient;
const peers: Peer[] = [];

beforeAll(async () => {
  database = await createTestDatabase("orphans");
  url = database.url;
  b = await startExampleProcess({ DATABASE_URL: url, ...LEASE });
  clientB = createA2AServiceRestClient({ url: b.urls.rest });
});

afterAll(async () => {
  for (const peer of peers) peer.child.kill("SIGKILL");
  await stopAllExampleProcesses();
  await database?.drop();
});

describe("an instance that dies", () => {
  it(`leaves its running task FAILED for subscribers on another instance (${ROUNDS} kills)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const a = await startExampleProcess({ DATABASE_URL: url, ...LEASE });
      const clientA = createA2AServiceJsonRpcClient({ url: a.urls.jsonrpc });
      const contextId = crypto.randomUUID();
      const sending = await open(clientA.sendStreamingMessage({ message: text(WAIT_TEXT, contextId) }));
      expect(stateOf(sending.first)).toBe(TaskState.SUBMITTED);
      const id = (await clientB.listTasks({ contextId })).tasks[0]!.id;
      await vi.waitFor(async () => expect((await clientB.getTask({ id })).status?.state).toBe(TaskState.WORKING), WAIT);
      const there = await open(clientB.subscribeToTask({ id }));
      expect(stateOf(there.first)).toBe(TaskState.WORKING);

      await a.stop();
      const events = await there.rest;
      expectLeaseFailure(events);
      expect(events.map(stateOf)).toEqual([TaskState.FAILED]);
      const read = await clientB.getTask({ id });
      expect(read.status?.state).toBe(TaskState.FAILED);
      expect(read.history.at(-1)?.parts[0]?.content.value).toBe(LEASE_FAILURE_TEXT);
    }
  });

  it("leaves a task it had only SUBMITTED FAILED as well", async () => {
    const peer = await startPeer(url, "a2a", LEASE);
    peers.push(peer);
    const id = `submitted-${crypto.randomUUID()}`;
    const submitted = toJson(TaskSchema, task(id, { ms: Date.now(), history: ["hello"] })) as JsonValue;
    const made = await peer.call({ op: "commit", task: submitted, expectedVersion: 0, events: [], startTurn: "t1" });
    expect(made).toBe(1);
    // The peer's tasks are in its tenant.
    const client = createA2AServiceRestClient({ url: b.urls.rest, tenant: "peers" });
    const there = await open(client.subscribeToTask({ id, tenant: "peers" }));
    expect(stateOf(there.first)).toBe(TaskState.SUBMITTED);

    peer.child.kill("SIGKILL");
    const events = await there.rest;
    expectLeaseFailure(events);
    expect((await client.getTask({ id, tenant: "peers" })).status?.state).toBe(TaskState.FAILED);
  });
});
