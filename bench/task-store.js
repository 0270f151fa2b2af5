// The in-memory TaskStore's design choices, measured (run after
// `npm run build -w @protoc-gen-a2a/runtime`: `node bench/task-store.js [n]`,
// n tasks in one tenant, default 100,000). Prints only; asserts nothing.
//   1. ordered index: the blocked sorted keys (dist/task/sorted-keys.js) vs a
//      flat sorted array with splice, building n keys (each new task sorts
//      first, as new tasks do) and moving keys to the front (a status update)
//   2. ListTasks on the store with n tasks: first page, a deep page (by
//      token), filtered pages; against filtering and sorting per call
//   3. copies: the protobuf-shaped deepCopy vs structuredClone on a task
//   4. commit: creates and updates per second with n tasks stored
import { deepCopy } from "../packages/runtime/dist/task/copy.js";
import { createMemoryTaskStore } from "../packages/runtime/dist/task/memory-store.js";
import { compareKeys, SortedKeys } from "../packages/runtime/dist/task/sorted-keys.js";
import { median, nowMs } from "./stats.js";

const N = Number(process.argv[2] ?? 100_000);
const BASE = 1_700_000_000_000;

class FlatKeys {
  keys = [];
  #at(key) {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys[mid], key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  insert(key) {
    this.keys.splice(this.#at(key), 0, key);
  }
  remove(key) {
    this.keys.splice(this.#at(key), 1);
  }
}

function time(label, fn, rounds = 5) {
  const runs = [];
  let out;
  for (let r = 0; r < rounds; r++) {
    const t = nowMs();
    out = fn();
    runs.push(nowMs() - t);
  }
  console.log(`${label.padEnd(58)} ${median(runs).toFixed(2).padStart(10)} ms`);
  return out;
}

function benchIndex() {
  console.log(`\n1. ordered index, ${N} keys`);
  for (const [name, Kind] of [
    ["blocked", SortedKeys],
    ["flat array", FlatKeys],
  ]) {
    const set = time(
      `${name}: build (each new key first)`,
      () => {
        const s = new Kind();
        for (let i = 0; i < N; i++) s.insert({ micros: (BASE + i) * 1000, id: `t${i}` });
        return s;
      },
      3,
    );
    const moves = 20_000;
    time(
      `${name}: ${moves} updates (random key to the front)`,
      () => {
        let next = (BASE + N) * 1000;
        const keys = [];
        for (let i = 0; i < moves; i++)
          keys.push({ micros: (BASE + ((i * 7919) % N)) * 1000, id: `t${(i * 7919) % N}` });
        for (const k of keys) {
          set.remove(k);
          set.insert({ micros: next++, id: k.id });
        }
      },
      1,
    );
  }
}

function makeTask(i, contexts) {
  const ms = BASE + i;
  return {
    $typeName: "lf.a2a.v1.Task",
    id: `task-${i}`,
    contextId: `ctx-${i % contexts}`,
    status: {
      $typeName: "lf.a2a.v1.TaskStatus",
      state: 1 + (i % 3),
      timestamp: {
        $typeName: "google.protobuf.Timestamp",
        seconds: BigInt(Math.floor(ms / 1000)),
        nanos: (ms % 1000) * 1e6,
      },
    },
    artifacts: [],
    history: Array.from({ length: 4 }, (_, h) => ({
      $typeName: "lf.a2a.v1.Message",
      messageId: `m-${i}-${h}`,
      contextId: `ctx-${i % contexts}`,
      taskId: `task-${i}`,
      role: 1 + (h % 2),
      parts: [
        {
          $typeName: "lf.a2a.v1.Part",
          content: { case: "text", value: `message ${h} of task ${i}` },
          filename: "",
          mediaType: "",
        },
      ],
      metadata: { turn: h },
      extensions: [],
      referenceTaskIds: [],
    })),
    metadata: { bench: true },
  };
}

async function benchStore() {
  // Bounded by count alone: the bench stores N tasks of about 1 KB, past the default maxBytes and shares.
  const store = createMemoryTaskStore({
    maxTasks: N,
    maxBytes: Number.MAX_SAFE_INTEGER,
    maxTenantShare: 1,
    maxOwnerShare: 1,
  });
  const t0 = nowMs();
  for (let i = 0; i < N; i++) await store.commit("", { task: makeTask(i, 1000), expectedVersion: 0, events: [] });
  const createMs = nowMs() - t0;
  console.log(
    `\n4. commit: ${N} creates ${(N / createMs).toFixed(0)}k/s (${((createMs * 1000) / N).toFixed(1)} µs each)`,
  );
  const t1 = nowMs();
  const updates = 20_000;
  for (let u = 0; u < updates; u++) {
    const i = (u * 7919) % N;
    const stored = await store.get("", `task-${i}`);
    const task = {
      ...stored.task,
      status: {
        ...stored.task.status,
        timestamp: { ...stored.task.status.timestamp, seconds: stored.task.status.timestamp.seconds + 100_000n },
      },
    };
    await store.commit("", { task, expectedVersion: stored.version, events: [] });
  }
  const updateMs = nowMs() - t1;
  console.log(`   ${updates} get+commit updates: ${((updateMs * 1000) / updates).toFixed(1)} µs each`);
  console.log(`\n2. ListTasks with ${N} tasks, pageSize 50 (median of 20 calls)`);
  const q = { contextId: "", status: 0, statusAfterMs: undefined, pageSize: 50, pageToken: "" };
  const perCall = async (label, query) => {
    const runs = [];
    for (let r = 0; r < 20; r++) {
      const t = nowMs();
      await store.list("", query);
      runs.push(nowMs() - t);
    }
    const page = await store.list("", query);
    console.log(`${label.padEnd(58)} ${median(runs).toFixed(3).padStart(10)} ms  (totalSize ${page.totalSize})`);
  };
  await perCall("first page, no filter", q);
  let deep = await store.list("", { ...q, pageSize: 100 });
  for (let p = 0; p < 200 && deep.nextPageToken; p++)
    deep = await store.list("", { ...q, pageSize: 100, pageToken: deep.nextPageToken });
  await perCall("page after 20,000 tasks (by token)", { ...q, pageToken: deep.nextPageToken });
  await perCall("contextId filter (1 in 1000)", { ...q, contextId: "ctx-7" });
  await perCall("status filter (1 in 3)", { ...q, status: 2 });
  await perCall("contextId + status + statusAfterMs", {
    ...q,
    contextId: "ctx-7",
    status: 2,
    statusAfterMs: BASE + N / 2,
  });
  const all = [];
  for (let i = 0; i < N; i++) all.push(makeTask(i, 1000));
  time(
    "for comparison: filter + sort per call (status filter)",
    () =>
      all
        .filter((t) => t.status.state === 2)
        .map((t) => ({
          t,
          key: { micros: Number(t.status.timestamp.seconds) * 1e6 + t.status.timestamp.nanos / 1000, id: t.id },
        }))
        .sort((a, b) => compareKeys(a.key, b.key))
        .slice(0, 50),
    5,
  );
  return all[0];
}

function benchCopy(task) {
  console.log("\n3. copy one task (4 history messages), 20,000 times");
  time("deepCopy", () => {
    for (let i = 0; i < 20_000; i++) deepCopy(task);
  });
  time("structuredClone", () => {
    for (let i = 0; i < 20_000; i++) structuredClone(task);
  });
}

console.log(`node ${process.version}`);
benchIndex();
const task = await benchStore();
benchCopy(task);
