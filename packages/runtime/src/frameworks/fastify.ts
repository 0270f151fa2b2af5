/**
 * Fastify 5: an agent's HTTP handler as a plugin registered under a prefix, beside the application's other
 * routes:
 *
 *   await app.register(fastifyHandler(createA2AServiceHttpHandler({ handler, agentCard })), { prefix: "/agent" });
 *
 * Inside the plugin's scope (Fastify encapsulates it: the application's parsers, hooks and routes outside it are
 * untouched) every method and path under the prefix goes to the handler with the prefix taken off the URL; no
 * content-type parser reads the body, so the handler reads it with its own limit, and the reply is hijacked:
 * answers, limits, errors and streams are nodeHttpListener's. The application's hooks before the handler
 * (onRequest, preHandler: authentication, rate limits) still run.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CoreHandler } from "../core/server-types.js";
import { nodeHttpListener, type NodeListenerOptions } from "../http/node-listener.js";

/** What this plugin uses of a Fastify instance (Fastify's own types are wider). */
export interface FastifyScope {
  readonly prefix: string;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  all(path: string, handler: (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => void): void;
}

/** What this plugin uses of a Fastify reply. */
export interface FastifyReplyLike {
  readonly raw: ServerResponse;
  hijack(): unknown;
}

/**
 * The URL with the prefix taken off, the rest as sent and starting with "/". Fastify routes by the decoded path,
 * so a prefix may arrive encoded (`/%61gent` for `/agent`): then as many segments as the prefix has are taken off
 * when, decoded, they are the prefix. Any other URL stays as it is.
 */
function underPrefix(url: string, prefix: string): string {
  let head = url.startsWith(prefix) ? prefix : undefined;
  if (head === undefined) {
    const segments = prefix.split("/").length - 1;
    const sent = new RegExp(`^(?:/[^/?]*){${segments}}`).exec(url)?.[0];
    if (sent !== undefined && decoded(sent) === prefix) head = sent;
  }
  if (head === undefined) return url;
  const rest = url.slice(head.length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

function decoded(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/** The handler as a Fastify plugin; register it with the prefix it serves under. `options`: nodeHttpListener's. */
export function fastifyHandler(
  handler: CoreHandler,
  options: Pick<NodeListenerOptions, "stallTimeoutMs"> = {},
): (scope: FastifyScope, options: unknown) => Promise<void> {
  const listener = nodeHttpListener(handler, options);
  return async (scope) => {
    const prefix = scope.prefix;
    // Leave every body unread: the handler reads it, with its limit.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
    const serve = (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => {
      reply.hijack();
      const raw = request.raw;
      // The handler's paths are under the prefix, as Express's are under a mount path.
      if (prefix !== "") raw.url = underPrefix(raw.url ?? "/", prefix);
      listener(raw, reply.raw);
    };
    scope.all("/", serve);
    scope.all("/*", serve);
  };
}
