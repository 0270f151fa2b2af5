/**
 * Express 5 (and 4): an agent's HTTP handler as middleware mounted at a path, beside the application's other
 * routes:
 *
 *   app.use("/agent", expressHandler(createA2AServiceHttpHandler({ handler, agentCard })));
 *
 * Express strips the mount path from req.url, so the handler's paths (jsonrpcPath, restBasePath, the card's)
 * are under it. Answers, limits, errors and streams are nodeHttpListener's: every request under the path is
 * answered here (an unknown path 404), never passed to `next`. A body the application's parsers have already
 * read (express.json, express.text or express.raw mounted before it) is taken from req.body: raw bytes as they
 * are, text as UTF-8, parsed JSON written again as JSON, which keeps its meaning but not its bytes (mount the
 * agent before the parsers to keep them).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CoreHandler } from "../core/server-types.js";
import { nodeHttpListener, type NodeListenerOptions } from "../http/node-listener.js";

/** What Express's body parsers leave on a request they have read. */
interface ParsedRequest extends IncomingMessage {
  readonly body?: unknown;
}

const utf8 = new TextEncoder();

/**
 * The bytes of a body something has already read from the request (an application's parser), or undefined when
 * nothing has; a body read but left nowhere is empty.
 */
function parsedBody(req: ParsedRequest): Uint8Array | undefined {
  if (!req.readableDidRead && !req.readableEnded) return undefined;
  const body = req.body;
  if (body === undefined || body === null) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  return utf8.encode(typeof body === "string" ? body : JSON.stringify(body));
}

/** The handler as Express middleware; `options` as nodeHttpListener takes them. */
export function expressHandler(
  handler: CoreHandler,
  options: Pick<NodeListenerOptions, "stallTimeoutMs"> = {},
): (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void {
  const listener = nodeHttpListener(handler, { ...options, readBody: parsedBody });
  return (req, res) => listener(req, res);
}
