// Figure 1: protoc-gen-a2a against protoc-gen-es on the same
// CodeGeneratorRequest (both pinned A2A versions, target=ts).
// Each plugin runs as a real process the way buf runs it: `node <bin>` with the
// serialized request on stdin, timed from spawn to exit (median wall time,
// runs interleaved). Ours runs with its code cache (src/host/load-bundle.ts) in a
// folder of the bench's own, written by its first (warm-up) run, whose time is
// printed too; and, interleaved with the others, with the cache off
// (PROTOC_GEN_A2A_CODE_CACHE=off): every run as it would be the first. An
// in-process protocGenA2a.run(req) time is added for information. Prints only;
// asserts no timing.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { buildRequest, repoRoot } from "./buf-request.js";
import { fmtMs, fmtRatio, isMain, median, nowMs } from "./stats.js";

const RUNS = 10;
const IN_PROCESS_RUNS = 10;

const plugins = {
  ours: join(repoRoot, "bin", "protoc-gen-a2a.cjs"),
  es: join(repoRoot, "node_modules", "@bufbuild", "protoc-gen-es", "bin", "protoc-gen-es"),
};

export function stagedRequest() {
  const staged = join(repoRoot, "proto", "staged");
  for (const v of ["v0.3.0", "v1.0.1", "google"]) {
    if (!existsSync(join(staged, v))) throw new Error(`proto/staged/${v} is missing: run \`npm run sync\` first`);
  }
  return buildRequest({
    input: "proto/staged",
    paths: ["proto/staged/v0.3.0", "proto/staged/v1.0.1"],
    isTarget: (name) => name.startsWith("v0.3.0/") || name.startsWith("v1.0.1/"),
  });
}

/** Runs one plugin process on the request, with `env` added; resolves with wall time in ms. */
function runProcess(bin, input, env = {}) {
  return new Promise((resolvePromise, reject) => {
    const start = nowMs();
    const child = spawn(process.execPath, [bin], {
      cwd: repoRoot,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = nowMs() - start;
      if (code !== 0) {
        reject(new Error(`${bin} exited with ${code}: ${Buffer.concat(err).toString().trim()}`));
        return;
      }
      const res = fromBinary(CodeGeneratorResponseSchema, Buffer.concat(out));
      if (res.error) reject(new Error(`${bin} reported: ${res.error}`));
      else if (res.file.length === 0) reject(new Error(`${bin} generated no files`));
      else resolvePromise({ ms, files: res.file.length });
    });
    child.stdin.end(input);
  });
}

export async function benchPluginVsEs({ log = console.log } = {}) {
  const req = stagedRequest();
  const input = toBinary(CodeGeneratorRequestSchema, req);
  log(
    `[1] request: ${req.fileToGenerate.length} files to generate, ${req.protoFile.length} in total, ${input.length} bytes`,
  );

  const cacheDir = mkdtempSync(join(tmpdir(), "a2a-bench-code-cache-"));
  try {
    return await measureProcesses(req, input, cacheDir, log);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

async function measureProcesses(req, input, cacheDir, log) {
  const runs = {
    ours: () => runProcess(plugins.ours, input, { PROTOC_GEN_A2A_CODE_CACHE: cacheDir }),
    oursNoCache: () => runProcess(plugins.ours, input, { PROTOC_GEN_A2A_CODE_CACHE: "off" }),
    es: () => runProcess(plugins.es, input),
  };
  // One warm-up each (file cache, JIT of node itself), not counted; ours's writes its code cache.
  const warmOurs = await runs.ours();
  await runs.oursNoCache();
  const warmEs = await runs.es();
  log(`[1] ours writes ${warmOurs.files} files, protoc-gen-es ${warmEs.files}`);

  const times = { ours: [], oursNoCache: [], es: [] };
  const keys = Object.keys(times);
  for (let i = 0; i < RUNS; i++) {
    // Rotate which one goes first so none always runs on a "hotter" machine.
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(i + k) % keys.length];
      times[key].push((await runs[key]()).ms);
    }
  }

  // In-process, for information: the plugin without node start-up and I/O.
  const { protocGenA2a } = await import("../dist/plugin.js");
  protocGenA2a.run(req);
  const inProc = [];
  for (let i = 0; i < IN_PROCESS_RUNS; i++) {
    const t = nowMs();
    protocGenA2a.run(req);
    inProc.push(nowMs() - t);
  }

  const result = {
    ours: median(times.ours),
    oursNoCache: median(times.oursNoCache),
    oursFirst: warmOurs.ms,
    es: median(times.es),
    inProcess: median(inProc),
    runs: RUNS,
  };
  result.ratio = result.ours / result.es;
  result.noCacheRatio = result.oursNoCache / result.es;
  log(
    `[1] process wall time, median of ${RUNS}: ours ${fmtMs(result.ours)}, protoc-gen-es ${fmtMs(result.es)} ` +
      `(${fmtRatio(result.ratio)}); ours in-process run(): ${fmtMs(result.inProcess)}`,
  );
  log(
    `[1] ours without its code cache ${fmtMs(result.oursNoCache)} (${fmtRatio(result.noCacheRatio)}); ` +
      `the first run, which writes the cache, ${fmtMs(result.oursFirst)}`,
  );
  return result;
}

if (isMain(import.meta.url)) await benchPluginVsEs();
