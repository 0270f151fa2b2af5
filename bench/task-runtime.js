// The task runtime against @a2a-js/sdk 1.3.0's DefaultRequestHandler with its
// InMemoryTaskStore, on the same streaming workload, in the same run:
//   one SendStreamingMessage whose executor publishes working, ten artifacts and
//   completed; the caller reads every event of the stream.
// Both handlers are called in-process (no HTTP), so the figures are those of the
// task runtimes, not of the transports (server-throughput.js measures those).
// Rounds are interleaved and the median sends/s is reported (target >= 3x).
//
// With --memory it prints instead the heap after each 50k of 200k blocking
// sends through the bounded memory store (maxTasks 10k): flat when the bound
// holds (run with node --expose-gc for settled figures).
//
// `node bench/task-runtime.js [--memory]`; needs `npm run build` and `npm run build:examples`.
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, ServerCallContext } from "@a2a-js/sdk/server";
import { createMemoryTaskStore, createTaskHandler, TaskState } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../dist-examples/generated-samples/v1.0.1/a2a_a2a.js";
import { fmtOps, fmtRatio, isMain, median, nowMs } from "./stats.js";

const ROUNDS = 5;
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

const oursContext = () => ({
  signal: new AbortController().signal,
  headers: new Headers(),
  protocolVersion: "1.0",
  extensions: [],
  binding: "JSONRPC",
  tenant: undefined,
});

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

/** Runs `one` for about `ms` milliseconds, `batch` sends at a time; returns sends per second. */
async function rate(one, ms) {
  let n = 0;
  const start = nowMs();
  while (nowMs() - start < ms) {
    await one(n);
    n++;
  }
  return (n * 1000) / (nowMs() - start);
}

/** Checks both sides stream the same number of events, once, before timing. */
async function checkWorkload(ours, theirs) {
  const a = await oursStream(ours, -1);
  const b = await a2aJsStream(theirs, -1);
  // task, working, 10 artifacts, completed
  if (a !== ARTIFACTS + 3 || b !== ARTIFACTS + 3) {
    throw new Error(`the streams differ from the workload: ours ${a} events, a2a-js ${b}, expected ${ARTIFACTS + 3}`);
  }
}

export async function benchTaskStreaming() {
  const ours = oursHandler();
  const theirs = a2aJsHandler();
  await checkWorkload(ours, theirs);
  const o = [];
  const t = [];
  for (let r = 0; r < ROUNDS; r++) {
    o.push(await rate((i) => oursStream(ours, i), ROUND_MS));
    t.push(await rate((i) => a2aJsStream(theirs, i), ROUND_MS));
  }
  const result = { ours: median(o), a2aJs: median(t) };
  return { ...result, ratio: result.ours / result.a2aJs };
}

if (isMain(import.meta.url) && process.argv.includes("--memory")) {
  const m = await benchMemoryFlat();
  const heap = m.heapMb.map((x) => `${x.toFixed(0)} MB`).join(", ");
  console.log(`[task-runtime] ${m.tasks} sends, memory store bounded at ${m.bound} tasks: heap ${heap}`);
} else if (isMain(import.meta.url)) {
  const s = await benchTaskStreaming();
  console.log(
    `[task-runtime] send + ${ARTIFACTS} artifact events, streamed: ours ${fmtOps(s.ours)}, ` +
      `a2a-js DefaultRequestHandler ${fmtOps(s.a2aJs)}, ${fmtRatio(s.ratio)} (target >= ${TARGET_RATIO})`,
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
