/**
 * `protoc-gen-a2a sync <dir>` and `npm run sync` with local sources, end to end as child
 * processes: A2A_SPEC_DIR wins over a download, `../shared/a2a-spec` is this repository's
 * default, the staged folder builds with the real `buf build`, and the google/api protos
 * shipped in dist/proto (for installs without google-proto-files) are the ones the pinned
 * protos need. The download source is covered by sync-download.test.ts.
 * Needs `npm run build` (dist/).
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { googleApiRoots, googleImportClosure } from "../../src/sync/google-protos.js";
import { syncProtos } from "../../src/sync/sync-protos.js";
import { bufBin, pluginBin, readTree, repoRoot, run, tempDir } from "../helpers/run.js";
import { closedPortUrl, lock, pinnedBytes, runNode, specDir, syncCli } from "../helpers/spec-server.js";

const shippedRoot = join(repoRoot, "dist/proto");
let nowhere: string;

beforeAll(async () => {
  if (!existsSync(syncCli)) throw new Error(`${syncCli} is missing: run \`npm run build\` first`);
  nowhere = await closedPortUrl(); // a download would fail: proves the local source was used
});

describe("protoc-gen-a2a sync <dir>", () => {
  it("is listed in --help and has its own usage", async () => {
    const help = await runNode([pluginBin, "--help"], repoRoot);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("protoc-gen-a2a sync <dir>");
    const usage = await runNode([pluginBin, "sync", "--help"], repoRoot);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^Usage: protoc-gen-a2a sync <dir>\n/);
    expect(usage.stdout).toContain("A2A_SPEC_DIR");
    const bad = await runNode([pluginBin, "sync"], repoRoot);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^protoc-gen-a2a sync: expected one folder, got \[\]\nUsage: /);
  });

  it("stages from A2A_SPEC_DIR, leaves other files alone, and buf builds the result", async () => {
    const out = join(tempDir("sync-cmd"), "protos");
    mkdirSync(out);
    writeFileSync(join(out, "mine.txt"), "kept\n");
    const r = await runNode([pluginBin, "sync", "protos"], join(out, ".."), {
      A2A_SPEC_DIR: specDir,
      A2A_SPEC_BASE_URL: nowhere,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      `protoc-gen-a2a sync: staged ${lock.inputs.map((e) => e.stagedPath).join(", ")} (sha256 verified) ` +
        `from ${specDir} and 5 google/api files from ${join(repoRoot, "node_modules/google-proto-files")} ` +
        `into ${out}\n`,
    );
    const tree = readTree(out);
    expect([...tree.keys()].sort()).toEqual(
      [
        ...lock.inputs.map((e) => e.stagedPath),
        "google/api/annotations.proto",
        "google/api/client.proto",
        "google/api/field_behavior.proto",
        "google/api/http.proto",
        "google/api/launch_stage.proto",
        "mine.txt",
      ].sort(),
    );
    for (const [i, e] of lock.inputs.entries()) expect(tree.get(e.stagedPath)!.equals(pinnedBytes[i]!)).toBe(true);
    expect(tree.get("mine.txt")!.toString()).toBe("kept\n");

    const built = run(bufBin, ["build", out, "-o", join(out, "..", "image.binpb")]);
    expect(built.stderr).toBe("");
    expect(built.status).toBe(0);
  });

  it("keeps the A2A_SPEC_DIR messages: a missing pinned file is one line naming it", async () => {
    const empty = tempDir("sync-cmd-empty");
    const out = join(tempDir("sync-cmd"), "protos");
    const r = await runNode([pluginBin, "sync", out], repoRoot, { A2A_SPEC_DIR: empty, A2A_SPEC_BASE_URL: nowhere });
    const e = lock.inputs[0]!;
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `protoc-gen-a2a sync: ${join(empty, e.specDirPath)}: pinned file for ${e.version} (${e.tag}, ${e.sourcePath}) ` +
        `is missing; expected sha256 ${e.sha256}. Set A2A_SPEC_DIR to the folder that holds ${e.specDirPath}.\n`,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe("npm run sync", () => {
  it("takes ../shared/a2a-spec when it exists and A2A_SPEC_DIR is not set", async () => {
    const top = tempDir("sync-local");
    const work = join(top, "work");
    mkdirSync(join(work, "proto"), { recursive: true });
    mkdirSync(join(top, "shared"));
    symlinkSync(specDir, join(top, "shared/a2a-spec"));
    writeFileSync(join(work, "proto/a2a.lock.json"), readFileSync(join(repoRoot, "proto/a2a.lock.json")));
    const r = await runNode([syncCli], work, { A2A_SPEC_BASE_URL: nowhere });
    expect(r.code, r.stderr).toBe(0);
    const local = join(top, "shared/a2a-spec");
    expect(r.stderr).toContain(`sync: staged 7 files in proto/staged (sha256 verified) from ${local};`);
    const tree = readTree(join(work, "proto/staged"));
    for (const [i, e] of lock.inputs.entries()) expect(tree.get(e.stagedPath)!.equals(pinnedBytes[i]!)).toBe(true);
  });
});

describe("the google/api protos shipped in dist/proto", () => {
  it("are the import closure of googleApiRoots, copied from google-proto-files", () => {
    const fromPackage = googleImportClosure(join(repoRoot, "node_modules/google-proto-files"), googleApiRoots);
    const shipped = readTree(shippedRoot);
    expect([...shipped.keys()].sort()).toEqual([...fromPackage.keys()].sort());
    for (const [path, data] of fromPackage) expect(shipped.get(path)!.equals(data), path).toBe(true);
  });

  it("cover every google import of the pinned protos", async () => {
    const withPackage = join(tempDir("sync-google"), "a");
    const withShipped = join(tempDir("sync-google"), "b");
    const source = { kind: "dir", dir: specDir } as const;
    const a = await syncProtos({ lock, source, outDir: withPackage });
    const b = await syncProtos({ lock, source, outDir: withShipped, googleProtoRoot: shippedRoot });
    expect(b.googleProtoRoot).toBe(shippedRoot);
    expect(b.google).toEqual(a.google);
    expect(readTree(withShipped)).toEqual(readTree(withPackage));
  });
});
