// The PostgreSQL TaskStore under createTaskHandler: send + get throughput and
// p99 latency on one agent instance, and on two instances sharing one
// database, in the same run. Prints only; asserts nothing.
//
//   cluster    a private PostgreSQL cluster from Debian's or npm's binaries
//              (test/helpers/postgres-cluster.js, the one the tests use) on
//              127.0.0.1, removed at the end; without binaries the bench
//              answers "skipped" with the reason
//   instances  two child processes (--instance), each a createTaskHandler
//              over a PostgreSQL store with its own pg pool (max 8), on the
//              same database and schema
//   one op     a blocking SendMessage whose executor publishes working, one
//              artifact and completed (the call returns once the completed
//              event came back through the store's LISTEN/NOTIFY feed), then
//              GetTask of that task. One instance: both on instance A. Two
//              instances: the send on one and the get on the other, half of
//              the loops each way. Calls go from this process over IPC, so
//              both cases pay the same IPC cost
//   load       CONCURRENCY loops of one op at a time; a warm-up, then
//              MEASURE_MS (at most MAX_OPS ops); throughput in ops/s and the
//              99th percentile of one op's latency
//
// `node bench/task-postgres.js`; needs `npm run build` and `npm run build:examples`.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { createTaskHandler, TaskState } from "@protoc-gen-a2a/runtime/task";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import pg from "pg";
import { A2AServiceV1_0 } from "../dist-examples/generated-samples/v1.0.1/a2a_a2a.js";
import { GetTaskRequestSchema, SendMessageRequestSchema } from "../dist-examples/generated-samples/v1.0.1/a2a_pb.js";
import { findPostgresBin, INSTALL_HINT, startPostgresCluster } from "../test/helpers/postgres-cluster.js";
import { benchContext } from "./call-context.js";
import { fmtOps, isMain, nowMs } from "./stats.js";

const SCHEMA = "bench";
const CONCURRENCY = 8;
const WARMUP_MS = 800;
const MEASURE_MS = 3000;
const MAX_OPS = 50_000;
const POOL_MAX = 8;

// ---- one instance (child process) ----

const executor = {
  async execute(_context, updater) {
    await updater.status(TaskState.WORKING);
    await updater.artifact({
      $typeName: "lf.a2a.v1.Artifact",
      artifactId: "a0",
      name: "",
      description: "",
      parts: [{ $typeName: "lf.a2a.v1.Part", content: { case: "text", value: "done" }, filename: "", mediaType: "" }],
      extensions: [],
    });
    await updater.status(TaskState.COMPLETED);
  },
};

const callContext = benchContext;

async function serveInstance(url) {
  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
  const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema: SCHEMA });
  const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store });
  const ops = {
    async send(n) {
      const req = create(SendMessageRequestSchema, {
        message: { messageId: `m${n}`, role: 1, parts: [{ content: { case: "text", value: "hello" } }] },
      });
      const answer = await handler.sendMessage(req, callContext());
      const task = answer.payload.value;
      if (answer.payload.case !== "task" || task.status?.state !== TaskState.COMPLETED) {
        throw new Error(`send ${n}: expected a completed task, got ${answer.payload.case}`);
      }
      return task.id;
    },
    async get(id) {
      const task = await handler.getTask(create(GetTaskRequestSchema, { id }), callContext());
      if (task.artifacts?.length !== 1) throw new Error(`get ${id}: expected one artifact`);
      return true;
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

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** CONCURRENCY loops of send on `senders[i % n]` then get on `getters[i % n]`, for `ms` (at most MAX_OPS ops). */
async function load(senders, getters, ms) {
  const latencies = [];
  const start = nowMs();
  const loop = async (i) => {
    const send = senders[i % senders.length];
    const get = getters[i % getters.length];
    for (let k = 0; nowMs() - start < ms && latencies.length < MAX_OPS; k++) {
      const t = nowMs();
      const id = await send.call("send", i * 1_000_000 + k);
      await get.call("get", id);
      latencies.push(nowMs() - t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => loop(i)));
  const elapsed = nowMs() - start;
  latencies.sort((a, b) => a - b);
  return { ops: (latencies.length * 1000) / elapsed, p99Ms: percentile(latencies, 0.99), count: latencies.length };
}

async function measure(senders, getters) {
  await load(senders, getters, WARMUP_MS);
  return load(senders, getters, MEASURE_MS);
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
    const one = await measure([a], [a]);
    const two = await measure([a, b], [b, a]);
    await Promise.all(instances.map((i) => i.call("close")));
    return { one, two, concurrency: CONCURRENCY, measureMs: MEASURE_MS };
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
  const row = (name, x) => `${name} ${fmtOps(x.ops)}, p99 ${x.p99Ms.toFixed(1)} ms (${x.count} ops)`;
  return (
    `[task-postgres] send + get, ${r.concurrency} loops, ${r.measureMs / 1000} s: ` +
    `${row("one instance", r.one)}; ${row("two instances (send on one, get on the other)", r.two)}`
  );
}

const instanceAt = process.argv.indexOf("--instance");
if (isMain(import.meta.url) && instanceAt > 0) {
  await serveInstance(process.argv[instanceAt + 1]);
} else if (isMain(import.meta.url)) {
  console.log(formatPostgres(await benchTaskPostgres()));
}
