/**
 * The google/api protos the pinned A2A protos import, and where they are read from.
 *
 * Rule: only the import closure is staged (the files named by `import`, then theirs,
 * transitively); google/protobuf/* is skipped, since buf and protoc ship the well-known
 * types. The files come from the google-proto-files package when it is resolvable (this
 * repository, as a devDependency), else from `dist/proto/`, where `npm run build`
 * copies the closure of `googleApiRoots` so that the published package needs no
 * 83 MB dependency. Every missing file is an error naming the file and the root; each file
 * is read as the pinned ones are (a regular file of at most maxProtoBytes, limits.ts).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SyncError } from "./sync-error.js";
import { maxProtoBytes } from "./limits.js";
import { describeRefusal, readBounded } from "../read-bounded.js";
import { distRoot } from "../package-paths.js";

/**
 * The google/api files the pinned protos import (v0.3.0 and v1.0.1 import the same
 * three). The build ships their closure; test/sync checks it covers the lock.
 */
export const googleApiRoots: readonly string[] = [
  "google/api/annotations.proto",
  "google/api/client.proto",
  "google/api/field_behavior.proto",
];

const importRe = /^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;/gm;

/** The paths named by the `import` statements of a proto source. */
export function importsOf(source: string): string[] {
  return [...source.matchAll(importRe)].map((m) => m[1]!);
}

/** The folder `npm run build` fills with the closure of googleApiRoots (dist/proto). */
export function shippedGoogleProtoRoot(): string {
  return fileURLToPath(new URL("proto", distRoot));
}

/** google-proto-files when resolvable, else the protos shipped in dist/proto. */
export function defaultGoogleProtoRoot(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve("google-proto-files/package.json"));
  } catch {
    const shipped = shippedGoogleProtoRoot();
    if (existsSync(join(shipped, "google/api"))) return shipped;
    throw new SyncError(
      `${join(shipped, "google/api")}: missing, and the google-proto-files package is not installed; ` +
        "run `npm run build` (it copies the google/api protos there) or install google-proto-files.",
    );
  }
}

/**
 * Reads, from googleRoot, every file reachable from `imports`
 * (google/protobuf/* excepted). Returns relative path → bytes, sorted by path (by code units, so in
 * the same order on every machine, whatever its locale).
 */
export function googleImportClosure(googleRoot: string, imports: readonly string[]): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  const pending = [...imports];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (found.has(path) || path.startsWith("google/protobuf/")) continue; // WKTs ship with buf and protoc
    const file = join(googleRoot, path);
    if (!existsSync(file)) throw new SyncError(`${file}: imported as "${path}" but not found in ${googleRoot}`);
    const read = readBounded(file, maxProtoBytes);
    if (!read.ok) {
      const rule =
        read.kind === "io" ? "" : `; an imported proto must be a regular file of at most ${maxProtoBytes} bytes`;
      throw new SyncError(`${file}: cannot read "${path}": ${describeRefusal(read, maxProtoBytes)}${rule}`);
    }
    found.set(path, read.data);
    pending.push(...importsOf(read.data.toString("utf8")));
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
