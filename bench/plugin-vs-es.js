// Figure 1: protoc-gen-a2a against protoc-gen-es on the same
// CodeGeneratorRequest (both pinned A2A versions, target=ts).
// Each plugin runs as a real process the way buf runs it: `node <bin>` with the
// serialized request on stdin, timed from spawn to exit (median wall time,
// runs interleaved). An in-process protocGenA2a.run(req) time is added for
// information. Prints only; asserts no timing.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { buildRequest, repoRoot } from "./buf-request.js";
import { fmtMs, fmtRatio, isMain, median, nowMs } from "./stats.js";

const RUNS = 10;
const IN_PROCESS_RUNS = 10;

const plugins = {
  ours: join(repoRoot, "bin", "protoc-gen-a2a.js"),
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

/** Runs one plugin process on the request; resolves with wall time in ms. */
function runProcess(bin, input) {
  return new Promise((resolvePromise, reject) => {
    const start = nowMs();
    const child = spawn(process.execPath, [bin], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
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

  // One warm-up each (file cache, JIT of node itself), not counted.
  const warmOurs = await runProcess(plugins.ours, input);
  const warmEs = await runProcess(plugins.es, input);
  log(`[1] ours writes ${warmOurs.files} files, protoc-gen-es ${warmEs.files}`);

  const ours = [];
  const es = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate which one goes first so neither always runs on a "hotter" machine.
    if (i % 2 === 0) {
      ours.push((await runProcess(plugins.ours, input)).ms);
      es.push((await runProcess(plugins.es, input)).ms);
    } else {
      es.push((await runProcess(plugins.es, input)).ms);
      ours.push((await runProcess(plugins.ours, input)).ms);
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

  const result = { ours: median(ours), es: median(es), inProcess: median(inProc), runs: RUNS };
  result.ratio = result.ours / result.es;
  log(
    `[1] process wall time, median of ${RUNS}: ours ${fmtMs(result.ours)}, protoc-gen-es ${fmtMs(result.es)} ` +
      `(${fmtRatio(result.ratio)}); ours in-process run(): ${fmtMs(result.inProcess)}`,
  );
  return result;
}

if (isMain(import.meta.url)) await benchPluginVsEs();
