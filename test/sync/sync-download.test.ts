/**
 * The download source of the sync step, against a real HTTP server on 127.0.0.1
 * (test/helpers/spec-server.ts), through the API and through both CLIs run as child
 * processes: `node dist/sync/cli.js` (npm run sync) and `bin/protoc-gen-a2a.cjs sync <dir>`.
 *
 * Checked: a good download stages both pinned files with their sha256; a tampered file,
 * a 404, an unreachable host and a silent host each give one stderr line naming the URL
 * (and both hashes, or the status, or A2A_SPEC_DIR), exit code 1, and write nothing.
 * Needs `npm run build` (dist/).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedUrl, SyncError, syncProtos } from "../../src/sync/sync-protos.js";
import { pluginBin, readTree, repoRoot, tempDir } from "../helpers/run.js";
import {
  closedPortUrl,
  lock,
  pinnedBytes,
  runNode,
  sha256,
  startSpecServer,
  syncCli,
  tamperedBytes,
  type NodeRun,
  type SpecServer,
} from "../helpers/spec-server.js";

const last = lock.inputs.at(-1)!;
const googleApi = ["google/api/annotations.proto", "google/api/client.proto", "google/api/field_behavior.proto"];
let server: SpecServer;

beforeAll(async () => {
  if (!existsSync(syncCli)) throw new Error(`${syncCli} is missing: run \`npm run build\` first`);
  server = await startSpecServer();
});
afterAll(() => server.close());

/** A temp work folder for `node dist/sync/cli.js`: proto/a2a.lock.json, no ../shared beside it. */
function repoLikeWork(): string {
  const work = join(tempDir("sync-dl"), "nested", "work");
  mkdirSync(join(work, "proto"), { recursive: true });
  writeFileSync(join(work, "proto/a2a.lock.json"), readFileSync(join(repoRoot, "proto/a2a.lock.json")));
  return work;
}

/** Runs both CLIs with env; returns each run and the folder each would have written. */
async function runBoth(env: Record<string, string>): Promise<{ run: NodeRun; out: string; name: string }[]> {
  const work = repoLikeWork();
  const consumerOut = join(tempDir("sync-dl-out"), "protos");
  const [repo, consumer] = await Promise.all([
    runNode([syncCli], work, env),
    runNode([pluginBin, "sync", consumerOut], tempDir("sync-dl-cwd"), env),
  ]);
  return [
    { run: repo, out: join(work, "proto/staged"), name: "npm run sync" },
    { run: consumer, out: consumerOut, name: "protoc-gen-a2a sync" },
  ];
}

function expectOneErrorLine(r: NodeRun, ...says: string[]): void {
  const context = `stderr:\n${r.stderr}\nstdout:\n${r.stdout}`;
  expect(r.code, context).toBe(1);
  expect(r.stderr.endsWith("\n"), context).toBe(true);
  expect(r.stderr.trimEnd().split("\n"), context).toHaveLength(1);
  expect(r.stderr, context).not.toMatch(/\n\s+at /);
  for (const s of says) expect(r.stderr, context).toContain(s);
}

describe("syncProtos with a download source", () => {
  it("downloads every pinned file at its commit, checks the sha256 and stages them", async () => {
    const outDir = join(tempDir("sync-dl-api"), "staged");
    const baseUrl = server.baseUrl("ok");
    const r = await syncProtos({ lock, source: { kind: "download", baseUrl, timeoutMs: 5_000 }, outDir });
    expect(r.pinned).toEqual(lock.inputs.map((e) => e.stagedPath));
    expect(r.from).toBe(baseUrl);
    for (const e of lock.inputs) expect(server.requests).toContain(`/ok/${e.commit}/${e.sourcePath}`);
    const tree = readTree(outDir);
    lock.inputs.forEach((e, i) => {
      expect(sha256(tree.get(e.stagedPath)!)).toBe(e.sha256);
      expect(tree.get(e.stagedPath)!.equals(pinnedBytes[i]!)).toBe(true);
    });
    for (const g of googleApi) expect(tree.has(g), g).toBe(true);
  });

  it("refuses a tampered file, naming the URL and both hashes, and writes nothing", async () => {
    const outDir = join(tempDir("sync-dl-api"), "staged");
    const baseUrl = server.baseUrl("tampered");
    const run = syncProtos({ lock, source: { kind: "download", baseUrl }, outDir });
    await expect(run).rejects.toThrow(SyncError);
    await expect(run).rejects.toThrow(
      `${pinnedUrl(baseUrl, last)}: sha256 mismatch for ${last.version} (${last.tag}, ${last.sourcePath}): ` +
        `expected ${last.sha256}, found ${sha256(tamperedBytes)}`,
    );
    expect(existsSync(outDir)).toBe(false);
  });

  it("gives up after timeoutMs on a host that never answers", async () => {
    const outDir = join(tempDir("sync-dl-api"), "staged");
    const baseUrl = server.baseUrl("silent");
    const run = syncProtos({ lock, source: { kind: "download", baseUrl, timeoutMs: 200 }, outDir });
    const url = pinnedUrl(baseUrl, lock.inputs[0]!);
    await expect(run).rejects.toThrow(`${url}: cannot download: no answer within 0.2 s`);
    expect(existsSync(outDir)).toBe(false);
  });
});

describe("the sync CLIs with a download source", () => {
  it("npm run sync downloads when neither A2A_SPEC_DIR nor ../shared/a2a-spec is there", async () => {
    const work = repoLikeWork();
    const r = await runNode([syncCli], work, { A2A_SPEC_BASE_URL: server.baseUrl("ok") });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`from ${server.baseUrl("ok")} (pinned commits)`);
    const tree = readTree(join(work, "proto/staged"));
    for (const [i, e] of lock.inputs.entries()) expect(tree.get(e.stagedPath)!.equals(pinnedBytes[i]!)).toBe(true);
  });

  it("protoc-gen-a2a sync <dir> downloads and stages the pinned files", async () => {
    const out = join(tempDir("sync-dl-out"), "protos");
    const r = await runNode([pluginBin, "sync", out], repoRoot, { A2A_SPEC_BASE_URL: server.baseUrl("ok") });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stdout).toContain(`from ${server.baseUrl("ok")} and 5 google/api files from `);
    const tree = readTree(out);
    for (const [i, e] of lock.inputs.entries()) expect(tree.get(e.stagedPath)!.equals(pinnedBytes[i]!)).toBe(true);
  });

  it("a tampered file: one line with the URL and both hashes, exit 1, nothing written", async () => {
    const baseUrl = server.baseUrl("tampered");
    for (const { run, out, name } of await runBoth({ A2A_SPEC_BASE_URL: baseUrl })) {
      expectOneErrorLine(run, pinnedUrl(baseUrl, last), `expected ${last.sha256}`, `found ${sha256(tamperedBytes)}`);
      expect(existsSync(out), name).toBe(false);
    }
  });

  it("an unreachable host: one line with the URL and A2A_SPEC_DIR, exit 1, nothing written", async () => {
    const baseUrl = await closedPortUrl();
    for (const { run, out, name } of await runBoth({ A2A_SPEC_BASE_URL: baseUrl })) {
      expectOneErrorLine(run, pinnedUrl(baseUrl, lock.inputs[0]!), "ECONNREFUSED", "Set A2A_SPEC_DIR to a folder");
      expect(existsSync(out), name).toBe(false);
    }
  });

  it("an HTTP 404: one line with the URL and the status, exit 1, nothing written", async () => {
    const baseUrl = server.baseUrl("missing");
    for (const { run, out, name } of await runBoth({ A2A_SPEC_BASE_URL: baseUrl })) {
      expectOneErrorLine(run, `${pinnedUrl(baseUrl, lock.inputs[0]!)}: HTTP 404 Not Found`);
      expect(existsSync(out), name).toBe(false);
    }
  });

  it("a host that never answers: one line after A2A_SPEC_TIMEOUT_MS, exit 1", async () => {
    const baseUrl = server.baseUrl("silent");
    for (const { run, out, name } of await runBoth({ A2A_SPEC_BASE_URL: baseUrl, A2A_SPEC_TIMEOUT_MS: "300" })) {
      expectOneErrorLine(run, pinnedUrl(baseUrl, lock.inputs[0]!), "no answer within 0.3 s");
      expect(existsSync(out), name).toBe(false);
    }
  });

  it("a malformed A2A_SPEC_BASE_URL or A2A_SPEC_TIMEOUT_MS: one line naming the variable", async () => {
    for (const { run } of await runBoth({ A2A_SPEC_BASE_URL: "ftp://127.0.0.1/" })) {
      expectOneErrorLine(run, 'A2A_SPEC_BASE_URL: "ftp://127.0.0.1/" is not an http(s) URL');
    }
    for (const { run } of await runBoth({ A2A_SPEC_BASE_URL: server.baseUrl("ok"), A2A_SPEC_TIMEOUT_MS: "soon" })) {
      expectOneErrorLine(run, 'A2A_SPEC_TIMEOUT_MS: "soon"');
    }
  });
});
