/**
 * The sync step reads bounded inputs (issue 24): a pinned file must be a regular file of at most 8 MiB,
 * checked before it is opened or read, and a download is cut off past 8 MiB. Each refusal is one line naming
 * the file (and its size) or the URL, and nothing is written.
 *
 * In place of the pinned v1.0.1/a2a.proto of a copy of the spec folder: a 1 GiB sparse file (which a sync
 * that read it whole held in 1.09 GB of memory), a FIFO (which hung it; run as a child process with a
 * timeout, since a blocked read cannot be interrupted in-process), a folder. Against a real HTTP server on
 * 127.0.0.1: a response that announces 1 GiB, and one that streams without end and without a length.
 * Needs `npm run build` (dist/).
 */
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, openSync, closeSync, ftruncateSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxProtoBytes } from "../../src/sync/limits.js";
import { pinnedUrl, syncProtos } from "../../src/sync/sync-protos.js";
import { pluginBin, tempDir } from "../helpers/run.js";
import { lock, specDir } from "../helpers/spec-server.js";

const [older, newer] = [lock.inputs[0]!, lock.inputs[1]!];

/** A copy of the spec folder with `place(path)` making whatever stands at the newer pinned file. */
function specWith(place: (path: string) => void): { dir: string; path: string } {
  const dir = tempDir("sync-bounds-spec");
  for (const e of [older, newer]) mkdirSync(join(dir, e.specDirPath, ".."), { recursive: true });
  copyFileSync(join(specDir, older.specDirPath), join(dir, older.specDirPath));
  const path = join(dir, newer.specDirPath);
  place(path);
  return { dir, path };
}

const refusal = (path: string, what: string) =>
  `${path}: the pinned file for ${newer.version} (${newer.tag}, ${newer.sourcePath}) is ${what}; ` +
  `a pinned proto is a regular file of at most 8388608 bytes (expected sha256 ${newer.sha256})`;

/** `protoc-gen-a2a sync <out>` as a child process, killed after 20 s. */
function syncCommand(dir: string, out: string): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  const env = { ...process.env, A2A_SPEC_DIR: dir };
  return new Promise((done) => {
    execFile(process.execPath, [pluginBin, "sync", out], { env, timeout: 20_000 }, (err, _stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
      done({ code, stderr: String(stderr), killed: err?.killed ?? false });
    });
  });
}

describe("a pinned file that is not a small regular file", () => {
  it("is 8 MiB at most", () => {
    expect(maxProtoBytes).toBe(8 * 1024 * 1024);
  });

  it("a 1 GiB file: refused before it is read, naming the path and the size", async () => {
    const { dir, path } = specWith((p) => {
      const fd = openSync(p, "w");
      ftruncateSync(fd, 1024 ** 3); // sparse: costs no disk
      closeSync(fd);
    });
    const outDir = join(tempDir("sync-bounds-out"), "staged");
    const run = syncProtos({ lock, source: { kind: "dir", dir }, outDir });
    await expect(run).rejects.toThrow(refusal(path, "1073741824 bytes"));
    expect(existsSync(outDir)).toBe(false);
  });

  it("a file one byte over 8 MiB is refused; the limit itself is a size, not a content check", async () => {
    const { dir, path } = specWith((p) => {
      const fd = openSync(p, "w");
      ftruncateSync(fd, maxProtoBytes + 1);
      closeSync(fd);
    });
    const run = syncProtos({ lock, source: { kind: "dir", dir }, outDir: join(tempDir("sync-bounds-out"), "s") });
    await expect(run).rejects.toThrow(refusal(path, "8388609 bytes"));
  });

  it("a FIFO: refused without blocking, one line on stderr, exit 1", async () => {
    const { dir, path } = specWith((p) => execFileSync("mkfifo", [p]));
    const out = join(tempDir("sync-bounds-out"), "protos");
    const r = await syncCommand(dir, out);
    expect(r.killed, "the sync blocked on the FIFO").toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`protoc-gen-a2a sync: ${refusal(path, "a FIFO, not a regular file")}\n`);
    expect(existsSync(out)).toBe(false);
  });

  it("a folder: refused, naming it", async () => {
    const { dir, path } = specWith((p) => mkdirSync(p));
    const run = syncProtos({ lock, source: { kind: "dir", dir }, outDir: join(tempDir("sync-bounds-out"), "s") });
    await expect(run).rejects.toThrow(refusal(path, "a folder, not a regular file"));
  });
});

describe("a download larger than 8 MiB", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunk = Buffer.alloc(64 * 1024, "x");
      if (req.url!.startsWith("/announced/")) {
        // Announces 1 GiB, then sends as long as the client reads.
        res.writeHead(200, { "content-length": String(1024 ** 3) });
      } else {
        res.writeHead(200); // chunked, no length, no end
      }
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );

  it("announced by its Content-Length: refused before the body is read, naming the URL", async () => {
    const baseUrl = `${base}/announced/`;
    const outDir = join(tempDir("sync-bounds-dl"), "s");
    const run = syncProtos({ lock, source: { kind: "download", baseUrl, timeoutMs: 15_000 }, outDir });
    await expect(run).rejects.toThrow(
      `${pinnedUrl(baseUrl, older)}: the response is 1073741824 bytes (Content-Length); ` +
        "a pinned file is at most 8388608 bytes. Set A2A_SPEC_DIR to a folder with the pinned files",
    );
    expect(existsSync(outDir)).toBe(false);
  });

  it("streamed without a length: cut off past 8 MiB, naming the URL", async () => {
    const baseUrl = `${base}/endless/`;
    const outDir = join(tempDir("sync-bounds-dl"), "s");
    const run = syncProtos({ lock, source: { kind: "download", baseUrl, timeoutMs: 15_000 }, outDir });
    await expect(run).rejects.toThrow(
      `${pinnedUrl(baseUrl, older)}: the response is more than 8388608 bytes (cut off there); ` +
        "a pinned file is at most 8388608 bytes. Set A2A_SPEC_DIR to a folder with the pinned files",
    );
    expect(existsSync(outDir)).toBe(false);
  });
});
