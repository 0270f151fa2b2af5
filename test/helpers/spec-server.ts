/**
 * For the sync tests: a real HTTP server on 127.0.0.1 that serves the pinned protos
 * the way raw.githubusercontent.com does, at <base>/<commit>/<sourcePath>, and a way to
 * run the sync CLIs as child processes while that server answers.
 *
 * Rule: the served bytes are read from the local spec folder found the way the repository
 * finds it (A2A_SPEC_DIR, else ../shared/a2a-spec beside the checkout), at the paths the
 * repository's lock names. Bases: /ok/ serves the pinned bytes; /tampered/ serves the last
 * pinned file with a line appended; /missing/ answers 404; /silent/ never answers.
 * Children run with the A2A_SPEC_* variables cleared, then set from the call.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { readLock } from "../../src/sync/sync-protos.js";
import { repoRoot } from "./run.js";

export const lock = readLock(join(repoRoot, "proto/a2a.lock.json"));
export const specDir = resolve(repoRoot, process.env["A2A_SPEC_DIR"] || "../shared/a2a-spec");
export const syncCli = join(repoRoot, "dist/sync/cli.js");
export const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** The pinned bytes of each lock entry, in lock order. */
export const pinnedBytes = lock.inputs.map((e) => readFileSync(join(specDir, e.specDirPath)));
/** What /tampered/ serves for the last lock entry. */
export const tamperedBytes = Buffer.concat([pinnedBytes.at(-1)!, Buffer.from("// tampered\n")]);

export type Base = "ok" | "tampered" | "missing" | "silent";

export interface SpecServer {
  /** The base URL to put in A2A_SPEC_BASE_URL, ending in "/". */
  baseUrl(base: Base): string;
  /** Paths requested so far. */
  requests: string[];
  close(): Promise<void>;
}

export async function startSpecServer(): Promise<SpecServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? "";
    requests.push(path);
    const [, base, ...rest] = path.split("/");
    if (base === "silent") return; // never answers: the client's timeout must fire
    const i = lock.inputs.findIndex((e) => rest.join("/") === `${e.commit}/${e.sourcePath}`);
    if (i < 0 || base === "missing" || (base !== "ok" && base !== "tampered")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("404: Not Found");
      return;
    }
    const tampered = base === "tampered" && i === lock.inputs.length - 1;
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(tampered ? tamperedBytes : pinnedBytes[i]);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: (base) => `http://127.0.0.1:${port}/${base}/`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A base URL on 127.0.0.1 whose port was bound, then closed: nothing listens there. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return `http://127.0.0.1:${port}/`;
}

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <args>` without blocking this process's event loop (the server must answer). */
export function runNode(args: string[], cwd: string, env: Record<string, string> = {}): Promise<NodeRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("A2A_SPEC_")));
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, env: { ...base, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
