/**
 * One HTTP entry point for an A2A agent: the agent card at
 * /.well-known/agent-card.json, the JSON-RPC endpoint, and the HTTP+JSON
 * routes under a base path. Framework-agnostic: wrap it with
 * nodeHttpListener or fetchHandler (http-adapters.ts).
 *
 * A trailing slash is accepted on both paths, so an agent card URL written
 * with one works: the JSON-RPC endpoint answers at "/jsonrpc" and
 * "/jsonrpc/", and a route under "/rest/" + "/tasks/1" (one "/" doubled right
 * after the base path) is routed as "/rest/tasks/1" (server-rest.ts). Paths
 * given in the options with a trailing slash are read without it.
 *
 * The card is cacheable (S10 §8.6.1): Cache-Control max-age (default 300 s),
 * a strong ETag that hashes the body, and Last-Modified, the time this handler
 * first served that body; If-None-Match (or, without it, If-Modified-Since)
 * that matches gets 304. HEAD is GET without a body, on the card and on every
 * GET route: a streaming response is closed before anything is read from it.
 */
import type { DescService } from "@bufbuild/protobuf";
import { createJsonRpcHandler } from "./server-jsonrpc.js";
import { createRestHandler } from "./server-rest.js";
import type { A2aServerOptions, CoreHandler, CoreRequest, CoreResponse } from "./server-types.js";

export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

export interface A2aHttpOptions<S extends DescService = DescService> extends A2aServerOptions<S> {
  /** Where JSON-RPC is served (POST). Default "/jsonrpc". */
  readonly jsonrpcPath?: string;
  /** Prefix of the HTTP+JSON routes. Default "/rest"; "" serves them at the root. */
  readonly restBasePath?: string;
  /** Cache-Control max-age of the agent card, in seconds. Default 300. */
  readonly agentCardMaxAge?: number;
  /** More headers for the agent card response; they take precedence over the caching headers. */
  readonly agentCardHeaders?: (headers: Headers) => Readonly<Record<string, string>>;
}

const DEFAULT_CARD_MAX_AGE = 300;

export function createA2aHttpHandler<S extends DescService>(options: A2aHttpOptions<S>): CoreHandler {
  const jsonrpcPath = withoutTrailingSlash(options.jsonrpcPath ?? "/jsonrpc");
  const jsonrpcSlash = jsonrpcPath + "/";
  const restBase = withoutTrailingSlash(options.restBasePath ?? "/rest");
  const jsonrpc = createJsonRpcHandler(options);
  const rest = createRestHandler(options, restBase);
  const card = options.agentCard ? cardServer(options.agentCard, options) : undefined;
  const route: CoreHandler = async (req) => {
    if (req.path === AGENT_CARD_PATH && card) {
      if (req.method !== "GET") return { status: 405, headers: { allow: "GET, HEAD" }, body: "" };
      return card(req);
    }
    if (req.path === jsonrpcPath || req.path === jsonrpcSlash) return jsonrpc(req);
    if (restBase === "" || req.path.startsWith(restBase + "/")) return rest(req);
    return { status: 404, headers: {}, body: "" };
  };
  return async (req) => (req.method === "HEAD" ? headOf(await route(asGet(req))) : route(req));
}

/** The same request as a GET: a view whose other members are the request's own. */
function asGet(req: CoreRequest): CoreRequest {
  return Object.create(req, { method: { value: "GET", enumerable: true } }) as CoreRequest;
}

/** A GET response as the answer to HEAD: the headers, no body; a stream is closed unread. */
function headOf(res: CoreResponse): CoreResponse {
  if (typeof res.body !== "string") void res.body[Symbol.asyncIterator]().return?.();
  return { ...res, body: "" };
}

/** Serves the card with its caching headers; remembers when each body was first served. */
function cardServer(agentCard: (headers: Headers) => unknown, options: A2aHttpOptions): CoreHandler {
  const firstServed = new Map<string, Date>();
  const maxAge = options.agentCardMaxAge ?? DEFAULT_CARD_MAX_AGE;
  return async (req) => {
    const body = JSON.stringify(agentCard(req.headers));
    const etag = `"${await digest(body)}"`;
    let served = firstServed.get(etag);
    if (served === undefined) {
      if (firstServed.size >= 64) firstServed.clear(); // a card that changes per request: keep the map bounded
      served = new Date(Math.floor(Date.now() / 1000) * 1000);
      firstServed.set(etag, served);
    }
    const headers = {
      "content-type": "application/json",
      "cache-control": `max-age=${maxAge}`,
      etag,
      "last-modified": served.toUTCString(),
      ...options.agentCardHeaders?.(req.headers),
    };
    return notModified(req, etag, served) ? { status: 304, headers, body: "" } : { status: 200, headers, body };
  };
}

/** RFC 9110 §13.1.2 and §13.1.3: If-None-Match (weak comparison, `*`) first, else If-Modified-Since. */
function notModified(req: CoreRequest, etag: string, served: Date): boolean {
  const ifNoneMatch = req.header("if-none-match");
  if (ifNoneMatch !== null) {
    return ifNoneMatch.split(",").some((t) => {
      const tag = t.trim();
      return tag === "*" || tag.replace(/^W\//, "") === etag;
    });
  }
  const since = Date.parse(req.header("if-modified-since") ?? "");
  return !Number.isNaN(since) && served.getTime() <= since;
}

/** base64url of the SHA-256 of the text, cut to 27 characters (160 bits). */
async function digest(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...hash))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .slice(0, 27);
}

function withoutTrailingSlash(path: string): string {
  return path.replace(/\/+$/, "");
}
