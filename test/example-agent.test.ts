/**
 * The example agent process as `npm run example` runs it (dist-examples/examples/echo-agent/main.js, which
 * pretest's build:examples builds): a single stderr line with exit code 1 when a port is taken or is not a
 * number.
 */
import { spawn } from "node:child_process";
import { createServer, type AddressInfo, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/run.js";

const MAIN = join(repoRoot, "dist-examples/examples/echo-agent/main.js");
/** How long a step may take (a loaded machine starts node slowly). */
const STEP_MS = 20_000;

interface AgentProcess {
  readonly out: () => string;
  readonly err: () => string;
  /** Exit code; rejects if the process has not exited within STEP_MS of the call. */
  readonly exited: () => Promise<number | null>;
  /** Resolves when `test` holds; rejects after STEP_MS or when the process exits first. */
  readonly until: (what: string, test: () => boolean) => Promise<void>;
  readonly kill: () => void;
}

function runAgent(env: Readonly<Record<string, string>>): AgentProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  delete childEnv["PORT"];
  delete childEnv["GRPC_PORT"];
  const child = spawn(process.execPath, [MAIN], { env: { ...childEnv, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const report = () => `\n--- stdout\n${out}--- stderr\n${err}`;
  const exitWithin = () =>
    new Promise<number | null>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no exit within ${STEP_MS} ms${report()}`)), STEP_MS);
      void exit.then((code) => (clearTimeout(t), resolve(code)));
    });
  return {
    out: () => out,
    err: () => err,
    exited: exitWithin,
    until: (what, test) =>
      new Promise<void>((resolve, reject) => {
        const start = Date.now();
        const poll = setInterval(() => {
          if (test()) resolve();
          else if (child.exitCode !== null) reject(new Error(`${what}: exited ${child.exitCode} first${report()}`));
          else if (Date.now() - start > STEP_MS) reject(new Error(`${what}: not within ${STEP_MS} ms${report()}`));
          else return;
          clearInterval(poll);
        }, 20);
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

describe("the example agent's start-up failures", () => {
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    takenPort = (taken.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  const failsWith = async (env: Readonly<Record<string, string>>, line: string) => {
    const agent = runAgent(env);
    try {
      expect(await agent.exited()).toBe(1);
      expect(lines(agent.err())).toEqual([line]);
      expect(agent.out()).toBe("");
    } finally {
      agent.kill();
    }
  };

  it("a taken PORT or GRPC_PORT: one line on stderr, exit code 1", async () => {
    await failsWith(
      { PORT: String(takenPort) },
      `echo agent: port ${takenPort} is in use (EADDRINUSE); set PORT to a free port`,
    );
    await failsWith(
      { PORT: "0", GRPC_PORT: String(takenPort) },
      `echo agent: port ${takenPort} is in use (EADDRINUSE); set GRPC_PORT to a free port`,
    );
  });

  it.each([
    [{ PORT: "abc" }, `echo agent: PORT="abc" is not a port number (0-65535)`],
    [{ PORT: "70000" }, `echo agent: PORT="70000" is not a port number (0-65535)`],
    [{ PORT: "0", GRPC_PORT: "-1" }, `echo agent: GRPC_PORT="-1" is not a port number (0-65535)`],
    [{ PORT: "65535" }, "echo agent: GRPC_PORT defaults to PORT+1 = 65536, not a port number (0-65535); set GRPC_PORT"],
  ])("%o: one line on stderr, exit code 1", (env, line) => failsWith(env, line));
});
