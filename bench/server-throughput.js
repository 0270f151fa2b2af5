// Figure 4: HTTP server throughput (req/s) of our generated v1.0.1 server,
// JSON-RPC and HTTP+JSON (REST), against @a2a-js/sdk 1.3.0 on the same
// bindings, and against a bare node:http server (the ceiling).
//
// Setup (everything on 127.0.0.1, nothing shares a process):
//   - each target gets its own server child process (throughput-server.js:
//     "ours", "a2a-js" or "bare"; ours and a2a-js each run twice, once per
//     binding); all are started and checked first, idle while another target
//     is measured, and killed at the end, also on error (plus SIGKILL on
//     exit); a server also exits by itself when its stdin closes;
//   - the load comes from a separate child process running autocannon's API
//     (throughput-load.js): 50 connections, no pipelining, a 1 s warm-up run
//     (dropped) then a 2 s measured run; req/s = 2xx answers / measured time;
//   - 5 rounds over all targets, interleaved, and the best round of each
//     target is kept (interference from the VM/neighbours only lowers a
//     figure; many short rounds give every target more chances at a quiet
//     moment than few long ones); every round is printed. A ratio is of two
//     targets' best rounds: a median of per-round ratios was tried and
//     followed the machine's drift between targets measured far apart in a
//     round (REST against bare read 0.74x in a run where best rounds gave
//     0.54x);
//   - on a machine with 2+ cores and `taskset` available, every server is
//     pinned to CPU 0 and the load generator to CPU 1, so the two never
//     compete for a core (BENCH_NO_PIN=1 turns pinning off); the orchestrator
//     (this process) only waits while a target is measured;
//   - before measuring, one request checks each target answers 200 with the
//     expected result (the agent message "ok"); a target that does not is
//     skipped with a warning, and ratios involving it are not printed.
// The protobuf-es floor (typed-floor: node:http doing only the parse, fromJson, create, toJson and
// stringify of a JSON-RPC SendMessage) runs against bare and ours against it: what of the gap to bare is
// protobuf-es's typing, and what is ours.
// Ours also runs behind authentication (ours-apikey: an API key in X-API-Key;
// ours-jwt: an ES256 JWT bearer token checked by jwtBearer against a JWKS the
// server process serves itself), JSON-RPC only, each against ours without it.
// Ours also runs with otelServerInterceptor (ours-otel-noop: the no-op providers of @opentelemetry/api;
// ours-otel-sdk: the SDK with a batch span processor and a periodic metric reader), JSON-RPC only, each
// against ours without it; on the SDK sampling one trace in ten (ours-otel-sampled) against ours without
// it; and with the SDK's floor (ours-otel-floor: one span and one duration record per
// call on the same SDK set-up, no A2A code), against ours without it and against ours-otel-sdk, which shows
// what of the tracing row is the SDK's own cost and what is the interceptor's.
// Both A2A servers run the same trivial agent (SendMessage answers at once
// with one agent Message) and get the same request: a small user message,
// `A2A-Version: 1.0`, JSON-RPC method "SendMessage" or POST
// /a2a/rest/message:send. The server and load generator CPU use during the
// measured run (fraction of one core, from /proc) is printed per target: a
// server at ~1.00 core is the bottleneck; a load generator at ~1.00 means the
// figure is the load generator's limit, not the server's. So is the server's
// CPU time per answered request, which does not depend on which of the two
// was the limit: it compares servers where req/s compares a server with the
// load generator (bare node:http).
// Prints only; asserts no timing.
//
// `node bench/server-throughput.js` runs it alone; BENCH_SERVER_ROUNDS=n runs n rounds (of
// BENCH_SERVER_SECONDS each, default 2), and
// BENCH_SERVER_TARGETS=oursJsonrpc,oursJsonrpcOtelSdk measures only the targets named. `--profile [target…]`
// instead runs each named target (default: oursJsonrpc oursRest; also bare,
// a2aJsJsonrpc, a2aJsRest) once with `node --cpu-prof` on its server child and
// prints the top self-time functions, the inclusive time of the runtime package's
// functions (packages/runtime), and self time by file, over the measured run.
// Needs `npm run build` and `npm run build:examples`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./buf-request.js";
import { fmtRatio, fmtRps, isMain } from "./stats.js";

const HOST = "127.0.0.1";
const CONNECTIONS = 50;
const WARMUP_S = 1;
/** Seconds measured per target and round; BENCH_SERVER_SECONDS sets another. */
const DURATION_S = Number(process.env.BENCH_SERVER_SECONDS) || 2;
/** Seconds of load a --profile run measures (one run per target: longer than a round, for enough samples). */
const PROFILE_S = 5;
/** Rounds over all targets; BENCH_SERVER_ROUNDS sets another number (more rounds, less noise). */
const ROUNDS = Number(process.env.BENCH_SERVER_ROUNDS) || 5;
/** Cores used by the rest of the machine during a kept run above which a warning is printed. */
const OTHER_CPU_WARN = 0.3;

const serverScript = join(repoRoot, "bench", "throughput-server.js");
const loadScript = join(repoRoot, "bench", "throughput-load.js");

const userMessage = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hello" }] };
const JSONRPC_BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: userMessage } });
const REST_BODY = JSON.stringify({ message: userMessage });
const JSONRPC_HEADERS = { "content-type": "application/json", "a2a-version": "1.0" };
const REST_HEADERS = { "content-type": "application/a2a+json", "a2a-version": "1.0" };

/** The agent's "ok" Message inside a SendMessageResponse (ProtoJSON). */
function isOkMessage(res) {
  const m = res?.message;
  return m?.messageId === "r" && m?.role === "ROLE_AGENT" && m?.parts?.[0]?.text === "ok";
}

const ALL_TARGETS = [
  {
    key: "bare",
    label: "bare node:http",
    server: "bare",
    method: "POST",
    path: "/",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.result !== undefined,
  },
  {
    key: "typedFloor",
    label: "protobuf-es floor on node:http",
    server: "typed-floor",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursJsonrpc",
    label: "ours JSON-RPC",
    server: "ours",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "a2aJsJsonrpc",
    label: "a2a-js 1.3.0 JSON-RPC",
    server: "a2a-js",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursJsonrpcApiKey",
    label: "ours JSON-RPC, API key",
    server: "ours-apikey",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: { ...JSONRPC_HEADERS, "x-api-key": "bench-key" },
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursJsonrpcJwt",
    label: "ours JSON-RPC, JWT bearer",
    server: "ours-jwt",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursJsonrpcOtelNoop",
    label: "ours JSON-RPC, tracing (no-op providers)",
    server: "ours-otel-noop",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursJsonrpcOtelSdk",
    label: "ours JSON-RPC, tracing (SDK, batch export)",
    server: "ours-otel-sdk",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursJsonrpcOtelSampled",
    label: "ours JSON-RPC, tracing (SDK, 1 in 10 sampled)",
    server: "ours-otel-sampled",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursJsonrpcOtelFloor",
    label: "ours JSON-RPC, the SDK's floor (one span, one record)",
    server: "ours-otel-floor",
    method: "POST",
    path: "/a2a/jsonrpc",
    headers: JSONRPC_HEADERS,
    body: JSONRPC_BODY,
    check: (j) => j?.jsonrpc === "2.0" && j?.id === 1 && isOkMessage(j?.result),
  },
  {
    key: "oursRest",
    label: "ours REST",
    server: "ours",
    method: "POST",
    path: "/a2a/rest/message:send",
    headers: REST_HEADERS,
    body: REST_BODY,
    check: isOkMessage,
  },
  {
    key: "a2aJsRest",
    label: "a2a-js 1.3.0 REST",
    server: "a2a-js",
    method: "POST",
    path: "/a2a/rest/message:send",
    headers: REST_HEADERS,
    body: REST_BODY,
    check: isOkMessage,
  },
];

// ---- child process bookkeeping: every child we start is killed, whatever happens ----

const children = new Set();
function track(child) {
  children.add(child);
  child.once("exit", () => children.delete(child));
  // A failed spawn emits "error" (and maybe no "exit"); callers time out on it, so just keep it from crashing.
  child.on("error", (e) => process.stderr.write(`warning: child process: ${e.message}\n`));
  return child;
}
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

function stopChild(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

function pinning() {
  if (process.env.BENCH_NO_PIN === "1" || process.platform !== "linux" || availableParallelism() < 2) return null;
  const probe = spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" });
  return probe.status === 0 ? { server: "0", load: "1" } : null;
}

/** Spawns `node <args>`, pinned to `cpu` with taskset (which execs node, so the pid is node's). */
function spawnNode(cpu, nodeArgs, stdio) {
  const [cmd, args] =
    cpu === undefined ? [process.execPath, nodeArgs] : ["taskset", ["-c", cpu, process.execPath, ...nodeArgs]];
  return track(spawn(cmd, args, { cwd: repoRoot, stdio }));
}

async function startServer(kind, cpu, nodeFlags = []) {
  const child = spawnNode(cpu, [...nodeFlags, serverScript, kind], ["pipe", "pipe", "pipe"]);
  const err = [];
  child.stderr.on("data", (c) => err.push(c));
  const { port, headers } = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start within 15 s`)), 15_000);
    child.stdout.on("data", (c) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.slice(0, nl)));
      } catch (e) {
        reject(e);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited with ${code}: ${Buffer.concat(err).toString().trim()}`));
    });
  });
  // A server may name headers every request to it needs (the bearer token it accepts).
  return { child, port, headers: headers ?? {}, stderr: () => Buffer.concat(err).toString().trim() };
}

/** One request; resolves with a reason the target is unusable, or null when it answers as expected. */
async function checkTarget(target, url) {
  try {
    const res = await fetch(url, {
      method: target.method,
      headers: target.headers,
      body: target.body,
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (res.status !== 200) return `HTTP ${res.status}: ${text.slice(0, 300)}`;
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      return `body is not JSON: ${text.slice(0, 300)}`;
    }
    return target.check(json) ? null : `unexpected result: ${text.slice(0, 300)}`;
  } catch (e) {
    return `request failed: ${e.message}`;
  }
}

function runLoad(cfg, cpu) {
  const child = spawnNode(cpu, [loadScript, JSON.stringify(cfg)], ["ignore", "pipe", "pipe"]);
  const out = [];
  const err = [];
  child.stdout.on("data", (c) => out.push(c));
  child.stderr.on("data", (c) => err.push(c));
  const limitMs = (cfg.warmupS + cfg.durationS + 20) * 1000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(
          new Error(
            `load generator ${signal ? `killed (${signal}) after ${limitMs} ms` : `exited with ${code}`}: ${Buffer.concat(err).toString().trim()}`,
          ),
        );
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()));
      } catch (e) {
        reject(new Error(`load generator printed no result: ${e.message}`));
      }
    });
  });
}

const fmtCore = (x) => (x === null || x === undefined ? "n/a" : x.toFixed(2));

/** Starts the target's server and checks it; resolves with the server, or null (skipped, with a warning). */
async function prepareTarget(given, { pin, warn, nodeFlags = [] }) {
  let target = given;
  let server;
  try {
    server = await startServer(target.server, pin?.server, nodeFlags);
  } catch (e) {
    warn(`${target.label}: ${e.message}; skipped`);
    return null;
  }
  target = { ...given, headers: { ...given.headers, ...server.headers } };
  const url = `http://${HOST}:${server.port}${target.path}`;
  const problem = await checkTarget(target, url);
  if (problem) {
    warn(`${target.label}: check request did not answer 200 with the expected result (${problem}); skipped`);
    await stopChild(server.child);
    return null;
  }
  return { ...server, url, target };
}

/** One measured load run against a prepared target; resolves with the load result, or null on failure. */
async function loadTarget(target, server, { pin, warn, connections, warmupS, durationS }) {
  try {
    const r = await runLoad(
      {
        url: server.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        connections,
        warmupS,
        durationS,
        serverPid: server.child.pid,
      },
      pin?.load,
    );
    if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
      warn(
        `${target.label}: ${r.non2xx} non-2xx answers, ${r.errors} errors, ${r.timeouts} timeouts during the run (req/s counts 2xx only)`,
      );
    }
    return r;
  } catch (e) {
    warn(`${target.label}: ${e.message}`);
    return null;
  }
}

/** The server's CPU time per answered request, in µs (serverCpu is a fraction of one core over the run). */
const cpuPerRequest = (r) =>
  r.serverCpu === null || !(r.rps > 0) ? "n/a" : `${((r.serverCpu / r.rps) * 1e6).toFixed(1)} µs`;

function describeRun(label, r) {
  return (
    `  ${label.padEnd(25)} ${fmtRps(r.rps).padStart(11)}   p50 ${r.latencyP50} ms, p99 ${r.latencyP99} ms; ` +
    `CPU (cores): server ${fmtCore(r.serverCpu)}, load ${fmtCore(r.loadCpu)}, other ${fmtCore(r.otherCpu)}, steal ${fmtCore(r.stealCpu)}; ` +
    `server CPU per request ${cpuPerRequest(r)}`
  );
}

export async function benchServerThroughput({
  log = console.log,
  warn = (m) => console.warn(`warning: ${m}`),
  connections = CONNECTIONS,
  warmupS = WARMUP_S,
  durationS = DURATION_S,
  rounds = ROUNDS,
} = {}) {
  const examples = join(repoRoot, "dist-examples", "generated-samples", "v1.0.1", "a2a_a2a.js");
  if (!existsSync(examples)) warn(`${examples} is missing: run \`npm run build:examples\` first`);
  const pin = pinning();
  log(
    `server throughput: ${connections} connections, ${rounds} interleaved round${rounds === 1 ? "" : "s"} of ${warmupS} s warm-up + ${durationS} s measured per target, best round kept; ` +
      (pin
        ? `server pinned to CPU ${pin.server}, load generator (autocannon, own process) to CPU ${pin.load}`
        : "no CPU pinning") +
      `; one server process per target`,
  );
  // BENCH_SERVER_TARGETS=key,key… measures only those targets (ratios of the others print n/a).
  const only = process.env.BENCH_SERVER_TARGETS?.split(",");
  const targets = only ? ALL_TARGETS.filter((t) => only.includes(t.key)) : ALL_TARGETS;
  const runs = Object.fromEntries(targets.map((t) => [t.key, []]));
  try {
    const servers = await Promise.all(targets.map((t) => prepareTarget(t, { pin, warn })));
    for (let round = 1; round <= rounds; round++) {
      for (const [i, target] of targets.entries()) {
        if (!servers[i]) continue;
        const r = await loadTarget(servers[i].target, servers[i], { pin, warn, connections, warmupS, durationS });
        if (!r) continue;
        runs[target.key].push(r);
        log(describeRun(`${target.label} #${round}`, r));
      }
    }
  } finally {
    await Promise.all([...children].map((c) => stopChild(c)));
  }
  const best = (key) => (runs[key].length ? runs[key].reduce((a, b) => (b.rps > a.rps ? b : a)) : null);
  const detail = Object.fromEntries(targets.map((t) => [t.key, best(t.key)]));
  const rps = Object.fromEntries(targets.map((t) => [t.key, detail[t.key]?.rps ?? null]));
  const disturbed = targets
    .filter((t) => (detail[t.key]?.otherCpu ?? 0) > OTHER_CPU_WARN)
    .map((t) => `${t.label} (${fmtCore(detail[t.key].otherCpu)} cores)`);
  if (disturbed.length) {
    warn(
      `other processes used CPU during the kept round of ${disturbed.join(", ")}: those figures may be low; re-run on a quiet machine`,
    );
  }
  const ratio = (a, b) => (rps[a] && rps[b] ? rps[a] / rps[b] : null);
  const ratios = {
    jsonrpcVsA2aJs: ratio("oursJsonrpc", "a2aJsJsonrpc"),
    restVsA2aJs: ratio("oursRest", "a2aJsRest"),
    jsonrpcVsBare: ratio("oursJsonrpc", "bare"),
    restVsBare: ratio("oursRest", "bare"),
    typedFloorVsBare: ratio("typedFloor", "bare"),
    jsonrpcVsTypedFloor: ratio("oursJsonrpc", "typedFloor"),
    apiKeyVsOpen: ratio("oursJsonrpcApiKey", "oursJsonrpc"),
    jwtVsOpen: ratio("oursJsonrpcJwt", "oursJsonrpc"),
    otelNoopVsOpen: ratio("oursJsonrpcOtelNoop", "oursJsonrpc"),
    otelSdkVsOpen: ratio("oursJsonrpcOtelSdk", "oursJsonrpc"),
    otelSampledVsOpen: ratio("oursJsonrpcOtelSampled", "oursJsonrpc"),
    otelFloorVsOpen: ratio("oursJsonrpcOtelFloor", "oursJsonrpc"),
    otelSdkVsFloor: ratio("oursJsonrpcOtelSdk", "oursJsonrpcOtelFloor"),
  };
  return { rps, detail, runs, ratios, pinned: pin !== null, connections, warmupS, durationS, rounds };
}

// ---- --profile: CPU profile of a server under the same load ----

const fileOf = (callFrame) =>
  callFrame.url ? callFrame.url.replace(/^file:\/\//, "").replace(repoRoot + "/", "") : "";

/** Where a function lives, coarsely: a dist/ or bench/ file, a package, node internals by module, or V8 itself. */
function groupOf(file) {
  if (file.startsWith("node_modules/"))
    return file
      .split("/")
      .slice(0, file.startsWith("node_modules/@") ? 3 : 2)
      .join("/");
  if (file.startsWith("node:internal/deps/undici"))
    return "node:internal/deps/undici (Headers, URL helpers, fetch internals)";
  if (file.startsWith("node:")) return file;
  return file || "(V8 / native)";
}

/**
 * Self and inclusive time per function of a V8 .cpuprofile, over the samples of
 * the last `windowMs` of the profile (the measured run: the server is stopped
 * right after it) and without "(idle)" samples, as fractions of the busy samples.
 */
function analyzeProfile(profile, windowMs) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n) => {
    const f = n.callFrame;
    const file = fileOf(f);
    return `${f.functionName || "(anonymous)"}  ${file}${file ? `:${f.lineNumber + 1}` : ""}`;
  };
  const self = new Map();
  const incl = new Map();
  const groups = new Map();
  let t = profile.startTime;
  let busy = 0;
  let idle = 0;
  const from = profile.endTime - windowMs * 1000;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from) continue;
    const leaf = byId.get(profile.samples[i]);
    if (leaf.callFrame.functionName === "(idle)") {
      idle++;
      continue;
    }
    busy++;
    const k = keyOf(leaf);
    self.set(k, (self.get(k) ?? 0) + 1);
    const g = groupOf(fileOf(leaf.callFrame));
    groups.set(g, (groups.get(g) ?? 0) + 1);
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const key = keyOf(byId.get(id));
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + 1);
    }
  }
  const sorted = (m) =>
    [...m].map(([key, n]) => ({ key, share: n / Math.max(1, busy) })).sort((a, b) => b.share - a.share);
  return {
    self: sorted(self),
    incl: sorted(incl),
    groups: sorted(groups),
    busyShare: busy / Math.max(1, busy + idle),
    samples: busy + idle,
  };
}

async function profileTargets(keys, { log, warn }) {
  const pin = pinning();
  const pct = (x) => `${(x * 100).toFixed(1).padStart(5)}%`;
  for (const key of keys) {
    const target = ALL_TARGETS.find((t) => t.key === key);
    if (!target) {
      warn(`unknown target ${key}; known: ${ALL_TARGETS.map((t) => t.key).join(", ")}`);
      continue;
    }
    const dir = mkdtempSync(join(tmpdir(), "a2a-cpu-prof-"));
    try {
      log(`\nprofiling ${target.label} (node --cpu-prof on the server child)`);
      const server = await prepareTarget(target, { pin, warn, nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
      if (!server) continue;
      try {
        const r = await loadTarget(target, server, {
          pin,
          warn,
          connections: CONNECTIONS,
          warmupS: WARMUP_S,
          durationS: PROFILE_S,
        });
        if (r) log(describeRun(`${target.label} (profiled)`, r));
      } finally {
        await stopChild(server.child); // SIGTERM: the server calls process.exit, which writes the profile
      }
      const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
      if (!file) {
        warn("no .cpuprofile written");
        continue;
      }
      const a = analyzeProfile(JSON.parse(readFileSync(join(dir, file), "utf8")), PROFILE_S * 1000);
      log(
        `last ${PROFILE_S} s of the profile (${a.samples} samples, busy ${pct(a.busyShare).trim()}); shares below are of the busy samples`,
      );
      log("top self time:");
      for (const e of a.self.slice(0, 25)) log(`  ${pct(e.share)}  ${e.key}`);
      const mine = (e) => /^(packages\/runtime\/dist|dist-examples|bench)\//.test(e.key.split("  ")[1] ?? "");
      log("top inclusive time, the runtime (packages/runtime/dist), the generated code and bench code:");
      for (const e of a.incl.filter(mine).slice(0, 20)) log(`  ${pct(e.share)}  ${e.key}`);
      log("self time by file / package:");
      for (const e of a.groups.slice(0, 20)) log(`  ${pct(e.share)}  ${e.key}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (isMain(import.meta.url)) {
  const log = console.log;
  const warn = (m) => console.warn(`warning: ${m}`);
  const at = process.argv.indexOf("--profile");
  if (at >= 0) {
    const keys = process.argv.slice(at + 1);
    await profileTargets(keys.length ? keys : ["oursJsonrpc", "oursRest"], { log, warn });
  } else {
    const r = await benchServerThroughput({ log, warn });
    for (const [k, v] of Object.entries(r.ratios)) log(`${k}: ${v === null ? "n/a" : fmtRatio(v)}`);
  }
}
