/**
 * V8's settings for a process of the binary (src/host/v8-flags.ts), in real processes, since the flags are the
 * process's. The young generation's size is read from v8.getHeapSpaceStatistics():
 *   - the module: with PLUGIN_V8_FLAGS the young generation stays at its first size while a program keeps
 *     allocating objects that survive, where V8 alone grows it many times over; after a request over
 *     LARGE_REQUEST_BYTES it grows again, and after one of that size it stays;
 *   - the binary: a plugin run holds it, and a run on a request over LARGE_REQUEST_BYTES lets it grow (a preloaded
 *     probe reads it as the process exits).
 * Each child gets --max-semi-space-size=16 and no NODE_OPTIONS, so that the largest young generation is V8's
 * 64-bit default whatever the machine's memory.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
import { LARGE_REQUEST_BYTES } from "../../dist/host/v8-flags.js";
import { buildImage, paddedRequest, request } from "../helpers/in-process.js";
import { pluginBin, repoRoot, run, tempDir } from "../helpers/run.js";

const flagsModule = pathToFileURL(join(repoRoot, "dist/host/v8-flags.js")).href;
const NEW_SPACE = 'getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size';
const childEnv = (extra: NodeJS.ProcessEnv = {}) => ({ ...process.env, NODE_OPTIONS: "", ...extra });

/** The young generation's size before and after a run that keeps 50,000 of a million objects alive. */
function youngGeneration(setup: string): { before: number; after: number } {
  const program = [
    'import { getHeapSpaceStatistics } from "node:v8";',
    `import { setPluginFlags, fitToRequest } from ${JSON.stringify(flagsModule)};`,
    setup,
    `const size = () => ${NEW_SPACE};`,
    "const before = size();",
    "const kept = [];",
    "for (let i = 0; i < 1000000; i++) {",
    "  kept.push({ i, s: String(i) });",
    "  if (kept.length > 50000) kept.splice(0, 10000);",
    "}",
    "console.log(JSON.stringify({ before, after: size() }));",
  ].join("\n");
  const r = run(process.execPath, ["--max-semi-space-size=16", "--input-type=module", "-e", program], {
    env: childEnv(),
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout.toString("utf8"));
}

describe("V8's settings for the binary", () => {
  it("hold the young generation near its first size, which V8 alone grows eightfold or more", () => {
    const alone = youngGeneration("");
    expect(alone.after).toBeGreaterThanOrEqual(8 * alone.before);
    const held = youngGeneration("setPluginFlags();");
    expect(held.before).toBe(alone.before);
    expect(held.after).toBeLessThanOrEqual(2 * held.before);
  });

  it("let it grow again after a request over LARGE_REQUEST_BYTES, and not after one at that size", () => {
    const large = youngGeneration(`setPluginFlags(); fitToRequest(${LARGE_REQUEST_BYTES + 1});`);
    expect(large.after).toBeGreaterThanOrEqual(8 * large.before);
    const atLimit = youngGeneration(`setPluginFlags(); fitToRequest(${LARGE_REQUEST_BYTES});`);
    expect(atLimit.after).toBeLessThanOrEqual(2 * atLimit.before);
  });

  it("are what the binary runs with: held on the A2A request, grown on one over LARGE_REQUEST_BYTES", () => {
    const dir = tempDir("v8-flags-probe");
    const probe = join(dir, "probe.cjs");
    const out = join(dir, "young.json");
    writeFileSync(
      probe,
      [
        'const { getHeapSpaceStatistics } = require("node:v8");',
        'const { writeFileSync } = require("node:fs");',
        `process.on("exit", () => writeFileSync(process.env.PROBE_OUT, String(${NEW_SPACE})));`,
        "",
      ].join("\n"),
    );
    const image = buildImage(["v0.3.0", "v1.0.1"]);
    const files = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];
    const young = (req: Parameters<typeof toBinary<typeof CodeGeneratorRequestSchema>>[1]) => {
      const r = run(process.execPath, ["--max-semi-space-size=16", "-r", probe, pluginBin], {
        input: Buffer.from(toBinary(CodeGeneratorRequestSchema, req)),
        env: childEnv({ PROTOC_GEN_A2A_CODE_CACHE: "off", PROBE_OUT: out }),
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      return Number(readFileSync(out, "utf8"));
    };
    const held = young(request(image, files, ["target=ts"]));
    const grown = young(paddedRequest(image, files, ["target=ts"], LARGE_REQUEST_BYTES + 1));
    expect(held).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(grown).toBeGreaterThanOrEqual(4 * held);
  });
});
