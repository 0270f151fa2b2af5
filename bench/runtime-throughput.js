// The echo agent's HTTP side on Node, Bun and Deno (issue 28): req/s of JSON-RPC SendMessage ("hello": a task
// created, echoed and completed in memory) against the same agent code (runtime-server.js) on each runtime,
// Bun and Deno from npm. Each server is its own child process, the load another (throughput-load.js:
// autocannon, 50 connections, a 1 s warm-up dropped, then BENCH_SERVER_SECONDS, default 5); 2 rounds
// interleaved, the better of each kept; servers pinned to CPU 0 and the load to CPU 1 where taskset exists.
// Prints req/s and the ratio of Bun and Deno to Node; asserts nothing. Needs `npm run build:examples`.
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./buf-request.js";
import { fmtRatio, fmtRps, isMain } from "./stats.js";

const DURATION_S = Number(process.env.BENCH_SERVER_SECONDS) || 5;
const ROUNDS = 2;
const serverScript = join(repoRoot, "bench", "runtime-server.js");
const loadScript = join(repoRoot, "bench", "throughput-load.js");
const bin = (name) => join(repoRoot, "node_modules", ".bin", name);

const RUNTIMES = {
  node: [process.execPath, [serverScript]],
  bun: [bin("bun"), [serverScript]],
  deno: [bin("deno"), ["run", "-A", "--node-modules-dir=manual", "--cached-only", serverScript]],
};

const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hello" }] } },
});

const children = new Set();
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

function pinned(cpu, cmd, args) {
  const canPin =
    process.platform === "linux" &&
    availableParallelism() >= 2 &&
    spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" }).status === 0;
  return canPin ? ["taskset", ["-c", cpu, cmd, ...args]] : [cmd, args];
}

/** Starts a runtime's server; resolves with its child and port. */
function startServer(runtime) {
  const [cmd, args] = pinned("0", ...RUNTIMES[runtime]);
  const env = { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
  const child = spawn(cmd, args, { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"], env });
  children.add(child);
  let err = "";
  child.stderr.on("data", (c) => (err += c));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${runtime}: no port within 20 s ${err}`)), 20_000);
    child.stdout.on("data", (c) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      resolve({ child, port: JSON.parse(out.slice(0, nl)).port });
    });
    child.once("error", (e) => reject(new Error(`${runtime}: ${e.message}`)));
    child.once("exit", (code) => reject(new Error(`${runtime} exited with ${code}: ${err}`)));
  });
}

/** One measured run against a server; resolves with throughput-load.js's result. */
function load(server) {
  const cfg = {
    url: `http://127.0.0.1:${server.port}/a2a/jsonrpc`,
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: BODY,
    connections: 50,
    warmupS: 1,
    durationS: DURATION_S,
    serverPid: server.child.pid,
  };
  const [cmd, args] = pinned("1", process.execPath, [loadScript, JSON.stringify(cfg)]);
  const child = spawn(cmd, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), (DURATION_S + 25) * 1000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`load generator exited with ${code}`));
    });
  });
}

/** req/s per runtime (null: it could not start, with a warning) and the ratios to Node. */
export async function benchRuntimeThroughput({ log = console.log, warn = console.warn } = {}) {
  const servers = {};
  for (const runtime of Object.keys(RUNTIMES)) {
    try {
      servers[runtime] = await startServer(runtime);
    } catch (e) {
      warn(`runtime throughput: ${e.message}; skipped`);
    }
  }
  const best = {};
  for (let round = 1; round <= ROUNDS; round++)
    for (const [runtime, server] of Object.entries(servers)) {
      const r = await load(server);
      log(`  round ${round} ${runtime}: ${fmtRps(r.rps)} (server ${r.serverCpu?.toFixed(2) ?? "n/a"} core)`);
      best[runtime] = Math.max(best[runtime] ?? 0, r.rps);
    }
  for (const server of Object.values(servers)) server.child.stdin.end();
  const rps = Object.fromEntries(Object.keys(RUNTIMES).map((r) => [r, best[r] ?? null]));
  const ratio = (r) => (rps[r] !== null && rps.node ? rps[r] / rps.node : null);
  return { rps, bunVsNode: ratio("bun"), denoVsNode: ratio("deno") };
}

if (isMain(import.meta.url)) {
  const r = await benchRuntimeThroughput();
  const cell = (x) => (x === null ? "n/a" : fmtRatio(x));
  console.log(
    `echo agent HTTP side, JSON-RPC SendMessage: Node ${fmtRps(r.rps.node ?? 0)}, ` +
      `Bun ${fmtRps(r.rps.bun ?? 0)} (${cell(r.bunVsNode)}), Deno ${fmtRps(r.rps.deno ?? 0)} (${cell(r.denoVsNode)})`,
  );
  process.exit(0);
}
