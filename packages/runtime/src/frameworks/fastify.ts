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
import { nodeHttpListener } from "../http/node-listener.js";

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

/** The handler as a Fastify plugin; register it with the prefix it serves under. */
export function fastifyHandler(handler: CoreHandler): (scope: FastifyScope, options: unknown) => Promise<void> {
  const listener = nodeHttpListener(handler);
  return async (scope) => {
    const prefix = scope.prefix;
    // Leave every body unread: the handler reads it, with its limit.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
    const serve = (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => {
      reply.hijack();
      const raw = request.raw;
      const url = raw.url ?? "/";
      // The handler's paths are under the prefix, as Express's are under a mount path.
      if (prefix !== "" && url.startsWith(prefix)) raw.url = url.slice(prefix.length) || "/";
      listener(raw, reply.raw);
    };
    scope.all("/", serve);
    scope.all("/*", serve);
  };
}
