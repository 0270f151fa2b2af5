/**
 * Starts the example agent on 127.0.0.1: one node:http server for the agent
 * card, JSON-RPC (/a2a/jsonrpc) and HTTP+JSON (/a2a/rest), and one HTTP/2
 * server for gRPC. It speaks A2A 1.0 and, through the generated version
 * bridge, 0.3 at the same URLs: A2A-Version picks the version of each HTTP
 * call, the package of the gRPC service (lf.a2a.v1 or a2a.v1) that of each
 * RPC. Used by main.ts and by the tests.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { toJson } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { grpcFallback, guardGrpcListener, logCalls, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import type { CallLogSink, ErrorContext, Interceptor } from "@protoc-gen-a2a/runtime";
import { authenticate } from "@protoc-gen-a2a/runtime/auth";
import { signAgentCard, type SignAgentCardOptions } from "@protoc-gen-a2a/runtime/card-signing";
import type { TaskStore, TaskTelemetry } from "@protoc-gen-a2a/runtime/task";
import {
  A2AServiceV1_0,
  createA2AServiceHttpHandler,
  type A2AServiceHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { A2AServiceV0_3, type A2AServiceHandler as OlderHandler } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { a2aServiceGrpcRoutes as a2aServiceGrpcRoutes03 } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { AgentCardSchema, type AgentCard } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { bridgeToOlder, dualVersionHttpHandler, toOlderJson } from "../../generated-samples/a2a_compat.js";
import { echoAgentCard, type AgentUrls } from "./agent-card.js";
import { createEchoHandler, createEchoPushSender, type EchoHandlerOptions, type PushAllow } from "./echo-handler.js";
import { describeHandlerError, logA2aErrors, logGrpcCalls, logHttpRequests, type AgentLog } from "./logging.js";
import type { AgentSecurity } from "./auth-env.js";

export type { AgentLog } from "./logging.js";
export type { PushAllow } from "./echo-handler.js";

/** Tracing and metrics (otel-env.ts makes them on OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set). */
export interface AgentTelemetry {
  /** The outermost interceptor of every server: a span and a duration per call. */
  readonly interceptor: Interceptor;
  /** createTaskHandler's telemetry: turns, push attempts, store operations. */
  readonly task: TaskTelemetry;
  /** Flushes what is still unsent. */
  shutdown(): Promise<void>;
}

export interface RunningAgent {
  readonly urls: Required<AgentUrls> & { readonly card: string };
  close(): Promise<void>;
}

export interface AgentOptions {
  readonly port?: number;
  readonly grpcPort?: number;
  /** Extension URIs clients must declare: the card lists them as required, and the servers read them from it. */
  readonly requiredExtensions?: readonly string[];
  /** Serve A2A 1.0 only (no bridge): calls without A2A-Version then get VersionNotSupportedError. */
  readonly only10?: boolean;
  /** Log each request and each handler error here (main.ts: stdout and stderr). Unset: no logging. */
  readonly log?: AgentLog;
  /** Where tasks live; default: in memory. main.ts gives a PostgreSQL store when DATABASE_URL is set. */
  readonly store?: TaskStore;
  /** Sign the served v1.0 card with this key (JWS over its canonical form, spec §8.4). */
  readonly signing?: SignAgentCardOptions;
  /**
   * Deliver push notifications to loopback and private addresses too (local webhooks, tests). Default true, as
   * the agent listens on 127.0.0.1 only; false screens webhooks as an agent on a network must (S10 §13.2).
   */
  readonly pushToPrivateNetworks?: boolean;
  /** Webhook hosts and CIDR networks allowed beside public addresses; main.ts reads A2A_PUSH_ALLOW (push-env.ts). */
  readonly pushAllow?: PushAllow;
  /**
   * Require what the card then declares (auth-env.ts: API_KEYS, OIDC_ISSUER): every call is authenticated,
   * tasks are scoped to their caller, and the extended card names the caller. Unset: open, no extended card.
   */
  readonly security?: AgentSecurity;
  /** Traces and measures every call, turn and push (otel-env.ts). Unset: nothing is traced. */
  readonly telemetry?: AgentTelemetry;
  /**
   * One structured record per call (logCalls; main.ts: JSON lines on stdout when LOG_FORMAT=json), in place of
   * the text request lines of `log`. Unset: the text lines.
   */
  readonly callLog?: CallLogSink;
  /** Browser origins allowed to call the HTTP side (main.ts: CORS_ORIGINS); unset: no CORS headers. */
  readonly corsOrigins?: readonly string[] | "*";
}

/** A server of the agent could not listen on its port; `code` is the system error (EADDRINUSE, EACCES, …). */
export class ListenError extends Error {
  override name = "ListenError";
  constructor(
    readonly server: "http" | "grpc",
    readonly port: number,
    readonly code: string,
    cause: unknown,
  ) {
    super(`the ${server} server cannot listen on 127.0.0.1:${port} (${code})`, { cause });
  }
}

const listen = (server: Server | Http2Server, port: number, name: ListenError["server"]) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => reject(new ListenError(name, port, e.code ?? "unknown", e)));
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });

/** The handlers the servers call: the v1.0 one, and (for gRPC) the v0.3 one the bridge makes of it. */
interface Handlers {
  readonly handler: A2AServiceHandler;
  readonly older: OlderHandler;
}

/**
 * The card as each version's clients read it: v1.0 ProtoJSON, and converted to v0.3 (url, preferredTransport,
 * additionalInterfaces) as a2a.json. The servers serve it and enforce it (capabilities, required extensions);
 * it is made once, when first asked for (the URLs are known once both servers listen), so every call reads the
 * same object.
 */
interface CardJson {
  readonly newer: () => unknown;
  readonly older: () => unknown;
}

function cardJson(card: AgentCard, signed: unknown): CardJson {
  let older: unknown;
  const newer = signed ?? toJson(AgentCardSchema, card);
  return { newer: () => newer, older: () => (older ??= toOlderJson(card).json) };
}

/** The card's v1.0 JSON, signed when the options give a key; undefined without one. */
async function signedCard(card: AgentCard, options: AgentOptions): Promise<unknown> {
  return options.signing ? signAgentCard(toJson(AgentCardSchema, card) as object, options.signing) : undefined;
}

/**
 * What every server of the agent gets: with telemetry, its interceptor, outermost (a span per call, refusals
 * included); with a call log, the interceptor writing one record per call, inside it (so records carry the
 * span's ids); with security, the interceptor that authenticates each call against the card; with a log,
 * onError, which reports the failures that are not A2A errors (a handler's exception, with its stack), and the
 * interceptor that logs the A2A errors calls end with (logging.ts), before authentication, so it logs its
 * refusals too.
 */
function serverOptions(options: AgentOptions) {
  const log = options.log;
  const security = options.security;
  const interceptors: Interceptor[] = [
    ...(options.telemetry ? [options.telemetry.interceptor] : []),
    ...(options.callLog ? [logCalls(options.callLog)] : []),
    ...(log ? [logA2aErrors(log.error)] : []),
    ...(security ? [authenticate({ card: security, verifiers: security.verifiers })] : []),
  ];
  return {
    ...(log
      ? { onError: (e: unknown, at: ErrorContext) => log.error(describeHandlerError(at.operation ?? "-", e)) }
      : {}),
    ...(interceptors.length > 0 ? { interceptors } : {}),
  };
}

/** The HTTP server's listener: card, JSON-RPC and HTTP+JSON, at 1.0 and (unless only10) 0.3. */
function httpListener(options: AgentOptions, handler: A2AServiceHandler, card: CardJson) {
  const common = serverOptions(options);
  const cors = options.corsOrigins ? { cors: { origins: options.corsOrigins } } : {};
  const paths = { jsonrpcPath: "/a2a/jsonrpc", restBasePath: "/a2a/rest", ...cors };
  // Both versions: the generated helper serves v0.3 calls through bridgeToOlder(handler), JSON-RPC in one pass.
  const core = options.only10
    ? createA2AServiceHttpHandler({ handler, ...common, ...paths, agentCard: card.newer })
    : dualVersionHttpHandler(handler, {
        ...common,
        ...paths,
        // The older card is the v1.0 card converted to v0.3 (url, preferredTransport, additionalInterfaces)
        // as a2a.json. A card request without A2A-Version gets both merged, which either version reads.
        agentCard: (side) => (side === "newer" ? card.newer() : card.older()),
      });
  const listener = nodeHttpListener(core);
  return options.log && !options.callLog ? logHttpRequests(listener, options.log.request) : listener;
}

/** The gRPC server (HTTP/2), lf.a2a.v1 and (unless only10) a2a.v1; `sessions` collects its open sessions. */
function grpcServer(options: AgentOptions, handlers: Handlers, card: CardJson, sessions: Set<ServerHttp2Session>) {
  const common = serverOptions(options);
  const routes03 = a2aServiceGrpcRoutes03({ handler: handlers.older, ...common, agentCard: card.older });
  const routes10 = a2aServiceGrpcRoutes({ handler: handlers.handler, ...common, agentCard: card.newer });
  // The guard answers 400 where connect-node would throw on a request (an :authority the URL parser refuses).
  const grpc = createHttp2Server(
    guardGrpcListener(
      connectNodeAdapter({
        routes: (router) => {
          routes10(router);
          if (!options.only10) routes03(router);
        },
        grpc: true,
        connect: false,
        grpcWeb: false,
        // A method the router lacks: a version no service here speaks is VERSION_NOT_SUPPORTED, not UNIMPLEMENTED.
        fallback: grpcFallback(options.only10 ? [A2AServiceV1_0] : [A2AServiceV1_0, A2AServiceV0_3]),
        ...(options.log && !options.callLog ? { interceptors: [logGrpcCalls(options.log.request)] } : {}),
      }),
    ),
  );
  // HTTP/2 sessions outlive calls; close() ends them so the server can stop.
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  return grpc;
}

/** The push screening options of the agent's options. */
function pushOptions(options: AgentOptions): EchoHandlerOptions {
  return {
    ...(options.pushToPrivateNetworks !== undefined ? { pushToPrivateNetworks: options.pushToPrivateNetworks } : {}),
    ...(options.pushAllow ? { pushAllow: options.pushAllow } : {}),
  };
}

/** Starts the agent; rejects with a ListenError when a port cannot be listened on (nothing is left open). */
export async function startEchoAgent(options: AgentOptions = {}): Promise<RunningAgent> {
  let urls: AgentUrls | undefined;
  const security = options.security;
  const pushSender = createEchoPushSender(pushOptions(options));
  const echo = createEchoHandler({
    pushSender,
    ...(security
      ? {
          extendedCard: (principalId: string) =>
            echoAgentCard(urls!, true, options.requiredExtensions, { security, principalId }),
        }
      : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry.task } : {}),
  });
  const handler = echo;
  const handlers: Handlers = { handler, older: bridgeToOlder(handler).handler };
  let card: CardJson | undefined;
  const cardOf: CardJson = { newer: () => card!.newer(), older: () => card!.older() };
  const http = createServer(httpListener(options, handler, cardOf));
  const sessions = new Set<ServerHttp2Session>();
  const grpc = grpcServer(options, handlers, cardOf, sessions);
  const port = await listen(http, options.port ?? 0, "http");
  let grpcPort: number;
  try {
    grpcPort = await listen(grpc, options.grpcPort ?? (options.port ? options.port + 1 : 0), "grpc");
  } catch (e) {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await pushSender.close();
    throw e;
  }
  const base = `http://127.0.0.1:${port}`;
  const served = { jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest`, grpc: `127.0.0.1:${grpcPort}` };
  urls = served;
  const plain = echoAgentCard(urls, false, options.requiredExtensions, { security });
  card = cardJson(plain, await signedCard(plain, options));
  return {
    urls: { ...served, card: `${base}/.well-known/agent-card.json` },
    close: async () => {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => grpc.close(() => resolve())),
      ]);
      // Webhook attempts in flight end (each within its timeout); waiting deliveries and retries are dropped.
      await pushSender.close();
      await options.telemetry?.shutdown();
    },
  };
}
