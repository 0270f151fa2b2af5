// Figure 3: route matching throughput of our runtime matcher
// (dist/runtime/path-matcher.js) against find-my-way, on the same v1.0.1 route
// set (routes + aliases from generated-samples/v1.0.1/a2a_routes.json) and the
// same list of request paths (one or more per route, tenant variants
// included). Both routers are first checked to resolve every path to the same
// route. Each round runs a fixed iteration count, chosen once from a short
// calibration; rounds are interleaved and the median op/s is reported.
// Prints only; asserts no timing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import FindMyWay from "find-my-way";
import { compilePathMatcher, expandPath } from "../packages/runtime/dist/http/path-matcher.js";
import { repoRoot } from "./buf-request.js";
import { toFindMyWayPath } from "./fmw-path.js";
import { fmtOps, fmtRatio, isMain, median, nowMs } from "./stats.js";

const ROUNDS = 5;
/** Target duration of one round of one router; turned into an iteration count once. */
const ROUND_MS = 300;

/** Realistic values for the variables, varied per sample so no single path dominates. */
const VALUES = [
  { tenant: "acme", task_id: "abc123", id: "cfg1" },
  { tenant: "globex-eu", task_id: "5f0c2b7e-9a41-4d7a-8c3e-1b2d3e4f5a6b", id: "t1" },
  { tenant: "initech", task_id: "task-42", id: "webhook-primary" },
];

function loadRoutes() {
  const table = JSON.parse(readFileSync(join(repoRoot, "generated-samples", "v1.0.1", "a2a_routes.json"), "utf8"));
  return [...table.routes, ...(table.aliases ?? [])];
}

function samplePaths(routes) {
  const samples = [];
  for (const values of VALUES) {
    for (const route of routes) samples.push({ method: route.method, path: expandPath(route, values), route });
  }
  return samples;
}

function buildFindMyWay(routes, warn) {
  const router = FindMyWay({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false });
  for (const route of routes) {
    const path = toFindMyWayPath(route);
    try {
      router.on(route.method, path, () => route, route);
    } catch (e) {
      warn(`find-my-way rejects ${route.method} ${path}: ${e.message}`);
    }
  }
  return router;
}

// Two separate loops so each call site stays monomorphic.
function loopOurs(matcher, methods, paths, iterations) {
  let sink = 0;
  const n = paths.length;
  for (let i = 0, j = 0; i < iterations; i++) {
    const r = matcher.match(methods[j], paths[j]);
    sink += r.status;
    if (++j === n) j = 0;
  }
  return sink;
}

function loopFmw(router, methods, paths, iterations) {
  let sink = 0;
  const n = paths.length;
  for (let i = 0, j = 0; i < iterations; i++) {
    const r = router.find(methods[j], paths[j]);
    sink += r === null ? 404 : 200;
    if (++j === n) j = 0;
  }
  return sink;
}

function opsPerSecond(loop, target, methods, paths, iterations) {
  const t = nowMs();
  const sink = loop(target, methods, paths, iterations);
  const ms = nowMs() - t;
  if (sink !== 200 * iterations) throw new Error(`a sample path did not match during the run (${loop.name})`);
  return (iterations / ms) * 1000;
}

export async function benchRouteMatching({ log = console.log, warn = (m) => console.warn(`[3] WARNING: ${m}`) } = {}) {
  const routes = loadRoutes();
  const ours = compilePathMatcher(routes);
  const fmw = buildFindMyWay(routes, warn);
  const all = samplePaths(routes);

  // Both routers must resolve each sample to the same route; drop any find-my-way cannot.
  const samples = [];
  for (const s of all) {
    const a = ours.match(s.method, s.path);
    if (a.status !== 200 || a.route !== s.route) {
      throw new Error(
        `our matcher resolves ${s.method} ${s.path} to ${a.status === 200 ? a.route.template : a.status}, expected ${s.route.template}`,
      );
    }
    const b = fmw.find(s.method, s.path);
    if (b === null) warn(`find-my-way has no handler for ${s.method} ${s.path}; sample left out`);
    else if (b.store !== s.route)
      warn(
        `find-my-way resolves ${s.method} ${s.path} to ${b.store.method} ${b.store.template}, expected ${s.route.template}; sample left out`,
      );
    else samples.push(s);
  }
  const methods = samples.map((s) => s.method);
  const paths = samples.map((s) => s.path);
  log(
    `[3] ${routes.length} routes, ${samples.length} sample paths (of ${all.length}), e.g. ${paths.slice(0, 4).join(" ")}`,
  );

  // Calibrate once: warm both up, then fix one iteration count for every round.
  const calib = 20 * samples.length * 100;
  const warmOurs = opsPerSecond(loopOurs, ours, methods, paths, calib);
  const warmFmw = opsPerSecond(loopFmw, fmw, methods, paths, calib);
  const iterations = Math.max(
    samples.length,
    Math.round((Math.max(warmOurs, warmFmw) * ROUND_MS) / 1000 / samples.length) * samples.length,
  );

  const oursOps = [];
  const fmwOps = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      oursOps.push(opsPerSecond(loopOurs, ours, methods, paths, iterations));
      fmwOps.push(opsPerSecond(loopFmw, fmw, methods, paths, iterations));
    } else {
      fmwOps.push(opsPerSecond(loopFmw, fmw, methods, paths, iterations));
      oursOps.push(opsPerSecond(loopOurs, ours, methods, paths, iterations));
    }
  }
  const result = { ours: median(oursOps), fmw: median(fmwOps), iterations, rounds: ROUNDS };
  result.ratio = result.ours / result.fmw;
  log(
    `[3] ${iterations} matches per round, median of ${ROUNDS}: ours ${fmtOps(result.ours)} ` +
      `(best ${fmtOps(Math.max(...oursOps))}), find-my-way ${fmtOps(result.fmw)} (best ${fmtOps(Math.max(...fmwOps))}), ${fmtRatio(result.ratio)}`,
  );
  return result;
}

if (isMain(import.meta.url)) await benchRouteMatching();
