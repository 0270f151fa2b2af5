/**
 * The echo agent's HTTP side on any runtime with fetch (Bun, Deno, Cloudflare Workers, and Node through
 * fetchHandler), or in a server framework (frameworks/): the agent card, JSON-RPC (/a2a/jsonrpc) and
 * HTTP+JSON (/a2a/rest), at 1.0 and, through the generated version bridge, 0.3 at the same URLs, with tasks
 * in memory. What server.ts serves over node:http,
 * but gRPC, PostgreSQL, authentication and telemetry, which need Node's servers and clients. The card names the
 * URLs of `base` (the origin the agent is reached at), worked out on the first request.
 */
import { toJson } from "@bufbuild/protobuf";
import { type CoreHandler, fetchHandler } from "@protoc-gen-a2a/runtime";
import type { TaskStore } from "@protoc-gen-a2a/runtime/task";
import { dualVersionHttpHandler, toOlderJson } from "../../generated-samples/a2a_compat.js";
import { AgentCardSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { echoAgentCard } from "./agent-card.js";
import { createEchoHandler } from "./echo-handler.js";
import { describeHandlerError, logA2aErrors, logFetchRequests, type AgentLog } from "./logging.js";

export interface FetchAgentOptions {
  /** The origin the agent is reached at, e.g. http://127.0.0.1:9999; read on the first request. */
  readonly base: () => string;
  /** One line per request and per handler error; unset: no logging. */
  readonly log?: AgentLog;
  /** Where tasks live; default: in memory (of this process or isolate). */
  readonly store?: TaskStore;
  /** Browser origins allowed to call (CORS_ORIGINS); unset: no CORS headers. */
  readonly corsOrigins?: readonly string[] | "*";
}

/** The agent as a fetch handler, its request lines logged when the options give a log. */
export function echoFetchHandler(options: FetchAgentOptions): (request: Request) => Promise<Response> {
  const fetch = fetchHandler(echoHttpCore(options));
  return options.log ? logFetchRequests(fetch, options.log.request) : fetch;
}

/** The agent as the runtime's universal handler (for fetchHandler, nodeHttpListener or a framework adapter). */
export function echoHttpCore(options: FetchAgentOptions): CoreHandler {
  const handler = createEchoHandler(options.store ? { store: options.store } : {});
  let card: { newer: unknown; older: unknown } | undefined;
  // Made once, on the first card request: the base is known by then.
  const cardOf = () => {
    if (card) return card;
    const base = options.base();
    const plain = echoAgentCard({ jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest` });
    card = { newer: toJson(AgentCardSchema, plain), older: toOlderJson(plain).json };
    return card;
  };
  const log = options.log;
  return dualVersionHttpHandler(handler, {
    jsonrpcPath: "/a2a/jsonrpc",
    restBasePath: "/a2a/rest",
    ...(options.corsOrigins ? { cors: { origins: options.corsOrigins } } : {}),
    agentCard: (side) => (side === "newer" ? cardOf().newer : cardOf().older),
    ...(log
      ? {
          onError: (e, at) => log.error(describeHandlerError(at.operation ?? "-", e)),
          interceptors: [logA2aErrors(log.error)],
        }
      : {}),
  });
}
