// Cross-version conversion throughput: our generated direct JSON-RPC
// conversions (dist-examples/generated-samples/a2a_compat.js) against the
// @a2a-js/sdk 1.3.0 `compat/v0_3` translators, on the same inputs, in the same run:
//   (a) a typical v0.3 `message/send` request, a2a.json MessageSendParams
//       (already parsed) → a v1.0 SendMessageRequest in memory:
//         ours   fromOlderJson(SendMessageRequestSchema, …)       (a protobuf-es lf.a2a.v1 message)
//         a2a-js toCoreSendMessageRequest                        (a ts-proto shaped v1.0 object)
//   (b) a v1.0 Task with 10 artifacts, as each side holds it in memory, → the
//       v0.3 a2a.json Task object:
//         ours   toOlderJson
//         a2a-js toCompatTask
// Both of ours report what they lose (here: the media type of each text part).
// Target for these two, the JSON-RPC version-bridge path: >= 3x.
// Two more rows time the generated message conversions alone (a2aCompat.convert:
// the v0.3 SendMessageRequest message → v1.0, the v1.0 Task → the v0.3 Task
// message), which the REST and gRPC bridges run, against the same a2a-js
// translators (target >= 2x). The last two time our path through the v0.3
// proto messages from JSON (dialect codec, fromJson/toJson, a2aCompat.convert);
// they print only.
// The inputs are those of test/compat-vs-a2a-js.test.ts (the message/send
// params with one push-notification scheme instead of two: with two, a2a-js
// writes a console.warn per call, which would be measured instead).
//
// The a2a-js translators are module-private functions of its bundle
// dist/compat/v0_3/server/index.js (its public entry point,
// LegacyJsonRpcTransportHandler, wraps them in an async JSON-RPC dispatcher).
// To time the translators themselves, that bundle is loaded unchanged with one
// `export { … }` line appended (from a data: URL, its `jose` import pointed at
// the installed package); once, before timing, their output is checked to be
// exactly what LegacyJsonRpcTransportHandler produces for the same input, and
// ours is checked to carry the same content.
//
// Method as in route-matching.js: each round runs a fixed iteration count,
// chosen once from a short calibration (one per implementation, about 300 ms
// a round each, as their speeds differ by an order of magnitude); rounds are
// interleaved and the median op/s is reported. Prints only; asserts no timing.
//
// `node bench/conversion.js` prints the two rows. `node bench/conversion.js
// --profile` instead prints the time of each stage of our two pipelines, then
// runs each of our four conversions (both JSON-RPC rows, both message rows)
// under `node --cpu-prof` (a child process) and prints the top self-time
// functions, those of packages/runtime/dist/compat/*.js, protojson-values.js
// and the generated a2a_jsonrpc_codec.js, and self time by file.
// Needs `npm run build` and `npm run build:examples`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create, fromJson, toJson } from "@bufbuild/protobuf";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { a2aCompat } from "../dist-examples/generated-samples/a2a_compat.js";
import { fromOlderJson, toOlderJson } from "../dist-examples/generated-samples/a2a_compat.js";
import { A2AServiceV0_3 } from "../dist-examples/generated-samples/v0.3.0/a2a_a2a.js";
import * as v10 from "../dist-examples/generated-samples/v1.0.1/a2a_pb.js";
import * as v03 from "../dist-examples/generated-samples/v0.3.0/a2a_pb.js";
import { repoRoot } from "./buf-request.js";
import { fmtOps, fmtRatio, isMain, median, nowMs } from "./stats.js";

const ROUNDS = 5;
/** Target duration of one round of one implementation; turned into an iteration count once. */
const ROUND_MS = 300;
const CALIBRATION_MS = 200;
/** Targets, ours over a2a-js: 3x on the JSON-RPC path (a2a.json ↔ v1.0), 2x for the message conversions alone. */
const TARGET_RATIO = { json: 3, messages: 2 };

const dialect = A2AServiceV0_3.jsonrpcCodec;
export { sendParams03, task10Json } from "./conversion-inputs.js";
import { sendParams03, task10Json } from "./conversion-inputs.js";
import { fromA2aJsShape, toA2aJsShape } from "./a2a-js-shape.js";

// ---- inputs: bench/conversion-inputs.js ----

// ---- the two implementations ----

/** The a2a-js translators, from its own bundle plus one export line (see the header). */
async function loadA2aJsTranslators() {
  const bundleUrl = import.meta.resolve("@a2a-js/sdk/compat/v0_3/server");
  const source = readFileSync(fileURLToPath(bundleUrl), "utf8");
  const joseImport = 'import * as jose from "jose";';
  if (
    !source.includes(joseImport) ||
    !/\nfunction toCoreSendMessageRequest\(/.test(source) ||
    !/\nfunction toCompatTask\(/.test(source)
  ) {
    throw new Error(
      `${bundleUrl}: the translators are not where @a2a-js/sdk 1.3.0 has them; update bench/conversion.js`,
    );
  }
  const patched =
    source.replace(joseImport, `import * as jose from ${JSON.stringify(import.meta.resolve("jose"))};`) +
    "\nexport { toCoreSendMessageRequest as benchToCoreSendMessageRequest, toCompatTask as benchToCompatTask };\n";
  const mod = await import(`data:text/javascript;base64,${Buffer.from(patched).toString("base64")}`);
  return { toCoreSendMessageRequest: mod.benchToCoreSendMessageRequest, toCompatTask: mod.benchToCompatTask };
}

const oursSend = (params) => fromOlderJson(v10.SendMessageRequestSchema, params).message;
const oursTask = (task) => toOlderJson(task).json;
/** The same conversions through the v0.3 proto messages. */
const protoSend = (params) =>
  a2aCompat.convert(
    fromJson(v03.SendMessageRequestSchema, dialect.decode(v03.SendMessageRequestSchema, params), {
      ignoreUnknownFields: true,
    }),
    "toNewer",
  ).message;
const protoTask = (task) =>
  dialect.encode(v03.TaskSchema, toJson(v03.TaskSchema, a2aCompat.convert(task, "toOlder").message));
/** The message conversions alone (generated, a2aCompat), as the REST and gRPC bridges run them. */
const messageSend = (request03) => a2aCompat.convert(request03, "toNewer").message;
const messageTask = (task) => a2aCompat.convert(task, "toOlder").message;

/** JSON with object keys sorted, to compare values regardless of key order. */
const canonical = (v) =>
  JSON.stringify(v, (_, x) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

/**
 * Checks, once, that the extracted a2a-js functions are exactly what its public handler runs, and that both
 * sides carry the same content apart from the differences test/compat-vs-a2a-js.test.ts asserts (on these
 * inputs: file names, which only a2a-js keeps).
 */
async function checkOutputs(js, inputs) {
  const same = (a, b, what) => {
    if (canonical(a) !== canonical(b)) throw new Error(`${what} differ:\n${canonical(a)}\n${canonical(b)}`);
  };
  let received;
  const handler = new LegacyJsonRpcTransportHandler({
    sendMessage: async (req) => {
      received = req;
      return inputs.taskJs;
    },
  });
  const answer = await handler.handle(inputs.envelope, {});
  same(
    js.toCoreSendMessageRequest(inputs.envelope),
    received,
    "a2a-js toCoreSendMessageRequest and LegacyJsonRpcTransportHandler's v1.0 request",
  );
  same(
    js.toCompatTask(inputs.taskJs),
    answer.result,
    "a2a-js toCompatTask and LegacyJsonRpcTransportHandler's v0.3 result",
  );

  const theirs10 = toJson(
    v10.SendMessageRequestSchema,
    create(v10.SendMessageRequestSchema, fromA2aJsShape(v10.SendMessageRequestSchema, received)),
  );
  same(toJson(v10.SendMessageRequestSchema, oursSend(inputs.params)), theirs10, "v1.0 requests (ours, a2a-js)");
  const theirs03 = js.toCompatTask(inputs.taskJs);
  same(oursTask(inputs.taskPb), theirs03, "v0.3 tasks (ours, a2a-js)");
  // The proto path loses the file names (the v0.3 proto has none); otherwise the same.
  for (const p of theirs10.message.parts) delete p.filename;
  same(
    toJson(v10.SendMessageRequestSchema, protoSend(inputs.params)),
    theirs10,
    "v1.0 requests (ours through the proto, a2a-js without file names)",
  );
  for (const a of theirs03.artifacts) delete a.parts[1].file.name;
  same(protoTask(inputs.taskPb), theirs03, "v0.3 tasks (ours through the proto, a2a-js without file names)");
  // The message conversions alone give what the proto path gives.
  same(
    toJson(v10.SendMessageRequestSchema, messageSend(inputs.request03)),
    theirs10,
    "v1.0 requests (ours from the v0.3 message, a2a-js without file names)",
  );
  same(
    dialect.encode(v03.TaskSchema, toJson(v03.TaskSchema, messageTask(inputs.taskPb))),
    theirs03,
    "v0.3 tasks (ours as the v0.3 message, a2a-js without file names)",
  );
}

// Separate loops so each call site stays monomorphic.
function loopOursSend(input, n) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += oursSend(input).message.parts.length;
  return sink;
}
function loopA2aJsSend(input, n, js) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += js.toCoreSendMessageRequest(input).message.parts.length;
  return sink;
}
function loopOursTask(input, n) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += oursTask(input).artifacts.length;
  return sink;
}
function loopProtoSend(input, n) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += protoSend(input).message.parts.length;
  return sink;
}
function loopProtoTask(input, n) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += protoTask(input).artifacts.length;
  return sink;
}
function loopMessageSend(input, n) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += messageSend(input).message.parts.length;
  return sink;
}
function loopMessageTask(input, n) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += messageTask(input).artifacts.length;
  return sink;
}
function loopA2aJsTask(input, n, js) {
  let sink = 0;
  for (let i = 0; i < n; i++) sink += js.toCompatTask(input).artifacts.length;
  return sink;
}

function opsPerSecond(loop, input, n, js, expectedPerOp) {
  const t = nowMs();
  const sink = loop(input, n, js);
  const ms = nowMs() - t;
  if (sink !== expectedPerOp * n) throw new Error(`${loop.name}: unexpected output during the run`);
  return (n / ms) * 1000;
}

/** The iteration count that takes about ROUND_MS, from a warmed-up probe of about CALIBRATION_MS. */
function calibrate(run) {
  const probe = () => {
    for (let n = 16; ; n *= 2) {
      const t = nowMs();
      run(n);
      const took = nowMs() - t;
      if (took >= CALIBRATION_MS / 4) return n / took;
    }
  };
  probe(); // warm-up
  const perMs = Math.max(probe(), probe());
  return Math.max(100, Math.round(perMs * ROUND_MS));
}

/**
 * Each implementation gets its own fixed iteration count (about ROUND_MS per round, chosen once), since
 * their speeds differ by an order of magnitude; rounds alternate which side runs first.
 */
function measure(name, ours, a2aJs, log) {
  const oursN = calibrate(ours);
  const a2aJsN = calibrate(a2aJs);
  const oursOps = [];
  const a2aJsOps = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      oursOps.push(ours(oursN));
      a2aJsOps.push(a2aJs(a2aJsN));
    } else {
      a2aJsOps.push(a2aJs(a2aJsN));
      oursOps.push(ours(oursN));
    }
  }
  const r = {
    ours: median(oursOps),
    a2aJs: median(a2aJsOps),
    iterations: { ours: oursN, a2aJs: a2aJsN },
    rounds: ROUNDS,
  };
  r.ratio = r.ours / r.a2aJs;
  log(
    `[conversion] ${name}: median of ${ROUNDS} rounds (${oursN} / ${a2aJsN} conversions each): ours ${fmtOps(r.ours)} (best ${fmtOps(Math.max(...oursOps))}), ` +
      `a2a-js ${fmtOps(r.a2aJs)} (best ${fmtOps(Math.max(...a2aJsOps))}), ${fmtRatio(r.ratio)}`,
  );
  return r;
}

function prepareInputs() {
  const params = sendParams03();
  const taskPb = fromJson(v10.TaskSchema, task10Json());
  return {
    params,
    request03: fromJson(v03.SendMessageRequestSchema, dialect.decode(v03.SendMessageRequestSchema, params), {
      ignoreUnknownFields: true,
    }),
    envelope: { jsonrpc: "2.0", id: 1, method: "message/send", params },
    taskPb,
    taskJs: toA2aJsShape(v10.TaskSchema, taskPb),
  };
}

/**
 * The same, in a fresh process: conversions allocate many small objects, so the heap that earlier
 * benchmarks leave in this process (the 2,000-RPC generation runs) would weigh on them.
 */
export function benchConversionIsolated({ log = console.log } = {}) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--json"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const line of r.stderr.split("\n")) if (line) log(line);
  if (r.status !== 0) throw new Error(`bench/conversion.js --json exited with ${r.status}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

export async function benchConversion({ log = console.log } = {}) {
  const js = await loadA2aJsTranslators();
  const inputs = prepareInputs();
  await checkOutputs(js, inputs);
  /** One row: our loop against a2a-js's on the same content, each with its own input form. */
  const row = (name, ours, theirs, [oursInput, theirsInput, perOp]) =>
    measure(
      name,
      (n) => opsPerSecond(ours, oursInput, n, undefined, perOp),
      (n) => opsPerSecond(theirs, theirsInput, n, js, perOp),
      log,
    );
  const sendInputs = [inputs.params, inputs.envelope, 4];
  const taskInputs = [inputs.taskPb, inputs.taskJs, 10];
  const send = row("message/send, v0.3 JSON → v1.0 request", loopOursSend, loopA2aJsSend, sendInputs);
  const task = row("v1.0 Task (10 artifacts) → v0.3 JSON", loopOursTask, loopA2aJsTask, taskInputs);
  // For reference (prints only): the path through the v0.3 proto messages, as REST and gRPC bridges convert.
  const protoSendRow = row("message/send through the v0.3 proto", loopProtoSend, loopA2aJsSend, sendInputs);
  const protoTaskRow = row("Task (10 artifacts) through the v0.3 proto", loopProtoTask, loopA2aJsTask, taskInputs);
  // The REST and gRPC bridge path: v0.3 messages ↔ v1.0 messages, the generated conversions alone.
  const messageSendRow = row("message/send, v0.3 message → v1.0 message", loopMessageSend, loopA2aJsSend, [
    inputs.request03,
    inputs.envelope,
    4,
  ]);
  const messageTaskRow = row("v1.0 Task (10 artifacts) → v0.3 message", loopMessageTask, loopA2aJsTask, taskInputs);
  return {
    send,
    task,
    messages: { send: messageSendRow, task: messageTaskRow },
    viaProto: { send: protoSendRow, task: protoTaskRow },
    targets: TARGET_RATIO,
    rounds: ROUNDS,
  };
}

// ---- --profile ----

const PROFILE_MS = 2000;
const CONVERSIONS = {
  send: { label: "(a) message/send, v0.3 JSON → v1.0 request", loop: loopOursSend, input: (i) => i.params },
  task: { label: "(b) v1.0 Task (10 artifacts) → v0.3 JSON", loop: loopOursTask, input: (i) => i.taskPb },
  messageSend: {
    label: "(c) message/send, v0.3 message → v1.0 message",
    loop: loopMessageSend,
    input: (i) => i.request03,
  },
  messageTask: { label: "(d) v1.0 Task (10 artifacts) → v0.3 message", loop: loopMessageTask, input: (i) => i.taskPb },
};

/** The child of --profile: runs one of our conversions for PROFILE_MS, under --cpu-prof. */
function profileChild(which) {
  const c = CONVERSIONS[which];
  const input = c.input(prepareInputs());
  const until = nowMs() + PROFILE_MS;
  while (nowMs() < until) c.loop(input, 100);
}

const fileOf = (callFrame) =>
  callFrame.url ? callFrame.url.replace(/^file:\/\//, "").replace(repoRoot + "/", "") : "";

/** Self time per function and per file of a V8 .cpuprofile, as shares of the non-idle samples. */
function analyzeProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const files = new Map();
  let busy = 0;
  for (const id of profile.samples) {
    const f = byId.get(id).callFrame;
    if (f.functionName === "(idle)" || f.functionName === "(program)") continue;
    busy++;
    const file = fileOf(f);
    const key = `${f.functionName || "(anonymous)"}  ${file}${file ? `:${f.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + 1);
    const group = file || (f.functionName === "(garbage collector)" ? "(garbage collector)" : "(V8 / native)");
    files.set(group, (files.get(group) ?? 0) + 1);
  }
  const sorted = (m) =>
    [...m].map(([key, n]) => ({ key, share: n / Math.max(1, busy) })).sort((a, b) => b.share - a.share);
  return { self: sorted(self), files: sorted(files), busy };
}

/** µs per call of each stage of our pipelines (cumulative prefixes), to show where the time goes. */
function stageTimes(log) {
  const i = prepareInputs();
  const time = (fn) => {
    const n = calibrate((k) => {
      for (let j = 0; j < k; j++) fn();
    });
    const t = nowMs();
    for (let j = 0; j < n; j++) fn();
    return ((nowMs() - t) * 1000) / n;
  };
  const decoded = dialect.decode(v03.SendMessageRequestSchema, i.params);
  const parsed = fromJson(v03.SendMessageRequestSchema, decoded, { ignoreUnknownFields: true });
  const a = [
    ["dialect.decode", time(() => dialect.decode(v03.SendMessageRequestSchema, i.params))],
    [
      "fromJson(a2a.v1.SendMessageRequest)",
      time(() => fromJson(v03.SendMessageRequestSchema, decoded, { ignoreUnknownFields: true })),
    ],
    ["a2aCompat.convert toNewer", time(() => a2aCompat.convert(parsed, "toNewer"))],
  ];
  const older = a2aCompat.convert(i.taskPb, "toOlder").message;
  const json03 = toJson(v03.TaskSchema, older);
  const b = [
    ["a2aCompat.convert toOlder", time(() => a2aCompat.convert(i.taskPb, "toOlder"))],
    ["toJson(a2a.v1.Task)", time(() => toJson(v03.TaskSchema, older))],
    ["dialect.encode", time(() => dialect.encode(v03.TaskSchema, json03))],
  ];
  for (const [label, stages] of [
    [CONVERSIONS.send.label, a],
    [CONVERSIONS.task.label, b],
  ]) {
    const total = stages.reduce((x, [, us]) => x + us, 0);
    log(
      `${label}, through the v0.3 proto: ${total.toFixed(2)} µs per call = ` +
        stages.map(([s, us]) => `${s} ${us.toFixed(2)} µs (${((us / total) * 100).toFixed(0)}%)`).join(" + "),
    );
  }
}

function profileOurs({ log }) {
  const pct = (x) => `${(x * 100).toFixed(1).padStart(5)}%`;
  stageTimes(log);
  for (const [which, c] of Object.entries(CONVERSIONS)) {
    const dir = mkdtempSync(join(tmpdir(), "a2a-conversion-prof-"));
    try {
      const r = spawnSync(
        process.execPath,
        [
          "--cpu-prof",
          "--cpu-prof-interval=100",
          `--cpu-prof-dir=${dir}`,
          fileURLToPath(import.meta.url),
          "--profile-child",
          which,
        ],
        { stdio: "inherit" },
      );
      if (r.status !== 0) throw new Error(`profile child exited with ${r.status}`);
      const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
      const a = analyzeProfile(JSON.parse(readFileSync(join(dir, file), "utf8")));
      log(
        `\n${c.label}: ours for ${PROFILE_MS} ms under node --cpu-prof (100 µs interval, ${a.busy} samples); self time as a share of the samples`,
      );
      log("top self time:");
      for (const e of a.self.slice(0, 20)) log(`  ${pct(e.share)}  ${e.key}`);
      log("packages/runtime/dist/compat/*.js, protojson-values.js and a2a_jsonrpc_codec.js:");
      for (const e of a.self
        .filter((e) => /packages\/runtime\/dist\/(compat\/|protojson-values)|a2a_jsonrpc_codec/.test(e.key))
        .slice(0, 15))
        log(`  ${pct(e.share)}  ${e.key}`);
      log("self time by file:");
      for (const e of a.files.slice(0, 12)) log(`  ${pct(e.share)}  ${e.key}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (isMain(import.meta.url)) {
  const child = process.argv.indexOf("--profile-child");
  if (child >= 0) profileChild(process.argv[child + 1]);
  else if (process.argv.includes("--profile")) profileOurs({ log: console.log });
  else if (process.argv.includes("--json")) {
    // For bench/run.js: the log lines on stderr, the result as one JSON line on stdout.
    const r = await benchConversion({ log: (line) => console.error(line) });
    console.log(JSON.stringify(r));
  } else {
    console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
    const r = await benchConversion();
    const rows = [
      ["conversion", "ours", "a2a-js 1.3.0", "ratio", "target"],
      [
        "message/send: v0.3 JSON → v1.0 request",
        fmtOps(r.send.ours),
        fmtOps(r.send.a2aJs),
        fmtRatio(r.send.ratio),
        `>= ${r.targets.json.toFixed(1)}`,
      ],
      [
        "v1.0 Task, 10 artifacts → v0.3 JSON",
        fmtOps(r.task.ours),
        fmtOps(r.task.a2aJs),
        fmtRatio(r.task.ratio),
        `>= ${r.targets.json.toFixed(1)}`,
      ],
      [
        "message/send: v0.3 message → v1.0 message",
        fmtOps(r.messages.send.ours),
        fmtOps(r.messages.send.a2aJs),
        fmtRatio(r.messages.send.ratio),
        `>= ${r.targets.messages.toFixed(1)}`,
      ],
      [
        "v1.0 Task, 10 artifacts → v0.3 message",
        fmtOps(r.messages.task.ours),
        fmtOps(r.messages.task.a2aJs),
        fmtRatio(r.messages.task.ratio),
        `>= ${r.targets.messages.toFixed(1)}`,
      ],
      [
        "message/send through the v0.3 proto",
        fmtOps(r.viaProto.send.ours),
        fmtOps(r.viaProto.send.a2aJs),
        fmtRatio(r.viaProto.send.ratio),
        "(reference)",
      ],
      [
        "Task through the v0.3 proto",
        fmtOps(r.viaProto.task.ours),
        fmtOps(r.viaProto.task.a2aJs),
        fmtRatio(r.viaProto.task.ratio),
        "(reference)",
      ],
    ];
    const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
    console.log("");
    for (const row of rows)
      console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("   "));
  }
}
