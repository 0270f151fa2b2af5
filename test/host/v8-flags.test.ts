/**
 * V8's settings for a process of the binary (src/host/v8-flags.ts), in real processes, since the flags are the
 * process's: with PLUGIN_V8_FLAGS the young generation stays at its first size while a program keeps allocating
 * objects that survive, where V8 alone grows it to its largest; after a request over LARGE_REQUEST_BYTES it grows
 * again, and after a smaller one it stays. Its size is read from v8.getHeapSpaceStatistics().
 */
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LARGE_REQUEST_BYTES } from "../../dist/host/v8-flags.js";
import { repoRoot, run } from "../helpers/run.js";

const flagsModule = pathToFileURL(join(repoRoot, "dist/host/v8-flags.js")).href;

/** The young generation's size before and after a run that keeps some 50,000 of 400,000 objects alive. */
function youngGeneration(setup: string): { before: number; after: number } {
  const program = [
    'import { getHeapSpaceStatistics } from "node:v8";',
    `import { setPluginFlags, fitToRequest } from ${JSON.stringify(flagsModule)};`,
    setup,
    'const size = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;',
    "const before = size();",
    "const kept = [];",
    "for (let i = 0; i < 400000; i++) {",
    "  kept.push({ i, s: String(i) });",
    "  if (kept.length > 50000) kept.splice(0, 10000);",
    "}",
    "console.log(JSON.stringify({ before, after: size() }));",
  ].join("\n");
  const r = run(process.execPath, ["--input-type=module", "-e", program]);
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
});
