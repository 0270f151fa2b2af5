/**
 * One HTTP entry point for an A2A agent: the agent card at
 * /.well-known/agent-card.json, the JSON-RPC endpoint, and the HTTP+JSON
 * routes under a base path. Framework-agnostic: wrap it with
 * nodeHttpListener or fetchHandler (node-listener.ts, fetch-handler.ts).
 *
 * A trailing slash is accepted on both paths, so an agent card URL written
 * with one works: the JSON-RPC endpoint answers at "/jsonrpc" and
 * "/jsonrpc/", and a route under "/rest/" + "/tasks/1" (one "/" doubled right
 * after the base path) is routed as "/rest/tasks/1" (server-rest.ts). Paths
 * given in the options with a trailing slash are read without it.
 *
 * The card is cacheable (card-server.ts). HEAD is GET without a body, on the
 * card and on every GET route, with the Content-Length the GET sends (head.ts):
 * a streaming response is closed before anything is read from it.
 *
 * With `strictTransportSecurity`, every answer carries Strict-Transport-
 * Security (RFC 6797), for an agent served over HTTPS: browsers then refuse
 * plain HTTP to its host for max-age seconds. Send it over HTTPS only.
 */
import { type CorsOptions, withCors } from "../http/cors.js";
import type { DescService } from "@bufbuild/protobuf";
import { createAgentCardHandler } from "../http/card-server.js";
import { createJsonRpcHandler, type JsonRpcServerOptions } from "../jsonrpc/server-jsonrpc.js";
import { createRestHandler } from "../rest/server-rest.js";
import { headOf } from "../http/head.js";
import type { CoreHandler, CoreRequest, CoreResponse } from "../core/server-types.js";
import { headerRecord } from "../core/records.js";

export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

export interface A2aHttpOptions<S extends DescService = DescService> extends JsonRpcServerOptions<S> {
  /** Where JSON-RPC is served (POST). Default "/jsonrpc". */
  readonly jsonrpcPath?: string;
  /** Prefix of the HTTP+JSON routes. Default "/rest"; "" serves them at the root. */
  readonly restBasePath?: string;
  /** Cache-Control max-age of the agent card, in seconds. Default 300. */
  readonly agentCardMaxAge?: number;
  /** More headers for the agent card response; they take precedence over the caching headers. */
  readonly agentCardHeaders?: (headers: Headers) => Readonly<Record<string, string>>;
  /** Sends Strict-Transport-Security on every answer (HTTPS only; RFC 6797). Default: not sent. */
  readonly strictTransportSecurity?: StrictTransportSecurity;
  /** Answers cross-origin calls from these browser origins (http/cors.ts). Default: no CORS headers. */
  readonly cors?: CorsOptions;
}

/** The Strict-Transport-Security header's directives. */
export interface StrictTransportSecurity {
  /** Seconds browsers keep to HTTPS for the host, e.g. 31536000 (a year). */
  readonly maxAgeSec: number;
  readonly includeSubDomains?: boolean;
  readonly preload?: boolean;
}

/** The Strict-Transport-Security value of the directives. */
export function strictTransportSecurityValue(hsts: StrictTransportSecurity): string {
  if (!Number.isSafeInteger(hsts.maxAgeSec) || hsts.maxAgeSec < 0) {
    throw new Error(`strictTransportSecurity.maxAgeSec: ${hsts.maxAgeSec} is not a whole number of seconds`);
  }
  return (
    `max-age=${hsts.maxAgeSec}` +
    (hsts.includeSubDomains ? "; includeSubDomains" : "") +
    (hsts.preload ? "; preload" : "")
  );
}

/** The handler with the Strict-Transport-Security header added to every answer, when asked for. */
export function withStrictTransportSecurity(
  handler: CoreHandler,
  hsts: StrictTransportSecurity | undefined,
): CoreHandler {
  if (!hsts) return handler;
  const header = { "strict-transport-security": strictTransportSecurityValue(hsts) };
  return (req) => handler(req).then((res) => ({ ...res, headers: headerRecord(res.headers, header) }));
}

/**
 * What a generated stub's HTTP handler takes (create<Service>HttpHandler): the options but the definition,
 * which the stub gives.
 */
export type HttpHandlerOptions<S extends DescService = DescService> = Omit<A2aHttpOptions<S>, "definition">;

export function createA2aHttpHandler<S extends DescService>(options: A2aHttpOptions<S>): CoreHandler {
  const jsonrpcPath = withoutTrailingSlash(options.jsonrpcPath ?? "/jsonrpc");
  const jsonrpcSlash = jsonrpcPath + "/";
  const restBase = withoutTrailingSlash(options.restBasePath ?? "/rest");
  const restPrefix = restBase + "/";
  const jsonrpc = createJsonRpcHandler(options);
  const rest = createRestHandler(options, restBase);
  const agentCard = options.agentCard;
  const card = agentCard
    ? createAgentCardHandler((req) => agentCard(req.headers), {
        ...(options.agentCardMaxAge !== undefined ? { maxAge: options.agentCardMaxAge } : {}),
        ...(options.agentCardHeaders ? { headers: options.agentCardHeaders } : {}),
      })
    : undefined;
  // Plain functions, not async ones: each handler already returns a promise, and another layer per request
  // would cost a promise and a turn of the microtask queue.
  const route = (req: CoreRequest): Promise<CoreResponse> => {
    if (req.path === AGENT_CARD_PATH && card) return card(req);
    if (req.path === jsonrpcPath || req.path === jsonrpcSlash) return jsonrpc(req);
    if (restBase === "" || req.path.startsWith(restPrefix)) return rest(req);
    return Promise.resolve({ status: 404, headers: {}, body: "" });
  };
  const answer = withStrictTransportSecurity((req) => {
    try {
      return req.method === "HEAD" ? route(asGet(req)).then(headOf) : route(req);
    } catch (e) {
      return Promise.reject(e);
    }
  }, options.strictTransportSecurity);
  return withCors(answer, options.cors);
}

/** The same request as a GET: a view whose other members are the request's own. */
function asGet(req: CoreRequest): CoreRequest {
  return Object.create(req, { method: { value: "GET", enumerable: true } }) as CoreRequest;
}

function withoutTrailingSlash(path: string): string {
  return path.replace(/\/+$/, "");
}
