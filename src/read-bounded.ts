/**
 * Reads an input file (a pinned proto, an override file, an OpenAPI document) that must be a regular file of
 * at most `limit` bytes.
 *
 * Rule: the path is stat'ed first, which never blocks, and anything but a regular file (a FIFO, a device, a
 * folder, a socket) is refused unopened; a file whose stat size is over the limit is refused unread. A regular
 * file is then opened non-blocking, checked again on the descriptor (it may have been swapped since), and read
 * in whole chunks of 64 KiB (some procfs files take only reads of whole records) until the end or past
 * `limit`: files that report a size they do not hold (procfs reports 0) are refused once they go past the
 * limit, so no more than one chunk beyond the limit is ever read. The caller words the refusal and
 * names the file; this module says only what was found.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";

export type BoundedRead =
  | { readonly ok: true; readonly data: Buffer }
  /** Not a regular file: what it is ("a FIFO", "a folder", ...). */
  | { readonly ok: false; readonly kind: "type"; readonly what: string }
  /** Over the limit: `size` is the stat size when it said so, else undefined (it grew past the limit while read). */
  | { readonly ok: false; readonly kind: "size"; readonly size: number | undefined; readonly reported: number }
  /** The system refused: the error code (ENOENT, EACCES, ...). */
  | { readonly ok: false; readonly kind: "io"; readonly code: string };

const chunkBytes = 64 * 1024;

/** What a stat says a path is, in words for a message. */
export function fileKind(s: Stats): string {
  if (s.isFIFO()) return "a FIFO";
  if (s.isCharacterDevice()) return "a character device";
  if (s.isBlockDevice()) return "a block device";
  if (s.isDirectory()) return "a folder";
  if (s.isSocket()) return "a socket";
  return s.isFile() ? "a regular file" : "not a file";
}

export function readBounded(path: string, limit: number): BoundedRead {
  let fd: number | undefined;
  try {
    const before = statSync(path);
    if (!before.isFile()) return { ok: false, kind: "type", what: fileKind(before) };
    if (before.size > limit) return { ok: false, kind: "size", size: before.size, reported: before.size };
    // O_NONBLOCK: should a FIFO have taken the file's place since the stat, opening it does not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, kind: "type", what: fileKind(stat) };
    if (stat.size > limit) return { ok: false, kind: "size", size: stat.size, reported: stat.size };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > limit) return { ok: false, kind: "size", size: undefined, reported: stat.size };
    }
    return { ok: true, data: Buffer.concat(chunks, total) };
  } catch (e) {
    return { ok: false, kind: "io", code: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * What was found, in words for after the caller's "<path>: " and before its rule: "a FIFO, not a regular
 * file", "9437184 bytes", "more than 8388608 bytes (it reports a size of 0)", "cannot read: EACCES".
 */
export function describeRefusal(r: Exclude<BoundedRead, { ok: true }>, limit: number): string {
  switch (r.kind) {
    case "type":
      return `${r.what}, not a regular file`;
    case "size":
      return r.size !== undefined ? `${r.size} bytes` : `more than ${limit} bytes (it reports a size of ${r.reported})`;
    case "io":
      return `cannot read: ${r.code}`;
  }
}
