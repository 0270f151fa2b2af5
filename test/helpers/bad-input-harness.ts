/**
 * Harness for test/bad-input.test.ts: runs the real plugin through the real
 * `buf generate`, or the real sync CLI, in a fresh temp directory, and reports
 * the exit code, stderr and whatever was written.
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  type Dirent,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const pluginBin = join(repoRoot, "bin/protoc-gen-a2a.cjs");
export const bufBin = join(repoRoot, "node_modules/.bin/buf");
export const syncCli = join(repoRoot, "dist/sync/cli.js");
export const stagedGoogle = join(repoRoot, "proto/staged/google");
export const lockFile = join(repoRoot, "proto/a2a.lock.json");

export interface RunResult {
  /** What ran: `buf generate` with the plugin, or the sync CLI. */
  tool: "buf" | "sync";
  /** Exit code; null when killed by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The temp directory the run happened in (removed unless `keep`). */
  dir: string;
  /** Relative paths of every file below the checked output folder, or null when it does not exist. */
  outputFiles: string[] | null;
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<Omit<RunResult, "tool" | "dir" | "outputFiles">> {
  return new Promise((done) => {
    execFile(
      cmd,
      args,
      { cwd, env: { ...process.env, ...env }, timeout: 60_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === "number"
            ? (err as { code: number }).code
            : null
          : 0;
        done({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

function listFiles(dir: string): string[] | null {
  if (!existsSync(dir)) return null;
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name).slice(dir.length + 1))
    .sort();
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const to = join(root, rel);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
  }
}

const tempDirs: string[] = [];
function freshDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every temp directory this harness created. */
export function cleanupTempDirs(): void {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface GenerateFixture {
  /** Module files (proto fixtures), relative to the module root. */
  protos: Record<string, string>;
  /** Extra files (override YAML, ...), relative to the temp dir (= cwd of buf). */
  files?: Record<string, string>;
  /** Plugin options, one per `opt:` list item. */
  opt: string[];
}

/**
 * Writes buf.yaml, buf.gen.yaml, google/api and the fixtures into a fresh
 * temp directory and runs `buf generate` there. The plugin writes to `out`.
 */
export async function runBufGenerate(fx: GenerateFixture): Promise<RunResult> {
  const dir = freshDir("a2a-bad-input-");
  cpSync(stagedGoogle, join(dir, "google"), { recursive: true });
  writeTree(dir, fx.protos);
  writeTree(dir, fx.files ?? {});
  writeFileSync(join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: .\n");
  writeFileSync(
    join(dir, "buf.gen.yaml"),
    [
      "version: v2",
      "plugins:",
      `  - local: ${JSON.stringify(["node", pluginBin])}`,
      "    out: out",
      "    strategy: all",
      `    opt: ${JSON.stringify(fx.opt)}`,
      "",
    ].join("\n"),
  );
  const r = await run(bufBin, ["generate"], dir);
  return { ...r, tool: "buf", dir, outputFiles: listFiles(join(dir, "out")) };
}

export interface LockJson {
  inputs: { version: string; specDirPath: string; stagedPath: string; sha256: string }[];
}

export interface SyncFixture {
  /** Files of the A2A_SPEC_DIR folder. */
  spec: Record<string, string>;
  /** Edits the copied lock file in place; default: the project's lock file as is. */
  lock?: (lock: LockJson) => void;
}

/**
 * Runs `node dist/sync/cli.js` with cwd = a temp copy holding
 * proto/a2a.lock.json and A2A_SPEC_DIR = a temp spec folder. The checked
 * output is proto/staged of the temp copy.
 */
export async function runSync(fx: SyncFixture): Promise<RunResult> {
  const dir = freshDir("a2a-bad-sync-");
  const specDir = join(dir, "spec");
  const work = join(dir, "work");
  mkdirSync(specDir, { recursive: true });
  mkdirSync(join(work, "proto"), { recursive: true });
  writeTree(specDir, fx.spec);
  const lock = JSON.parse(readFileSync(lockFile, "utf8")) as LockJson;
  fx.lock?.(lock);
  writeFileSync(join(work, "proto/a2a.lock.json"), JSON.stringify(lock, null, 2));
  const r = await run(process.execPath, [syncCli], work, { A2A_SPEC_DIR: specDir });
  return { ...r, tool: "sync", dir, outputFiles: listFiles(join(work, "proto/staged")) };
}
