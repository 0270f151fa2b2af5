// Entry point of `npm run bench` (after `npm run build` and
// `npm run build:examples`): runs the benchmarks below once each and prints a
// summary table. Each figure is a ratio against an anchor measured in the
// same run; targets are printed for reading only, nothing is asserted.
//   1. plugin-vs-es.js       protoc-gen-a2a vs protoc-gen-es, same request, as processes
//   2. synthetic-scaling.js  per-RPC generation cost at 2,000 vs 200 RPCs
//   3. route-matching.js     runtime path matcher vs find-my-way, v1.0.1 routes
//   4. conversion.js         v0.3 ↔ v1.0 conversions vs the @a2a-js/sdk 1.3.0 translators,
//                            in a child process
//   5. server-throughput.js  req/s of our generated JSON-RPC and REST servers vs
//                            @a2a-js/sdk 1.3.0 and a bare node:http server; servers
//                            and the autocannon load generator are separate
//                            processes (pinned to different CPUs when possible)
//   5b. runtime-throughput.js req/s of the echo agent's HTTP side on Bun and on Deno vs on Node
//   6. install-size.js       production install size of the runtime vs @a2a-js/sdk 1.3.0
//   7. task-runtime.js       a streamed send with ten artifact events through createTaskHandler vs
//                            @a2a-js/sdk 1.3.0's DefaultRequestHandler, called directly, each side in
//                            a child process of its own (rounds in turns); sends/s and CPU per send; and
//                            the heap over 200k sends through the memory store bounded at 10k tasks
//   8. task-postgres.js      send + get through createTaskHandler on the PostgreSQL store (a private
//                            cluster from Debian's or npm's binaries, removed afterwards; "skipped" without
//                            them): throughput and p99 at 10 and 50 clients on one instance, as a ratio
//                            to pgbench's TPC-B-like script on the same cluster, and on two instances
import { benchConversionIsolated } from "./conversion.js";
import { benchInstallSize } from "./install-size.js";
import { benchPluginVsEs } from "./plugin-vs-es.js";
import { benchRouteMatching } from "./route-matching.js";
import { benchServerThroughput } from "./server-throughput.js";
import { benchRuntimeThroughput } from "./runtime-throughput.js";
import { benchSyntheticScaling } from "./synthetic-scaling.js";
import { benchTaskPostgres, formatPostgres } from "./task-postgres.js";
import { benchMemoryFlatIsolated, benchTaskStreaming, formatMemory } from "./task-runtime.js";
import { fmtMs, fmtOps, fmtRatio, fmtRps, nowMs } from "./stats.js";

const start = nowMs();
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);

const plugin = await benchPluginVsEs();
// Route matching runs before the heavy synthetic runs so their heap does not weigh on it.
const matching = await benchRouteMatching();
const scaling = await benchSyntheticScaling();
// Conversion runs in its own process, both sides alike, away from this process's heap.
const conversion = benchConversionIsolated();
// Servers and load generator are child processes; this process only waits meanwhile.
const serversStart = nowMs();
const servers = await benchServerThroughput();
const serversS = (nowMs() - serversStart) / 1000;
const runtimes = await benchRuntimeThroughput();
const size = benchInstallSize();
const tasks = await benchTaskStreaming();
const memory = benchMemoryFlatIsolated();
console.log(formatMemory(memory));
const postgres = await benchTaskPostgres();
console.log(formatPostgres(postgres));
const mb = (b) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const rpsCell = (key) => (servers.rps[key] === null ? "skipped" : fmtRps(servers.rps[key]));
const ratioCell = (r) => (r === null ? "n/a" : fmtRatio(r));

/** Two table rows, message/send and Task, of one conversion path against the a2a-js translators. */
const conversionRows = (path, rows, target) => [
  [
    `${path} conversion: message/send`,
    fmtOps(rows.send.ours),
    fmtOps(rows.send.a2aJs),
    fmtRatio(rows.send.ratio),
    target,
  ],
  [
    `${path} conversion: Task (10 artifacts)`,
    fmtOps(rows.task.ours),
    fmtOps(rows.task.a2aJs),
    fmtRatio(rows.task.ratio),
    target,
  ],
];

/** The PostgreSQL store's rows: ops/s with p99 and busy cores in the label, or one "skipped" row. */
function postgresRows(r) {
  if (r.skipped !== undefined) return [["PostgreSQL store: send + get", "skipped", "-", "-", "(see above)"]];
  // How much of the machine the run kept busy (/proc/stat): near the core count, the machine is the limit.
  const busy = (x) => (x.busyCores === null ? "" : `, ${x.busyCores.toFixed(1)} cores busy`);
  const row = (what, x, anchor, target) => [
    `PostgreSQL store: send + get, ${what}, p99 ${x.p99Ms.toFixed(1)} ms${busy(x)}`,
    fmtOps(x.ops),
    anchor === undefined ? "skipped" : fmtOps(anchor),
    anchor === undefined ? "-" : fmtRatio(x.ops / anchor),
    target,
  ];
  const pgbench = (clients) => r.anchor[clients]?.tps;
  const [few, many] = Object.keys(r.one).map(Number);
  return [
    row(`${few} clients`, r.one[few], pgbench(few), ">= 0.6"),
    row(`${many} clients`, r.one[many], pgbench(many), ">= 0.6"),
    row(`2 instances, ${few} clients`, r.two, r.one[few].ops, ">= 1.0"),
    row(`calls together, ${few} clients`, r.together[few], pgbench(few), ">= 0.6"),
    row(`calls together, ${many} clients`, r.together[many], pgbench(many), ">= 0.6"),
    row(`calls together, 2 instances, ${few} clients`, r.twoTogether, r.together[few].ops, ">= 1.0"),
  ];
}

const rows = [
  ["benchmark", "ours", "anchor", "ratio", "target"],
  ["plugin vs protoc-gen-es (same request)", fmtMs(plugin.ours), fmtMs(plugin.es), fmtRatio(plugin.ratio), "<= 0.5"],
  [
    "plugin without its code cache vs protoc-gen-es",
    fmtMs(plugin.oursNoCache),
    fmtMs(plugin.es),
    fmtRatio(plugin.noCacheRatio),
    "(printed)",
  ],
  [
    `per-RPC cost ${scaling.large.n} vs ${scaling.small.n}`,
    fmtMs(scaling.large.perRpc),
    fmtMs(scaling.small.perRpc),
    fmtRatio(scaling.ratio),
    "<= 1.3",
  ],
  ["route matching vs find-my-way", fmtOps(matching.ours), fmtOps(matching.fmw), fmtRatio(matching.ratio), ">= 1.0"],
  [
    "server JSON-RPC: ours vs a2a-js 1.3.0",
    rpsCell("oursJsonrpc"),
    rpsCell("a2aJsJsonrpc"),
    ratioCell(servers.ratios.jsonrpcVsA2aJs),
    ">= 1.5",
  ],
  [
    "server REST: ours vs a2a-js 1.3.0",
    rpsCell("oursRest"),
    rpsCell("a2aJsRest"),
    ratioCell(servers.ratios.restVsA2aJs),
    ">= 1.5",
  ],
  [
    "server JSON-RPC: ours vs bare node:http",
    rpsCell("oursJsonrpc"),
    rpsCell("bare"),
    ratioCell(servers.ratios.jsonrpcVsBare),
    ">= 0.6",
  ],
  [
    "server REST: ours vs bare node:http",
    rpsCell("oursRest"),
    rpsCell("bare"),
    ratioCell(servers.ratios.restVsBare),
    ">= 0.6",
  ],
  [
    "server JSON-RPC: the protobuf-es floor (parse, fromJson, toJson only) vs bare",
    rpsCell("typedFloor"),
    rpsCell("bare"),
    ratioCell(servers.ratios.typedFloorVsBare),
    "(printed)",
  ],
  [
    "server JSON-RPC: ours vs the protobuf-es floor",
    rpsCell("oursJsonrpc"),
    rpsCell("typedFloor"),
    ratioCell(servers.ratios.jsonrpcVsTypedFloor),
    "(printed)",
  ],
  [
    "server JSON-RPC: with an API key vs without authentication",
    rpsCell("oursJsonrpcApiKey"),
    rpsCell("oursJsonrpc"),
    ratioCell(servers.ratios.apiKeyVsOpen),
    ">= 0.8",
  ],
  [
    "server JSON-RPC: with a JWT bearer check vs without authentication",
    rpsCell("oursJsonrpcJwt"),
    rpsCell("oursJsonrpc"),
    ratioCell(servers.ratios.jwtVsOpen),
    ">= 0.8",
  ],
  [
    "server JSON-RPC: tracing on no-op providers vs without",
    rpsCell("oursJsonrpcOtelNoop"),
    rpsCell("oursJsonrpc"),
    ratioCell(servers.ratios.otelNoopVsOpen),
    ">= 0.8",
  ],
  [
    "server JSON-RPC: tracing on the SDK (batch export) vs without",
    rpsCell("oursJsonrpcOtelSdk"),
    rpsCell("oursJsonrpc"),
    ratioCell(servers.ratios.otelSdkVsOpen),
    ">= 0.8",
  ],
  [
    "server JSON-RPC: tracing on the SDK, 1 in 10 traces sampled, vs without",
    rpsCell("oursJsonrpcOtelSampled"),
    rpsCell("oursJsonrpc"),
    ratioCell(servers.ratios.otelSampledVsOpen),
    "(printed)",
  ],
  [
    "server JSON-RPC: the SDK's floor (one span + one record per call, no A2A code) vs without",
    rpsCell("oursJsonrpcOtelFloor"),
    rpsCell("oursJsonrpc"),
    ratioCell(servers.ratios.otelFloorVsOpen),
    "(printed)",
  ],
  [
    "server JSON-RPC: tracing on the SDK vs the SDK's floor",
    rpsCell("oursJsonrpcOtelSdk"),
    rpsCell("oursJsonrpcOtelFloor"),
    ratioCell(servers.ratios.otelSdkVsFloor),
    "(printed)",
  ],
  ...["bun", "deno"].map((runtime) => [
    `echo agent HTTP side on ${runtime === "bun" ? "Bun" : "Deno"} vs Node (JSON-RPC send)`,
    runtimes.rps[runtime] === null ? "skipped" : fmtRps(runtimes.rps[runtime]),
    runtimes.rps.node === null ? "skipped" : fmtRps(runtimes.rps.node),
    ratioCell(runtime === "bun" ? runtimes.bunVsNode : runtimes.denoVsNode),
    "(printed)",
  ]),
  ...conversionRows("JSON-RPC", conversion, ">= 3.0"),
  ...conversionRows("REST/gRPC bridge", conversion.messages, ">= 2.0"),
  ...conversionRows("  v0.3 JSON via the v0.3 proto", conversion.viaProto, "(reference)"),
  [
    "production install: runtime vs a2a-js 1.3.0",
    mb(size.ours.bytes),
    mb(size.a2aJs.bytes),
    fmtRatio(size.ratio),
    "(printed)",
  ],
  [
    "task runtime: streamed send + 10 artifacts",
    fmtOps(tasks.ours),
    fmtOps(tasks.a2aJs),
    fmtRatio(tasks.ratio),
    ">= 3.0",
  ],
  [
    "  the same: CPU time per send",
    `${tasks.cpuUs.ours.toFixed(0)} µs`,
    `${tasks.cpuUs.a2aJs.toFixed(0)} µs`,
    fmtRatio(tasks.cpuRatio),
    "(reference)",
  ],
  [
    `  memory store: heap after ${memory.tasks / 1000}k sends vs after ${memory.tasks / 4000}k`,
    `${memory.heapMb.at(-1).toFixed(0)} MB`,
    `${memory.heapMb[0].toFixed(0)} MB`,
    fmtRatio(memory.heapMb.at(-1) / memory.heapMb[0]),
    "flat (printed)",
  ],
  ...postgresRows(postgres),
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
const line = (r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("   ");

console.log("");
for (const r of rows) console.log(line(r));
console.log("");
console.log(
  `anchors: protoc-gen-es process time; per-RPC cost at ${scaling.small.n} RPCs; find-my-way op/s; ` +
    `a2a-js 1.3.0 and bare node:http req/s (${servers.connections} connections, best of ${servers.rounds} rounds of ${servers.durationS} s after ${servers.warmupS} s warm-up, ` +
    `${servers.pinned ? "server and load generator pinned to separate CPUs" : "no CPU pinning"}; ${serversS.toFixed(1)} s). ` +
    `Plugin in-process run(): ${fmtMs(plugin.inProcess)}. Total bench time ${((nowMs() - start) / 1000).toFixed(1)} s.`,
);
