/**
 * The example agent as a child process, as `npm run example` runs it: node on
 * dist-examples/examples/echo-agent/main.js (built by `npm run build:examples`),
 * PORT=0 and GRPC_PORT=0 unless the caller sets them, the caller's env added
 * (DATABASE_URL for the PostgreSQL store). `startExampleProcess` resolves once
 * the process has printed its URLs, and rejects (with its output) when it exits
 * first or prints nothing within STEP_MS.
 *
 * With `{ heapProbe: true }` node also gets --expose-gc and a preloaded
 * listener on an IPC channel (nothing in the example changes): `heapUsed()`
 * then answers process.memoryUsage().heapUsed after two full collections.
 *
 * Every process started here is killed (SIGKILL, with its process group: on
 * another runtime, main.js runs the agent as its own child) by `stop()`, by
 * `stopAllExampleProcesses()`, and, as a last resort, when the test process
 * exits, so a failing test leaves no agent behind.
 *
 * `{ runtime: "bun" | "deno" | "workerd" }` passes `--runtime` (runtimes/), `{ framework }` `--framework`
 * (frameworks/): the agent then serves HTTP only, and its start is its HTTP+JSON line (urls.grpc is "").
 *
 * Protecting it with API keys (auth-env.ts): `apiKeysFile` writes an API_KEYS
 * file (removed when the test process exits) for a child process, and
 * `apiKeySecurity` makes the same security for `startEchoAgent({ security })`
 * in process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { securityFromEnv, type AgentSecurity } from "../../examples/echo-agent/auth-env.js";
import { repoRoot } from "./run.js";

export const EXAMPLE_MAIN = join(repoRoot, "dist-examples/examples/echo-agent/main.js");
/** How long a start or a stop may take (a loaded machine starts node slowly). */
const STEP_MS = 30_000;

export interface ExampleProcess {
  readonly pid: number;
  readonly urls: { readonly card: string; readonly jsonrpc: string; readonly rest: string; readonly grpc: string };
  /** What it wrote so far. */
  readonly out: () => string;
  readonly err: () => string;
  /** Kills it (SIGKILL) and resolves once it has exited. */
  stop(): Promise<void>;
  /** Whether it still runs. */
  alive(): boolean;
  /** Its heap in use after full collections (only with heapProbe). */
  heapUsed(): Promise<number>;
}

export interface ExampleProcessOptions {
  /** Start node with --expose-gc and the heap probe (see the header). */
  readonly heapProbe?: boolean;
  /** The runtime of the agent's HTTP side (`--runtime`); default node. */
  readonly runtime?: "bun" | "deno" | "workerd";
  /** The framework the agent's HTTP side is mounted in (`--framework`, on Node). */
  readonly framework?: "express" | "fastify" | "hono";
}

/** Kills a child started here and its process group (SIGKILL). */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** Preloaded with heapProbe: answers "heap" on the IPC channel with the heap in use after collecting. */
const HEAP_PROBE =
  "data:text/javascript," +
  encodeURIComponent(
    'process.on("message", (m) => { if (m !== "heap") return; globalThis.gc(); globalThis.gc(); ' +
      "process.send({ heapUsed: process.memoryUsage().heapUsed }); });",
  );

/** Asks a probed child for its heap in use (bounded by STEP_MS). */
function probeHeap(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example agent ${child.pid}: no heap answer`)), STEP_MS);
    child.once("message", (m: { heapUsed: number }) => {
      clearTimeout(timer);
      resolve(m.heapUsed);
    });
    child.send("heap");
  });
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) killGroup(child);
});

/**
 * An API_KEYS file: one `<key> <principal-id>` line per entry of `keys` (principal id → key), or `text` as it
 * is, for the lines auth-env.ts must refuse.
 */
export function apiKeysFile(keys: Readonly<Record<string, string>> | string): string {
  const dir = mkdtempSync(join(tmpdir(), "echo-api-keys-"));
  const file = join(dir, "api-keys");
  const text =
    typeof keys === "string"
      ? keys
      : Object.entries(keys)
          .map(([principal, key]) => `${key} ${principal}\n`)
          .join("");
  writeFileSync(file, text);
  return file;
}

/** The example's security with these API keys (principal id → key), as main.ts makes it from API_KEYS. */
export function apiKeySecurity(keys: Readonly<Record<string, string>>): AgentSecurity {
  const made = securityFromEnv({ API_KEYS: apiKeysFile(keys) });
  if ("problem" in made) throw new Error(made.problem);
  if (!made.security) throw new Error("securityFromEnv made no security from API_KEYS");
  return made.security;
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  killGroup(child);
  return exit;
}

/** The URL printed after `label` in the agent's start banner. */
function printed(out: string, label: string): string | undefined {
  return new RegExp(`^ {2}${label}\\s+(\\S+)$`, "m").exec(out)?.[1];
}

export function startExampleProcess(
  env: Readonly<Record<string, string>>,
  options: ExampleProcessOptions = {},
): Promise<ExampleProcess> {
  if (!existsSync(EXAMPLE_MAIN)) throw new Error(`${EXAMPLE_MAIN} is missing: run \`npm run build:examples\``);
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: "0", GRPC_PORT: "0", ...env };
  const probe = options.heapProbe === true;
  const runtime = options.runtime === undefined ? [] : ["--runtime", options.runtime];
  const framework = options.framework === undefined ? [] : ["--framework", options.framework];
  const httpOnly = runtime.length > 0 || framework.length > 0;
  const args = [...(probe ? ["--expose-gc", "--import", HEAP_PROBE] : []), EXAMPLE_MAIN, ...runtime, ...framework];
  const stdio = probe ? (["ignore", "pipe", "pipe", "ipc"] as const) : (["ignore", "pipe", "pipe"] as const);
  const child = spawn(process.execPath, args, { env: childEnv, stdio: [...stdio], detached: true });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const report = () => `\n--- stdout\n${out}--- stderr\n${err}`;
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearInterval(poll);
      void killed(child).then(() => reject(new Error(`example agent ${child.pid}: ${why}${report()}`)));
    };
    const start = Date.now();
    const poll = setInterval(() => {
      const grpc = httpOnly ? printed(out, "HTTP\\+JSON") && "" : printed(out, "gRPC");
      if (grpc !== undefined) {
        clearInterval(poll);
        const urls = {
          card: printed(out, "agent card")!,
          jsonrpc: printed(out, "JSON-RPC")!,
          rest: printed(out, "HTTP\\+JSON")!,
          grpc,
        };
        resolve({
          pid: child.pid!,
          urls,
          out: () => out,
          err: () => err,
          stop: () => killed(child),
          alive: () => child.exitCode === null && child.signalCode === null,
          heapUsed: () => (probe ? probeHeap(child) : Promise.reject(new Error("started without heapProbe"))),
        });
      } else if (child.exitCode !== null) fail(`exited with ${child.exitCode} before printing its URLs`);
      else if (Date.now() - start > STEP_MS) fail(`printed no URLs within ${STEP_MS} ms`);
    }, 20);
  });
}

/** Kills every example process still running (for afterAll). */
export async function stopAllExampleProcesses(): Promise<void> {
  await Promise.all([...running].map(killed));
}
