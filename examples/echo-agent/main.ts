/**
 * `npm run example`: the echo agent on 127.0.0.1. HTTP on PORT (default
 * 9999), gRPC on GRPC_PORT (default PORT+1; 0 when PORT is 0). Logs one line
 * per request to stdout and each handler error to stderr. A port that is not
 * a number or cannot be listened on ends it with one line on stderr and exit
 * code 1. Stops on SIGTERM or SIGINT.
 *
 * Tasks live in memory (A2A_MEMORY_MAX_BYTES bounds them, default 256 MiB),
 * or in PostgreSQL when DATABASE_URL is set (the tables are created or
 * updated on start; A2A_TASK_LEASE_MS sets the turn leases, default 15000).
 * A database that cannot be reached at start ends it with one line on stderr
 * and exit code 1; once started, it rides out database restarts (calls fail
 * with 503 meanwhile). CARD_SIGNING_KEY names a file holding a private JWK
 * (with its kid): the served v1.0 card is then signed with it.
 * A2A_PUSH_ALLOW lists the webhook hosts and CIDR networks push delivery may
 * reach beside public addresses (push-env.ts); unset, loopback and private
 * addresses are allowed, since the agent listens on 127.0.0.1. A bad entry
 * ends it with one line on stderr and exit code 1.
 * API_KEYS (a file of `<key> <principal-id>` lines) and OIDC_ISSUER with
 * OIDC_AUDIENCE protect it (auth-env.ts): the card then requires an API key
 * in X-API-Key or an OpenID Connect bearer token, every call is
 * authenticated, each task is its caller's, and the extended card names the
 * caller. A bad value ends it with one line on stderr and exit code 1.
 * OTEL_EXPORTER_OTLP_ENDPOINT exports traces and metrics with OTLP over HTTP
 * as JSON (otel-env.ts: OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME).
 * LOG_FORMAT=json writes one JSON line per call on stdout (logCalls) in
 * place of the text request lines; LOG_FORMAT=text (the default) keeps them.
 * CORS_ORIGINS ("*" or origins separated by commas) lets pages from those
 * origins call the HTTP side from a browser (the cors option).
 *
 * `--runtime bun|deno|workerd` runs the agent's HTTP side (card, JSON-RPC, HTTP+JSON, both versions, tasks in
 * memory) on that runtime instead, from npm, on PORT (runtimes/); `--runtime node` is the default.
 * `--framework express|fastify|hono` mounts that HTTP side at /agent in an application of that framework, on
 * Node, on PORT (frameworks/).
 */
import { readFileSync } from "node:fs";
import { openPostgresTaskStore, StoreStartError } from "@protoc-gen-a2a/runtime/postgres";
import pg from "pg";
import { createMemoryTaskStore, type TaskStore } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { PUSH_ALLOW_VARIABLE, pushAllowFromEnv } from "./push-env.js";
import { securityFromEnv } from "./auth-env.js";
import { jsonLines } from "@protoc-gen-a2a/runtime";
import {
  ListenError,
  startEchoAgent,
  type AgentLog,
  type AgentOptions,
  type AgentTelemetry,
  type RunningAgent,
} from "./server.js";
import { choiceFromArgs, type Framework, runChild } from "./runtimes/elsewhere.js";
import { corsFromEnv } from "./runtimes/fetch-main.js";

const PREFIX = "echo agent:";

/** PORT or GRPC_PORT, or the line that says why it is not a port number. */
function portFromEnv(name: "PORT" | "GRPC_PORT", fallback: number): { port: number } | { problem: string } {
  const raw = process.env[name];
  if (raw === undefined) {
    if (fallback <= 65535) return { port: fallback };
    return { problem: `GRPC_PORT defaults to PORT+1 = ${fallback}, not a port number (0-65535); set GRPC_PORT` };
  }
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  return port <= 65535 ? { port } : { problem: `${name}=${JSON.stringify(raw)} is not a port number (0-65535)` };
}

function listenProblem(e: ListenError): string {
  const name = e.server === "http" ? "PORT" : "GRPC_PORT";
  const what = e.code === "EADDRINUSE" ? "is in use" : e.code === "EACCES" ? "is not allowed" : "cannot be listened on";
  return `port ${e.port} ${what} (${e.code}); set ${name} to a free port`;
}

const log: AgentLog = {
  request: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${PREFIX} ${line}\n`),
};

/** Says on stderr, in one line, why the agent cannot start. */
const cannotStart = (problem: string): undefined => {
  process.stderr.write(`${PREFIX} ${problem}\n`);
  return undefined;
};

/** A whole number of milliseconds or bytes from the environment, or the line that says why it is not one. */
function countFromEnv(name: string): { value: number | undefined } | { problem: string } {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return { value: undefined };
  const value = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(value) ? { value } : { problem: `${name}=${JSON.stringify(raw)} is not a whole number` };
}

/** A store, or the line that says why there is none. */
type StoreOrProblem = { store: TaskStore } | { problem: string };

/** The memory store, bounded by A2A_MEMORY_MAX_BYTES when set (else its default, 256 MiB). */
function memoryStoreFromEnv(): StoreOrProblem {
  const maxBytes = countFromEnv("A2A_MEMORY_MAX_BYTES");
  if ("problem" in maxBytes) return maxBytes;
  return { store: createMemoryTaskStore(maxBytes.value === undefined ? {} : { maxBytes: maxBytes.value }) };
}

/**
 * The PostgreSQL store when DATABASE_URL is set (its tables created or updated first, the database checked:
 * openPostgresTaskStore says in one line what is wrong), with turn leases of A2A_TASK_LEASE_MS when set; else
 * the memory store. The store's failures outside any call (a lost connection) are logged to stderr.
 */
async function storeFromEnv(): Promise<StoreOrProblem> {
  const url = process.env["DATABASE_URL"];
  if (!url) return memoryStoreFromEnv();
  const lease = countFromEnv("A2A_TASK_LEASE_MS");
  if ("problem" in lease) return lease;
  // A pool of our own, as an application passes one: the store listens for its errors (a database restart).
  // Every wait bounded: no call waits forever on a database that went away mid-answer.
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 10_000, query_timeout: 30_000 });
  const leaseMs = lease.value === undefined ? {} : { leaseMs: lease.value };
  const onError = (e: Error) => log.error(e.message);
  try {
    return {
      store: await openPostgresTaskStore({ pool, definition: A2AServiceV1_0, migrate: true, onError, ...leaseMs }),
    };
  } catch (e) {
    await pool.end().catch(() => undefined);
    if (e instanceof StoreStartError) return { problem: e.message };
    throw e;
  }
}

/** The signing options when CARD_SIGNING_KEY names a JWK file. */
function signingFromEnv(): Pick<AgentOptions, "signing"> {
  const path = process.env["CARD_SIGNING_KEY"];
  return path ? { signing: { key: JSON.parse(readFileSync(path, "utf8")) } } : {};
}

/** The call log LOG_FORMAT asks for: JSON lines on stdout, or none (the text request lines). */
function callLogFromEnv(): Pick<AgentOptions, "callLog"> | { problem: string } {
  const format = process.env["LOG_FORMAT"] ?? "text";
  if (format === "text" || format === "") return {};
  if (format === "json") return { callLog: jsonLines((line) => process.stdout.write(line)) };
  return { problem: `LOG_FORMAT=${JSON.stringify(format)} is neither text nor json` };
}

/** Telemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set; OpenTelemetry is loaded only then. */
async function telemetryFromEnv(): Promise<{ telemetry?: AgentTelemetry } | { problem: string }> {
  if (!process.env["OTEL_EXPORTER_OTLP_ENDPOINT"]) return {};
  const { telemetryFromEnv: fromEnv } = await import("./otel-env.js");
  return fromEnv(process.env);
}

/** Starts the agent, or says why it cannot and returns undefined. */
async function start(): Promise<RunningAgent | undefined> {
  const http = portFromEnv("PORT", 9999);
  if ("problem" in http) return cannotStart(http.problem);
  const grpc = portFromEnv("GRPC_PORT", http.port === 0 ? 0 : http.port + 1);
  if ("problem" in grpc) return cannotStart(grpc.problem);
  const push = pushAllowFromEnv(process.env[PUSH_ALLOW_VARIABLE]);
  if ("problem" in push) return cannotStart(push.problem);
  const access = securityFromEnv(process.env);
  if ("problem" in access) return cannotStart(access.problem);
  const security = access.security ? { security: access.security } : {};
  const callLog = callLogFromEnv();
  if ("problem" in callLog) return cannotStart(callLog.problem);
  const telemetry = await telemetryFromEnv();
  if ("problem" in telemetry) return cannotStart(telemetry.problem);
  const made = await storeFromEnv();
  if ("problem" in made) return cannotStart(made.problem);
  const { store } = made;
  try {
    const ports = { port: http.port, grpcPort: grpc.port };
    const observe = { ...callLog, ...telemetry };
    const cors = corsFromEnv(process.env["CORS_ORIGINS"]);
    return await startEchoAgent({
      ...ports,
      log,
      store,
      ...push,
      ...security,
      ...observe,
      ...cors,
      ...signingFromEnv(),
    });
  } catch (e) {
    await store.close();
    if (e instanceof ListenError) return cannotStart(listenProblem(e));
    throw e;
  }
}

const chosen = choiceFromArgs(process.argv.slice(2));
if ("problem" in chosen) {
  cannotStart(chosen.problem);
  process.exit(1);
}
if (chosen.framework) await runInFramework(chosen.framework);
else if (chosen.runtime === "bun" || chosen.runtime === "deno") process.exit(await runChild(chosen.runtime));
else if (chosen.runtime === "workerd") {
  const { launchWorkerd } = await import("./runtimes/workerd-launch.js");
  await launchWorkerd();
} else await runOnNode();

/** The agent's HTTP side mounted in a framework (frameworks/), on PORT; stops on SIGTERM or SIGINT. */
async function runInFramework(framework: Framework): Promise<void> {
  const http = portFromEnv("PORT", 9999);
  if ("problem" in http) return void cannotStart(http.problem);
  const starts = {
    express: async () => (await import("./frameworks/express.js")).startInExpress,
    fastify: async () => (await import("./frameworks/fastify.js")).startInFastify,
    hono: async () => (await import("./frameworks/hono.js")).startInHono,
  };
  const close = await (await starts[framework]())(http.port, log);
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    process.once(signal, () => {
      process.stdout.write(`${signal}: stopping\n`);
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
}

async function runOnNode(): Promise<void> {
  const agent = await start();
  if (!agent) {
    process.exitCode = 1;
  } else {
    const { card, jsonrpc, rest, grpc } = agent.urls;
    process.stdout.write(
      `echo agent on Node ${process.versions.node} (A2A 1.0 and 0.3: A2A-Version picks)\n` +
        `  agent card  ${card}\n  JSON-RPC    ${jsonrpc}\n  HTTP+JSON   ${rest}\n  gRPC        ${grpc}\n`,
    );
    const stop = (signal: string) => {
      process.stdout.write(`${signal}: stopping\n`);
      agent.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  }
}
