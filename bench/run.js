// Entry point of `npm run bench` (after `npm run build`): runs the three
// benchmarks once each and prints a summary table. Each figure is a ratio
// against an anchor measured in the same run; targets are printed for
// reading only, nothing is asserted.
//   1. plugin-vs-es.js       protoc-gen-a2a vs protoc-gen-es, same request, as processes
//   2. synthetic-scaling.js  per-RPC generation cost at 2,000 vs 200 RPCs
//   3. route-matching.js     runtime path matcher vs find-my-way, v1.0.1 routes
import { benchPluginVsEs } from "./plugin-vs-es.js";
import { benchRouteMatching } from "./route-matching.js";
import { benchSyntheticScaling } from "./synthetic-scaling.js";
import { fmtMs, fmtOps, fmtRatio, nowMs } from "./stats.js";

const start = nowMs();
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);

const plugin = await benchPluginVsEs();
// Route matching runs before the heavy synthetic runs so their heap does not weigh on it.
const matching = await benchRouteMatching();
const scaling = await benchSyntheticScaling();

const rows = [
  ["benchmark", "ours", "anchor", "ratio", "target"],
  ["plugin vs protoc-gen-es (same request)", fmtMs(plugin.ours), fmtMs(plugin.es), fmtRatio(plugin.ratio), "<= 1.0"],
  [
    `per-RPC cost ${scaling.large.n} vs ${scaling.small.n}`,
    fmtMs(scaling.large.perRpc),
    fmtMs(scaling.small.perRpc),
    fmtRatio(scaling.ratio),
    "<= 1.3",
  ],
  ["route matching vs find-my-way", fmtOps(matching.ours), fmtOps(matching.fmw), fmtRatio(matching.ratio), ">= 1.0"],
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
const line = (r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("   ");

console.log("");
for (const r of rows) console.log(line(r));
console.log("");
console.log(
  `anchors: protoc-gen-es process time; per-RPC cost at ${scaling.small.n} RPCs; find-my-way op/s. ` +
    `Plugin in-process run(): ${fmtMs(plugin.inProcess)}. Total bench time ${((nowMs() - start) / 1000).toFixed(1)} s.`,
);
