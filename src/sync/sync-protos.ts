/**
 * Stages the pinned A2A protos and the google/api protos they import into one buf
 * module root:
 *
 *   source "dir":      <dir>/<specDirPath>                   --sha256 checked-->  <outDir>/<stagedPath>
 *   source "download": <baseUrl><commit>/<sourcePath>         --sha256 checked-->  <outDir>/<stagedPath>
 *   <googleProtoRoot>/google/api/*.proto (import closure only)               -->  <outDir>/google/api/
 *
 * Rule: collect, then write. Nothing is written unless every pinned file was read or
 * downloaded and matched the sha256 of proto/a2a.lock.json, and every import was found.
 * Every file read is a regular file of at most maxProtoBytes (limits.ts), checked before it
 * is read (a FIFO or a device in a pinned file's place is refused, not opened), and every
 * download is cut off past that size.
 * Errors are SyncErrors whose one-line message names the file or URL (and both hashes).
 */
import { createHash } from "node:crypto";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { defaultTimeoutMs, download } from "./download.js";
import { defaultGoogleProtoRoot, googleImportClosure, importsOf } from "./google-protos.js";
import { SyncError } from "./sync-error.js";
import { maxProtoBytes } from "./limits.js";
import { describeMakeRefusal, makeDirectory } from "../make-directory.js";
import { describeRefusal, readBounded } from "../read-bounded.js";

export { SyncError } from "./sync-error.js";

export interface LockEntry {
  version: string;
  tag: string;
  commit: string;
  /** Path in the upstream repository at `commit`. */
  sourcePath: string;
  /** Path below a local spec folder (A2A_SPEC_DIR). */
  specDirPath: string;
  /** Path below the staging folder. */
  stagedPath: string;
  sha256: string;
}

export interface Lock {
  /** The lock file read, for messages. */
  file: string;
  /** Upstream repository, "owner/name" on GitHub. */
  repository: string;
  inputs: LockEntry[];
}

/** Where the pinned files come from. */
export type SpecSource =
  | { kind: "dir"; dir: string }
  | {
      kind: "download";
      /** Prefix of `<commit>/<sourcePath>`; a trailing "/" is added when missing. */
      baseUrl: string;
      /** Bound on each download; default 30 s. */
      timeoutMs?: number;
    };

export interface SyncOptions {
  lock: Lock;
  source: SpecSource;
  outDir: string;
  /** Folder holding google/api/*.proto; default: google-proto-files, else dist/proto. */
  googleProtoRoot?: string;
  /** Remove outDir before writing (the repository's own proto/staged); default false. */
  clean?: boolean;
}

export interface SyncResult {
  /** stagedPath of each pinned file, in lock order. */
  pinned: string[];
  /** The google/* files staged, sorted. */
  google: string[];
  /** The spec folder or the base URL the pinned files came from. */
  from: string;
  googleProtoRoot: string;
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const entryKeys = ["version", "tag", "commit", "sourcePath", "specDirPath", "stagedPath", "sha256"] as const;

/** The GitHub raw-content prefix for the lock's repository. */
export function defaultBaseUrl(lock: Lock): string {
  return `https://raw.githubusercontent.com/${lock.repository}/`;
}

/** The URL of one pinned file below baseUrl. */
export function pinnedUrl(baseUrl: string, entry: LockEntry): string {
  return `${baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`}${entry.commit}/${entry.sourcePath}`;
}

export function readLock(lockFile: string): Lock {
  let lock: { repository?: unknown; inputs?: unknown };
  const read = readBounded(lockFile, maxProtoBytes);
  if (!read.ok) throw new SyncError(`${lockFile}: cannot read the lock file: ${describeRefusal(read, maxProtoBytes)}`);
  try {
    lock = JSON.parse(read.data.toString("utf8")) as { repository?: unknown; inputs?: unknown };
  } catch (e) {
    throw new SyncError(`${lockFile}: cannot read the lock file: ${(e as Error).message}`);
  }
  if (typeof lock.repository !== "string" || !/^[\w.-]+\/[\w.-]+$/.test(lock.repository)) {
    throw new SyncError(`${lockFile}: "repository" must name the upstream GitHub repository as "owner/name"`);
  }
  if (!Array.isArray(lock.inputs)) throw new SyncError(`${lockFile}: "inputs" must be a list of pinned files`);
  const inputs = lock.inputs.map((raw: unknown, i) => checkEntry(lockFile, raw, i));
  return { file: lockFile, repository: lock.repository, inputs };
}

function checkEntry(lockFile: string, raw: unknown, i: number): LockEntry {
  const where = `${lockFile}: inputs[${i}]`;
  if (typeof raw !== "object" || raw === null) throw new SyncError(`${where} must be an object`);
  const e = raw as Record<string, unknown>;
  for (const key of entryKeys) {
    if (typeof e[key] !== "string" || e[key] === "") throw new SyncError(`${where}.${key} must be a non-empty string`);
  }
  for (const key of ["sourcePath", "specDirPath", "stagedPath"] as const) {
    const path = e[key] as string;
    if (isAbsolute(path) || path.split(/[\\/]/).includes("..")) {
      throw new SyncError(`${where}.${key} must be a relative path without "..", not "${path}"`);
    }
  }
  if (!/^[0-9a-f]{64}$/.test(e["sha256"] as string)) throw new SyncError(`${where}.sha256 must be 64 hex digits`);
  return e as unknown as LockEntry;
}

export async function syncProtos(opts: SyncOptions): Promise<SyncResult> {
  const { lock, source } = opts;
  const pinned =
    source.kind === "dir" ? lock.inputs.map((e) => readFromDir(source.dir, e)) : await downloadAll(lock, source);
  const googleProtoRoot = opts.googleProtoRoot ?? defaultGoogleProtoRoot();
  const google = googleImportClosure(
    googleProtoRoot,
    pinned.flatMap((p) => importsOf(p.data.toString("utf8"))),
  );

  if (opts.clean) rmSync(opts.outDir, { recursive: true, force: true });
  const write = (rel: string, data: Buffer) => {
    const to = join(opts.outDir, rel);
    const refused = makeDirectory(dirname(to));
    if (refused) throw new SyncError(describeMakeRefusal(refused));
    writeFileSync(to, data);
  };
  for (const p of pinned) write(p.entry.stagedPath, p.data);
  for (const [path, data] of google) write(path, data);
  return {
    pinned: pinned.map((p) => p.entry.stagedPath),
    google: [...google.keys()],
    from: source.kind === "dir" ? source.dir : source.baseUrl,
    googleProtoRoot,
  };
}

interface Pinned {
  entry: LockEntry;
  data: Buffer;
}

function checkHash(where: string, e: LockEntry, data: Buffer): Pinned {
  const actual = sha256(data);
  if (actual !== e.sha256) {
    throw new SyncError(
      `${where}: sha256 mismatch for ${e.version} (${e.tag}, ${e.sourcePath}): expected ${e.sha256}, found ${actual}`,
    );
  }
  return { entry: e, data };
}

function readFromDir(specDir: string, e: LockEntry): Pinned {
  const from = resolve(specDir, e.specDirPath);
  if (!existsSync(from)) {
    throw new SyncError(
      `${from}: pinned file for ${e.version} (${e.tag}, ${e.sourcePath}) is missing; expected sha256 ${e.sha256}. ` +
        `Set A2A_SPEC_DIR to the folder that holds ${e.specDirPath}.`,
    );
  }
  const read = readBounded(from, maxProtoBytes);
  if (read.ok) return checkHash(from, e, read.data);
  if (read.kind === "io") throw new SyncError(`${from}: cannot read the pinned file for ${e.version}: ${read.code}`);
  throw new SyncError(
    `${from}: the pinned file for ${e.version} (${e.tag}, ${e.sourcePath}) is ` +
      `${describeRefusal(read, maxProtoBytes)}; ` +
      `a pinned proto is a regular file of at most ${maxProtoBytes} bytes (expected sha256 ${e.sha256})`,
  );
}

/** Downloads every pinned file at once; reports the first failure in lock order. */
async function downloadAll(lock: Lock, source: { baseUrl: string; timeoutMs?: number }): Promise<Pinned[]> {
  const paths = lock.inputs.map((e) => e.specDirPath).join(", ");
  const hint = `Set A2A_SPEC_DIR to a folder with the pinned files (${paths}).`;
  const settled = await Promise.allSettled(
    lock.inputs.map(async (e) => {
      const url = pinnedUrl(source.baseUrl, e);
      return checkHash(url, e, await download(url, source.timeoutMs ?? defaultTimeoutMs, maxProtoBytes, hint));
    }),
  );
  return settled.map((s) => {
    if (s.status === "rejected") throw s.reason;
    return s.value;
  });
}
