/**
 * Stages the pinned A2A protos and the google/api protos they import into
 * one buf module root, offline:
 *
 *   <specDir>/<specDirPath>  --sha256 checked-->  <stagedDir>/<stagedPath>
 *   google-proto-files/google/api/*.proto  -->  <stagedDir>/google/api/ (import closure only)
 *
 * Nothing is written unless every pinned file exists and matches its hash.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";

export interface LockEntry {
  version: string;
  tag: string;
  commit: string;
  sourcePath: string;
  specDirPath: string;
  stagedPath: string;
  sha256: string;
}

export interface SyncOptions {
  lockFile: string;
  specDir: string;
  stagedDir: string;
  /** Where google/api/*.proto live; defaults to the google-proto-files package. */
  googleProtoRoot?: string;
}

export class SyncError extends Error {
  override name = "SyncError";
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const importRe = /^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;/gm;

export function readLock(lockFile: string): LockEntry[] {
  let lock: { inputs?: LockEntry[] };
  try {
    lock = JSON.parse(readFileSync(lockFile, "utf8")) as { inputs?: LockEntry[] };
  } catch (e) {
    throw new SyncError(`${lockFile}: cannot read the lock file: ${(e as Error).message}`);
  }
  if (!Array.isArray(lock.inputs)) throw new SyncError(`${lockFile}: "inputs" must be a list of pinned files`);
  return lock.inputs;
}

function readPinned(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new SyncError(`${file}: cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export function syncProtos(opts: SyncOptions): { staged: string[] } {
  const entries = readLock(opts.lockFile);
  const pinned = entries.map((e) => {
    const from = resolve(opts.specDir, e.specDirPath);
    if (!existsSync(from)) {
      throw new SyncError(
        `${from}: pinned file for ${e.version} (${e.tag}, ${e.sourcePath}) is missing; expected sha256 ${e.sha256}. ` +
          `Set A2A_SPEC_DIR to the folder that holds ${e.specDirPath}.`,
      );
    }
    const data = readPinned(from, `the pinned file for ${e.version}`);
    const actual = sha256(data);
    if (actual !== e.sha256) {
      throw new SyncError(
        `${from}: sha256 mismatch for ${e.version} (${e.tag}, ${e.sourcePath}): expected ${e.sha256}, found ${actual}`,
      );
    }
    return { entry: e, data };
  });

  const googleRoot = opts.googleProtoRoot ?? dirname(createRequire(import.meta.url).resolve("google-proto-files/package.json"));
  const google = new Map<string, Buffer>();
  const pending = pinned.flatMap((p) => importsOf(p.data.toString("utf8")));
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (google.has(path) || path.startsWith("google/protobuf/")) continue; // WKTs ship with buf and protoc
    const file = join(googleRoot, path);
    if (!existsSync(file)) throw new SyncError(`${file}: imported as "${path}" but not found in ${googleRoot}`);
    const data = readPinned(file, `"${path}"`);
    google.set(path, data);
    pending.push(...importsOf(data.toString("utf8")));
  }

  rmSync(opts.stagedDir, { recursive: true, force: true });
  const staged: string[] = [];
  const write = (rel: string, data: Buffer) => {
    const to = join(opts.stagedDir, rel);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, data);
    staged.push(rel);
  };
  for (const p of pinned) write(p.entry.stagedPath, p.data);
  for (const [path, data] of [...google].sort(([a], [b]) => a.localeCompare(b))) write(path, data);
  return { staged };
}

function importsOf(source: string): string[] {
  return [...source.matchAll(importRe)].map((m) => m[1]!);
}
