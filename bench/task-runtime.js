// The task runtime against @a2a-js/sdk 1.3.0's DefaultRequestHandler with its
// InMemoryTaskStore, on the same streaming workload, in the same run:
//   one SendStreamingMessage whose executor publishes working, ten artifacts and
//   completed; the caller reads every event of the stream.
// Both handlers are called directly (no HTTP), so the figures are those of the
// task runtimes, not of the transports (server-throughput.js measures those).
// Each side runs in a child process of its own, so neither pays for the
// other's heap in its garbage collection (a2a-js's InMemoryTaskStore keeps
// every task; ours is bounded). After a warm-up round each, rounds are taken
// in turns, one side at a time, and the median sends/s is reported (target
// >= 3x), with the median CPU time per send beside it: on a machine other
// work shares, wall time swings from round to round while CPU time per send
// stays put, so its ratio tells what a quiet machine would show.
//
// With --profile ours|a2a-js it runs one side alone for 5 s and prints its
// rate (for `node --cpu-prof bench/task-runtime.js --profile ours`).
//
// With --memory it prints instead the heap after each 50k of 200k blocking
// sends through the bounded memory store (maxTasks 10k): flat when the bound
// holds (run with node --expose-gc for settled figures; `npm run bench` does, in a child process).
//
// `node bench/task-runtime.js [--memory | --profile ours|a2a-js]`; needs `npm run build` and
// `npm run build:examples`.
import { fork, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, ServerCallContext } from "@a2a-js/sdk/server";
import { createMemoryTaskStore, createTaskHandler, TaskState } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../dist-examples/generated-samples/v1.0.1/a2a_a2a.js";
import { benchContext } from "./call-context.js";
import { fmtOps, fmtRatio, isMain, median, nowMs } from "./stats.js";

const ROUNDS = 7;
const ROUND_MS = 400;
const ARTIFACTS = 10;
const TARGET_RATIO = 3;
const MEMORY_TASKS = 200_000;
const MEMORY_BOUND = 10_000;

// ---- ours ----

/** The executor of the workload: working, ten one-part artifacts, completed. */
const oursExecutor = {
  async execute(_context, updater) {
    await updater.status(TaskState.WORKING);
    for (let i = 0; i < ARTIFACTS; i++) {
      await updater.artifact({
        $typeName: "lf.a2a.v1.Artifact",
        artifactId: `a${i}`,
        name: "",
        description: "",
        parts: [textPart(`chunk ${i}`)],
        extensions: [],
      });
    }
    await updater.status(TaskState.COMPLETED);
  },
};

const textPart = (text) => ({
  $typeName: "lf.a2a.v1.Part",
  content: { case: "text", value: text },
  filename: "",
  mediaType: "",
});

const oursContext = benchContext;

const oursRequest = (i) => ({
  $typeName: "lf.a2a.v1.SendMessageRequest",
  tenant: "",
  message: {
    $typeName: "lf.a2a.v1.Message",
    messageId: `m${i}`,
    contextId: "",
    taskId: "",
    role: 1,
    parts: [textPart("hello")],
    extensions: [],
    referenceTaskIds: [],
  },
});

function oursHandler(store = createMemoryTaskStore()) {
  return createTaskHandler({ definition: A2AServiceV1_0, executor: oursExecutor, store });
}

async function oursStream(handler, i) {
  let n = 0;
  for await (const _ of handler.sendStreamingMessage(oursRequest(i), oursContext())) n++;
  return n;
}

// ---- @a2a-js/sdk 1.3.0 ----

const a2aJsExecutor = {
  async execute(rc, bus) {
    const ids = { taskId: rc.taskId, contextId: rc.contextId };
    bus.publish(
      AgentEvent.task({
        id: rc.taskId,
        contextId: rc.contextId,
        status: { state: 1 },
        history: [rc.userMessage],
        artifacts: [],
      }),
    );
    bus.publish(AgentEvent.statusUpdate({ ...ids, status: { state: 2 } }));
    for (let i = 0; i < ARTIFACTS; i++) {
      bus.publish(
        AgentEvent.artifactUpdate({
          ...ids,
          artifact: {
            artifactId: `a${i}`,
            name: "",
            description: "",
            parts: [{ content: { $case: "text", value: `chunk ${i}` } }],
            extensions: [],
          },
          append: false,
          lastChunk: false,
        }),
      );
    }
    bus.publish(AgentEvent.statusUpdate({ ...ids, status: { state: 3 } }));
    bus.finished();
  },
  async cancelTask() {},
};

const a2aJsCard = {
  name: "bench",
  description: "",
  version: "1",
  supportedInterfaces: [{ url: "http://127.0.0.1/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
};

function a2aJsHandler() {
  return new DefaultRequestHandler(a2aJsCard, new InMemoryTaskStore(), a2aJsExecutor);
}

async function a2aJsStream(handler, i) {
  const params = {
    tenant: "",
    message: { messageId: `m${i}`, role: 1, parts: [{ content: { $case: "text", value: "hello" } }] },
  };
  let n = 0;
  for await (const _ of handler.sendMessageStream(params, new ServerCallContext())) n++;
  return n;
}

// ---- timing ----

/** Runs `one` for about `ms` milliseconds, one send at a time; sends per second and CPU µs per send. */
async function rate(one, ms) {
  let n = 0;
  const cpu = process.cpuUsage();
  const start = nowMs();
  while (nowMs() - start < ms) {
    await one(n);
    n++;
  }
  const elapsed = nowMs() - start;
  const used = process.cpuUsage(cpu);
  return { ops: (n * 1000) / elapsed, cpuUs: (used.user + used.system) / n };
}

/** One side's send: a function of the send's number, returning how many events the caller read. */
function sideSend(side) {
  if (side === "ours") {
    const h = oursHandler();
    return (i) => oursStream(h, i);
  }
  if (side === "a2a-js") {
    const h = a2aJsHandler();
    return (i) => a2aJsStream(h, i);
  }
  throw new Error(`bench/task-runtime.js: the side is ours or a2a-js, got ${side}`);
}

/**
 * The child of one side (--side ours|a2a-js, started by benchTaskStreaming): checks the workload (task,
 * working, ten artifacts, completed: 13 events read), then runs one timed round per message from the parent.
 */
async function serveSide(side) {
  const send = sideSend(side);
  const events = await send(-1);
  if (events !== ARTIFACTS + 3) throw new Error(`${side}: the stream had ${events} events, not ${ARTIFACTS + 3}`);
  process.on("message", (ms) => {
    rate(send, ms).then(
      (r) => process.send(r),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
  // The parent went away: nothing will ask for another round.
  process.on("disconnect", () => process.exit(0));
  process.send({ ready: side });
}

/** A child process running one side; `round(ms)` times one round there. */
function startSide(side) {
  const child = fork(fileURLToPath(import.meta.url), ["--side", side], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let waiting;
  const failed = new Promise((_, reject) => {
    child.once("exit", (code) => reject(new Error(`bench/task-runtime.js --side ${side} exited with ${code}`)));
  });
  failed.catch(() => undefined);
  const next = () => Promise.race([new Promise((resolve) => (waiting = resolve)), failed]);
  child.on("message", (m) => waiting?.(m));
  const ready = next();
  return {
    ready,
    round(ms) {
      const answer = next();
      child.send(ms);
      return answer;
    },
    stop: () => child.kill(),
  };
}

/**
 * The streaming workload through both handlers, each in a child process of its own (so neither side's heap,
 * such as a2a-js's InMemoryTaskStore that keeps every task, weighs on the other's garbage collection):
 * a warm-up round each, then ROUNDS rounds taken in turns; medians of sends/s and of CPU µs per send.
 */
export async function benchTaskStreaming() {
  const ours = startSide("ours");
  const theirs = startSide("a2a-js");
  try {
    await ours.ready;
    await theirs.ready;
    await ours.round(ROUND_MS);
    await theirs.round(ROUND_MS);
    const o = [];
    const t = [];
    for (let r = 0; r < ROUNDS; r++) {
      o.push(await ours.round(ROUND_MS));
      t.push(await theirs.round(ROUND_MS));
    }
    const cpuUs = { ours: median(o.map((x) => x.cpuUs)), a2aJs: median(t.map((x) => x.cpuUs)) };
    const result = { ours: median(o.map((x) => x.ops)), a2aJs: median(t.map((x) => x.ops)) };
    return { ...result, ratio: result.ours / result.a2aJs, cpuUs, cpuRatio: cpuUs.a2aJs / cpuUs.ours };
  } finally {
    ours.stop();
    theirs.stop();
  }
}

/**
 * benchMemoryFlat in a child process of its own run with --expose-gc (settled heap figures, and this
 * process's heap kept out of them).
 */
export function benchMemoryFlatIsolated() {
  const script = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ["--expose-gc", script, "--memory", "--json"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${script} --memory exited with ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

export const formatMemory = (m) =>
  `[task-runtime] ${m.tasks} sends, memory store bounded at ${m.bound} tasks: heap after each quarter ` +
  m.heapMb.map((x) => `${x.toFixed(0)} MB`).join(", ");

/** One side alone, in this process, for a CPU profile. */
async function profileOne(side) {
  const send = sideSend(side);
  await rate(send, 1000);
  const r = await rate(send, 5000);
  console.log(`[task-runtime] ${side} alone: ${fmtOps(r.ops)}, ${r.cpuUs.toFixed(1)} µs CPU per send`);
}

const argAfter = (flag) => {
  const at = process.argv.indexOf(flag);
  return at > 0 ? process.argv[at + 1] : undefined;
};

if (isMain(import.meta.url) && argAfter("--side") !== undefined) {
  await serveSide(argAfter("--side"));
} else if (isMain(import.meta.url) && argAfter("--profile") !== undefined) {
  await profileOne(argAfter("--profile"));
} else if (isMain(import.meta.url) && process.argv.includes("--memory")) {
  const m = await benchMemoryFlat();
  if (process.argv.includes("--json")) console.log(JSON.stringify(m));
  else console.log(formatMemory(m));
} else if (isMain(import.meta.url)) {
  const s = await benchTaskStreaming();
  console.log(
    `[task-runtime] send + ${ARTIFACTS} artifact events, streamed: ours ${fmtOps(s.ours)}, ` +
      `a2a-js DefaultRequestHandler ${fmtOps(s.a2aJs)}, ${fmtRatio(s.ratio)} (target >= ${TARGET_RATIO}); ` +
      `CPU per send ${s.cpuUs.ours.toFixed(0)} vs ${s.cpuUs.a2aJs.toFixed(0)} µs, ${fmtRatio(s.cpuRatio)}`,
  );
}

// ---- memory over 200k tasks (prints only) ----

/** Heap after each quarter of 200k blocking sends through a memory store bounded at 10k tasks, in MB. */
export async function benchMemoryFlat() {
  const store = createMemoryTaskStore({ maxTasks: MEMORY_BOUND });
  const handler = oursHandler(store);
  const heap = [];
  for (let i = 0; i < MEMORY_TASKS; i++) {
    await handler.sendMessage(oursRequest(i), oursContext());
    if ((i + 1) % (MEMORY_TASKS / 4) === 0) {
      globalThis.gc?.();
      heap.push(process.memoryUsage().heapUsed / 1024 / 1024);
    }
  }
  await store.close();
  return { tasks: MEMORY_TASKS, bound: MEMORY_BOUND, heapMb: heap };
}
