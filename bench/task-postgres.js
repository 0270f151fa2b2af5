// The PostgreSQL TaskStore under createTaskHandler against the database's
// own limit: send + get throughput and p99 latency on one agent instance, at
// 10 and at 50 concurrent clients, and on two instances sharing the database,
// each as a ratio to pgbench's TPC-B-like script with as many clients on the
// same cluster (pgbench.js). Prints only; asserts nothing.
//
//   cluster    a private PostgreSQL cluster from Debian's or npm's binaries
//              (test/helpers/postgres-cluster.js, the one the tests use) on
//              127.0.0.1, removed at the end; without binaries the bench
//              answers "skipped" with the reason
//   instances  child processes (--instance), each a createTaskHandler over a
//              PostgreSQL store with its own pg pool (max POOL_MAX) and the
//              store's default two pipelined connections (commits and gets),
//              on the same database and schema; each runs its own clients, so
//              no per-call IPC is measured
//   one op     a blocking SendMessage whose executor publishes working, one
//              artifact and completed (the call returns once the completed
//              event came back through the store's event feed), then GetTask
//              of that task; the executor either awaits each call (three
//              commits) or makes the three together with Promise.all (one
//              commit, the updater's group commit), each measured
//   load       CLIENTS loops of one op at a time: a warm-up, then MEASURE_MS
//              (at most MAX_OPS ops); throughput in ops/s and the 99th
//              percentile of one op's latency. Two instances split the 10
//              clients 5 + 5 and run at once: their ops add up, their p99 is
//              the worse one
//   statistics after each warm-up the store's tables are analyzed, as
//              autovacuum does within a minute of a deployment's first writes
//              and `pgbench -i` does for its own tables. Plans the pool's
//              connections cached on the empty tables (where every index
//              ties, and a lookup by key took tasks_by_owner, walking all of
//              the owner's tasks) are so made again; without it one op cost
//              about twice as much, and more with every task stored
//   machine    how many cores the whole machine kept busy during each measured run (/proc/stat, Linux):
//              PostgreSQL, the instances and the rest; a figure near the core count means the machine,
//              not one process, is the limit
//   anchor     pgbench -c CLIENTS (10 and 50) for MEASURE_MS on the same
//              cluster, after the store rows; "skipped" without pgbench
//
// `node bench/task-postgres.js`; needs `npm run build` and `npm run build:examples`.
import { fork } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { createTaskHandler, TaskState } from "@protoc-gen-a2a/runtime/task";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import pg from "pg";
import { A2AServiceV1_0 } from "../dist-examples/generated-samples/v1.0.1/a2a_a2a.js";
import { GetTaskRequestSchema, SendMessageRequestSchema } from "../dist-examples/generated-samples/v1.0.1/a2a_pb.js";
import { findPostgresBin, INSTALL_HINT, startPostgresCluster } from "../test/helpers/postgres-cluster.js";
import { benchContext } from "./call-context.js";
import { runPgbench } from "./pgbench.js";
import { fmtOps, fmtRatio, isMain, machineCpuSeconds, nowMs } from "./stats.js";

const SCHEMA = "bench";
const CLIENTS = [10, 50];
const WARMUP_MS = 1000;
const MEASURE_MS = 4000;
const MAX_OPS = 50_000;
const POOL_MAX = 10;
/** What autovacuum does within a minute of a deployment's first writes, and `pgbench -i` for its own tables. */
const ANALYZE = `ANALYZE ${["tasks", "history", "artifacts", "task_events"].map((t) => `${SCHEMA}.${t}`).join(", ")}`;

// ---- one instance (child process) ----

const ARTIFACT = {
  $typeName: "lf.a2a.v1.Artifact",
  artifactId: "a0",
  name: "",
  description: "",
  parts: [{ $typeName: "lf.a2a.v1.Part", content: { case: "text", value: "done" }, filename: "", mediaType: "" }],
  extensions: [],
};

/** "together" makes its three calls at once (one commit); any other text awaits each (three commits). */
const executor = {
  async execute(context, updater) {
    if (context.message.parts[0]?.content.value === "together") {
      await Promise.all([
        updater.status(TaskState.WORKING),
        updater.artifact(ARTIFACT),
        updater.status(TaskState.COMPLETED),
      ]);
      return;
    }
    await updater.status(TaskState.WORKING);
    await updater.artifact(ARTIFACT);
    await updater.status(TaskState.COMPLETED);
  },
};

const callContext = benchContext;

async function serveInstance(url) {
  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
  const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema: SCHEMA });
  const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store });
  let runs = 0;
  const op = async (n, text) => {
    const req = create(SendMessageRequestSchema, {
      message: { messageId: `m${n}`, role: 1, parts: [{ content: { case: "text", value: text } }] },
    });
    const answer = await handler.sendMessage(req, callContext());
    const task = answer.payload.value;
    if (answer.payload.case !== "task" || task.status?.state !== TaskState.COMPLETED) {
      throw new Error(`send ${n}: expected a completed task, got ${answer.payload.case}`);
    }
    const got = await handler.getTask(create(GetTaskRequestSchema, { id: task.id }), callContext());
    if (got.artifacts?.length !== 1) throw new Error(`get ${task.id}: expected one artifact`);
  };
  const ops = {
    /** `clients` loops of op for a warm-up, then for `ms` (at most MAX_OPS): { count, elapsedMs, p99Ms }. */
    async load({ clients, ms, together }) {
      const base = ++runs * 100_000_000;
      const text = together ? "together" : "hello";
      await loops(clients, WARMUP_MS, (i, k) => op(base + i * 1_000_000 + k, text));
      await pool.query(ANALYZE);
      const before = machineCpuSeconds();
      const result = await loops(clients, ms, (i, k) => op(base + 50_000_000 + i * 1_000_000 + k, text));
      return { ...result, busyCores: busyCores(before, machineCpuSeconds()) };
    },
    async close() {
      await store.close();
      await pool.end();
      return true;
    },
  };
  process.on("message", ({ n, op, arg }) => {
    ops[op](arg).then(
      (ok) => process.send({ n, ok }),
      (error) => process.send({ n, error: String(error?.stack ?? error) }),
    );
  });
  // The driver went away: nothing will close this instance, so it goes too.
  process.on("disconnect", () => process.exit(0));
  process.send({ n: 0, ok: "ready" });
}

// ---- the driver ----

/** An instance in a child process; call(op, arg) resolves with its answer. */
function startInstance(url) {
  const child = fork(fileURLToPath(import.meta.url), ["--instance", url], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map();
  let next = 1;
  child.on("message", (m) => {
    const w = waiting.get(m.n);
    waiting.delete(m.n);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.ok);
  });
  child.on("exit", (code) => {
    for (const w of waiting.values()) w.reject(new Error(`bench instance exited with ${code}`));
    waiting.clear();
  });
  const answer = (n) => new Promise((resolve, reject) => waiting.set(n, { resolve, reject }));
  const ready = answer(0);
  return {
    ready,
    call(op, arg) {
      const n = next++;
      const reply = answer(n);
      child.send({ n, op, arg });
      return reply;
    },
    kill: () => child.kill(),
  };
}

/** How many cores the whole machine kept busy between two machineCpuSeconds() (PostgreSQL, instances, rest). */
function busyCores(before, after) {
  if (before === null || after === null || after.total === before.total) return null;
  return ((after.busy - before.busy) / (after.total - before.total)) * availableParallelism();
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** `clients` loops of `run(i, k)` one at a time for `ms` (at most MAX_OPS in all): { count, elapsedMs, p99Ms }. */
async function loops(clients, ms, run) {
  const latencies = [];
  const start = nowMs();
  const loop = async (i) => {
    for (let k = 0; nowMs() - start < ms && latencies.length < MAX_OPS; k++) {
      const t = nowMs();
      await run(i, k);
      latencies.push(nowMs() - t);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, i) => loop(i)));
  const elapsedMs = nowMs() - start;
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, elapsedMs, p99Ms: percentile(latencies, 0.99) };
}

/**
 * The instances' loads run at once, `clients` split between them: ops/s in all and the worst p99. `together`: the
 * executor makes its calls together (one commit per send).
 */
async function measure(instances, clients, together = false) {
  const each = Math.max(1, Math.round(clients / instances.length));
  const runs = await Promise.all(instances.map((i) => i.call("load", { clients: each, ms: MEASURE_MS, together })));
  const ops = runs.reduce((sum, r) => sum + (r.count * 1000) / r.elapsedMs, 0);
  const count = runs.reduce((sum, r) => sum + r.count, 0);
  return { ops, p99Ms: Math.max(...runs.map((r) => r.p99Ms)), count, busyCores: runs[0].busyCores };
}

/** Send + get through the PostgreSQL store on one and on two instances; {skipped} without PostgreSQL. */
export async function benchTaskPostgres() {
  const bin = findPostgresBin();
  if (bin === undefined) return { skipped: INSTALL_HINT };
  const cluster = await startPostgresCluster(bin, "a2a_bench");
  let stopped = false;
  const stopCluster = () => {
    if (stopped) return;
    stopped = true;
    cluster.stop();
  };
  // Interrupted (Ctrl-C, a kill): the cluster and its temp dir go all the same.
  const onSignal = (signal) => {
    stopCluster();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("exit", stopCluster);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const instances = [];
  try {
    const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
    await migrate(admin, { schema: SCHEMA });
    await admin.end();
    const a = startInstance(cluster.url);
    const b = startInstance(cluster.url);
    instances.push(a, b);
    await Promise.all([a.ready, b.ready]);
    const one = {};
    const together = {};
    for (const clients of CLIENTS) one[clients] = await measure([a], clients);
    const two = await measure([a, b], CLIENTS[0]);
    for (const clients of CLIENTS) together[clients] = await measure([a], clients, true);
    const twoTogether = await measure([a, b], CLIENTS[0], true);
    await Promise.all(instances.map((i) => i.call("close")));
    const anchor = {};
    for (const clients of CLIENTS) {
      anchor[clients] = await runPgbench(cluster.url, { clusterBin: bin, clients, seconds: MEASURE_MS / 1000 });
    }
    return { one, two, together, twoTogether, anchor, measureMs: MEASURE_MS };
  } finally {
    for (const i of instances) i.kill();
    process.off("exit", stopCluster);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    stopCluster();
  }
}

export function formatPostgres(r) {
  if (r.skipped !== undefined) return `[task-postgres] skipped: ${r.skipped}`;
  const busy = (x) =>
    x.busyCores === null ? "" : `, machine busy ${x.busyCores.toFixed(2)}/${availableParallelism()} cores`;
  const row = (x) => `${fmtOps(x.ops)}, p99 ${x.p99Ms.toFixed(1)} ms (${x.count} ops${busy(x)})`;
  const against = (x, clients) => {
    const anchor = r.anchor[clients];
    if (anchor.skipped !== undefined) return `pgbench skipped: ${anchor.skipped}`;
    const ratio = fmtRatio(x.ops / anchor.tps);
    return `pgbench TPC-B ${fmtOps(anchor.tps)} (${anchor.latencyMs.toFixed(1)} ms avg): ${ratio}`;
  };
  const lines = [];
  for (const [how, one, two] of [
    ["calls awaited one by one (3 commits)", r.one, r.two],
    ["calls made together (1 commit)", r.together, r.twoTogether],
  ]) {
    lines.push(`  executor's ${how}:`);
    for (const c of CLIENTS) lines.push(`    one instance, ${c} clients: ${row(one[c])}; ${against(one[c], c)}`);
    lines.push(`    two instances, ${CLIENTS[0]} clients: ${row(two)}; ${fmtRatio(two.ops / one[CLIENTS[0]].ops)} one`);
  }
  return `[task-postgres] send + get, ${r.measureMs / 1000} s each:\n${lines.join("\n")}`;
}

const instanceAt = process.argv.indexOf("--instance");
if (isMain(import.meta.url) && instanceAt > 0) {
  await serveInstance(process.argv[instanceAt + 1]);
} else if (isMain(import.meta.url)) {
  console.log(formatPostgres(await benchTaskPostgres()));
}
