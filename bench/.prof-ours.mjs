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
import { A2AServiceV1_0 } from "/work/h3-task-speed/dist-examples/generated-samples/v1.0.1/a2a_a2a.js";
import { fmtOps, fmtRatio, isMain, median, nowMs } from "/work/h3-task-speed/bench/stats.js";

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
const h = oursHandler();
const t = nowMs(); let n = 0;
while (nowMs() - t < 6000) { await oursStream(h, n++); }
console.log("ours", (n * 1000 / (nowMs() - t)).toFixed(0), "op/s");
