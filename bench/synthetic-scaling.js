// Figure 2: how generation cost grows with API size. Writes the synthetic
// proto (synthetic-proto.js) at 200 and 2,000 HTTP-annotated RPCs into temp
// dirs beside a copy of proto/staged/google, builds each request with
// `buf build`, and times protocGenA2a.run(req) in-process (median of several
// interleaved runs). Reports the cost per RPC at each size and their ratio.
// The synthetic package gets an override file with its protocol version (a
// service that no override file covers gets no output). Prints only; asserts
// no timing.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRequest, repoRoot } from "./buf-request.js";
import { SYNTH_PACKAGE, writeSyntheticProto } from "./synthetic-proto.js";
import { fmtMs, fmtRatio, isMain, median, nowMs } from "./stats.js";

export const SIZES = [200, 2000];
/** Rounds are chosen once from the warm-up time to fit this budget (3 to 7). */
const BUDGET_MS = 25_000;
const MIN_ROUNDS = 3;
const MAX_ROUNDS = 7;

/** The override file that makes the synthetic service an A2A service, in dir; returns its path. */
function writeSynthOverrides(dir) {
  const file = join(dir, "synth-overrides.yaml");
  const source = 'source: { document: "bench/synthetic-scaling.js", section: "-" }';
  const entry = [
    "  - id: protocol-version",
    "    target: api.protocolVersion",
    '    value: { version: "1.0", release: "1.0.0" }',
    `    ${source}`,
    '    decision: "synthetic"',
  ];
  writeFileSync(file, ["format: 2", `package: ${SYNTH_PACKAGE}`, "entries:", ...entry, ""].join("\n"));
  return file;
}

function synthRequest(n, parameter) {
  const dir = mkdtempSync(join(tmpdir(), `a2a-bench-synth-${n}-`));
  try {
    cpSync(join(repoRoot, "proto", "staged", "google"), join(dir, "google"), { recursive: true });
    const name = "bench/synth/v1/synth.proto";
    mkdirSync(join(dir, "bench", "synth", "v1"), { recursive: true });
    writeSyntheticProto(join(dir, name), n);
    return buildRequest({ input: ".", paths: [], cwd: dir, isTarget: (f) => f === name, parameter });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchSyntheticScaling({ log = console.log } = {}) {
  const { protocGenA2a } = await import("../dist/plugin.js");
  const work = mkdtempSync(join(tmpdir(), "a2a-bench-synth-overrides-"));
  try {
    const parameter = `target=ts,overrides=${writeSynthOverrides(work)}`;
    return measure(
      protocGenA2a,
      SIZES.map((n) => ({ n, req: synthRequest(n, parameter), times: [] })),
      log,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function measure(protocGenA2a, reqs, log) {
  let warmMs = 0;
  for (const r of reqs) {
    const t = nowMs();
    const res = protocGenA2a.run(r.req); // warm-up, and a check that it generates
    warmMs += nowMs() - t;
    const routes = res.file.find((f) => f.name.endsWith("_routes.json"));
    if (!routes) throw new Error(`synthetic ${r.n}: no routes table generated`);
    const table = JSON.parse(routes.content);
    const count = (table.routes?.length ?? 0) + (table.aliases?.length ?? 0);
    log(`[2] synthetic ${SYNTH_PACKAGE} with ${r.n} RPCs: ${res.file.length} files, ${count} routes`);
  }
  const rounds = Math.max(MIN_ROUNDS, Math.min(MAX_ROUNDS, Math.floor(BUDGET_MS / warmMs)));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? reqs : [...reqs].reverse();
    for (const r of order) {
      const t = nowMs();
      protocGenA2a.run(r.req);
      r.times.push(nowMs() - t);
    }
  }

  const [small, large] = reqs.map((r) => {
    const ms = median(r.times);
    return { n: r.n, ms, perRpc: ms / r.n };
  });
  const result = { small, large, ratio: large.perRpc / small.perRpc, rounds };
  for (const s of [small, large]) {
    log(`[2] ${s.n} RPCs: run() median ${fmtMs(s.ms)} of ${rounds}, ${fmtMs(s.perRpc)} per RPC`);
  }
  log(`[2] per-RPC cost ${large.n} vs ${small.n}: ${fmtRatio(result.ratio)}`);
  return result;
}

if (isMain(import.meta.url)) await benchSyntheticScaling();
