/**
 * The binary's code cache (src/host/load-bundle.ts), on real plugin processes: the first plugin run writes one
 * cache file and the next one uses it without writing (V8 accepted it), also after a run on a request large
 * enough to change V8's flags (v8-flags.ts); a damaged cache is refused and written again; processes started
 * together on an empty folder all answer the same bytes and leave one whole cache and no temporary file; a
 * folder that cannot be written, or the cache turned off, changes nothing but speed; a command or a refused
 * request writes no cache; the folder keeps the newest MAX_FILES caches. Every run's response is compared
 * with the bytes of a run without the cache.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
import { cacheFile, MAX_FILES } from "../../dist/host/load-bundle.js";
import { LARGE_REQUEST_BYTES } from "../../dist/host/v8-flags.js";
import { buildImage, paddedRequest, request } from "../helpers/in-process.js";
import { pluginBin, repoRoot, run, tempDir } from "../helpers/run.js";

const image = buildImage(["v0.3.0", "v1.0.1"]);
const files = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];
const input = Buffer.from(toBinary(CodeGeneratorRequestSchema, request(image, files, ["target=ts"])));

/** The same request over LARGE_REQUEST_BYTES: a run on it lets V8's young generation grow (v8-flags.ts). */
const large = Buffer.from(
  toBinary(CodeGeneratorRequestSchema, paddedRequest(image, files, ["target=ts"], LARGE_REQUEST_BYTES + 1)),
);

const plugin = (cache: string, args: string[] = [], request = input) =>
  run(process.execPath, [pluginBin, ...args], {
    input: request,
    env: { ...process.env, PROTOC_GEN_A2A_CODE_CACHE: cache },
    timeoutMs: 60_000,
  });

const expected = plugin("off");

/** A plugin run that must answer as a run without the cache does. */
function answers(cache: string, request = input): void {
  const r = plugin(cache, [], request);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout.equals(expected.stdout)).toBe(true);
}

const caches = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".v8cache"));
const stamp = (file: string) => {
  const s = statSync(file);
  return { mtime: s.mtimeMs, ino: s.ino, bytes: readFileSync(file) };
};

describe("the binary's code cache", () => {
  it("is written by the first plugin run and used, not written, by the next ones", () => {
    expect(expected.status).toBe(0);
    const dir = join(tempDir("code-cache"), "nested", "cache");
    answers(dir);
    expect(caches(dir)).toHaveLength(1);
    const file = join(dir, caches(dir)[0]!);
    expect(statSync(file).size).toBeGreaterThan(100_000);
    const before = stamp(file);
    for (let i = 0; i < 3; i++) answers(dir);
    expect(stamp(file)).toEqual(before);
  });

  it("is written by a run on a request over LARGE_REQUEST_BYTES under the flags the next run starts with", () => {
    expect(large.length).toBeGreaterThan(LARGE_REQUEST_BYTES);
    const dir = tempDir("code-cache-large");
    answers(dir, large);
    expect(caches(dir)).toHaveLength(1);
    const before = stamp(join(dir, caches(dir)[0]!));
    // V8 would refuse a cache stamped with the flags a large request leaves, and the next run would write it again.
    answers(dir, large);
    answers(dir);
    expect(stamp(join(dir, caches(dir)[0]!))).toEqual(before);
  });

  it.each([
    ["truncated", (b: Buffer) => b.subarray(0, b.length >> 1)],
    ["with bytes changed", (b: Buffer) => Buffer.from(b.map((x, i) => (i % 97 === 13 ? x ^ 0x5a : x)))],
    ["not a cache at all", () => Buffer.from("not a V8 code cache\n")],
  ])("is refused and written again when %s", (_what, damage) => {
    const dir = tempDir("code-cache-damaged");
    answers(dir);
    const file = join(dir, caches(dir)[0]!);
    const good = readFileSync(file);
    const damaged = damage(good);
    writeFileSync(file, damaged);
    answers(dir);
    const rewritten = stamp(file);
    expect(rewritten.bytes.equals(damaged)).toBe(false);
    expect(rewritten.bytes.length).toBeGreaterThan(100_000);
    answers(dir);
    expect(stamp(file)).toEqual(rewritten);
  });

  it("is left whole by processes started together on an empty folder, three times over", async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDir("code-cache-race");
      const results = await Promise.all(Array.from({ length: 5 }, () => spawnPlugin(dir)));
      for (const r of results) {
        expect(r.stderr).toBe("");
        expect(r.status).toBe(0);
        expect(r.stdout.equals(expected.stdout)).toBe(true);
      }
      expect(readdirSync(dir)).toEqual(caches(dir));
      expect(caches(dir)).toHaveLength(1);
      const before = stamp(join(dir, caches(dir)[0]!));
      answers(dir);
      expect(stamp(join(dir, caches(dir)[0]!))).toEqual(before);
    }
  });

  it("changes nothing but speed when its folder cannot be made, or when it is off", () => {
    const file = join(tempDir("code-cache-blocked"), "a-file");
    writeFileSync(file, "in the way\n");
    answers(join(file, "cache"));
    // Under /proc, where Node's recursive mkdir retried forever.
    answers("/proc/self/a2a-code-cache");
    answers("off");
    expect(cacheFile(Buffer.from("x"), join(repoRoot, "dist/protoc-gen-a2a.cjs"), "off")).toBeUndefined();
  });

  it("is written by plugin runs that succeed only, not by a command or a refused request", () => {
    const dir = tempDir("code-cache-command");
    const r = plugin(dir, ["--version"]);
    expect(r.status).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    const refused = run(process.execPath, [pluginBin], {
      input: Buffer.from(toBinary(CodeGeneratorRequestSchema, request(image, files, ["emit=nothing"]))),
      env: { ...process.env, PROTOC_GEN_A2A_CODE_CACHE: dir },
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^protoc-gen-a2a: .*emit/);
    expect(readdirSync(dir)).toEqual([]);
    answers(dir);
    expect(caches(dir)).toHaveLength(1);
  });

  it("keeps the newest caches of its folder, and drops temporary files a dead process left", () => {
    const dir = tempDir("code-cache-prune");
    const old = Array.from({ length: MAX_FILES + 1 }, (_, i) => `${String(i).repeat(16)}.v8cache`);
    const hourAgo = Date.now() / 1000 - 3600;
    old.forEach((name, i) => {
      writeFileSync(join(dir, name), "old");
      utimesSync(join(dir, name), hourAgo + i, hourAgo + i);
    });
    writeFileSync(join(dir, "dead.v8cache.1.tmp"), "partial");
    utimesSync(join(dir, "dead.v8cache.1.tmp"), hourAgo, hourAgo);
    writeFileSync(join(dir, "busy.v8cache.2.tmp"), "being written");
    answers(dir);
    const kept = caches(dir).filter((f) => !old.includes(f));
    expect(kept).toHaveLength(1);
    expect(caches(dir).sort()).toEqual([...old.slice(-(MAX_FILES - 1)), kept[0]!].sort());
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual(["busy.v8cache.2.tmp"]);
  });

  it("is named by the bundle's bytes and Node's flags, so that another bundle or flag set never reads it", () => {
    const bundle = join(repoRoot, "dist/protoc-gen-a2a.cjs");
    const a = cacheFile(Buffer.from("one"), bundle, undefined)!;
    expect(a.startsWith(join(repoRoot, "dist/.v8-cache/"))).toBe(true);
    expect(cacheFile(Buffer.from("one"), bundle, undefined)).toBe(a);
    expect(cacheFile(Buffer.from("two"), bundle, undefined)).not.toBe(a);
    expect(cacheFile(Buffer.from("one"), bundle, undefined, "--max-old-space-size=512")).not.toBe(a);
  });
});

function spawnPlugin(dir: string): Promise<{ status: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [pluginBin], {
      cwd: repoRoot,
      env: { ...process.env, PROTOC_GEN_A2A_CODE_CACHE: dir },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (status) =>
      resolve({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") }),
    );
    child.stdin.end(input);
  });
}
