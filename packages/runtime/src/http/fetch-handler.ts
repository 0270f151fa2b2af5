/**
 * The fetch adapter between the framework-agnostic core (server-types.ts) and any server that takes
 * `(Request) => Promise<Response>`: Bun.serve, Deno.serve, a Cloudflare Worker's fetch, Hono, or Node
 * through a fetch bridge. It reads a body as a stream up to the limit and cancels the rest, passes the
 * request's signal to the handler, and streams text/event-stream bodies as they are produced, closing the
 * handler's stream (its iterator's return()) when the client cancels. A 204, 205 or 304 goes out with a null
 * body, the only one the Fetch standard allows them. Web APIs only: no Node module.
 *
 * The path is the Request URL's pathname, whose dot segments the URL parser has resolved (`/a/../b` is
 * `/b`, `%2E%2E` too) before the handler sees it; node-listener.ts routes the path as sent and the bindings
 * refuse a raw dot segment there. A proxy that admits requests by path prefix normalizes the path first.
 */
import {
  BodyAbortedError,
  BodyTooLargeError,
  type CoreHandler,
  type CoreRequest,
  NO_CONTENT_STATUSES,
} from "../core/server-types.js";

/** Reads a fetch body as a stream, up to `limit` bytes; past it, cancels the stream (nothing more is read). */
async function readFetchBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await request.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(`body of ${declared} bytes exceeds ${limit}`);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((e: unknown) => {
      const why = e instanceof Error ? e.message : String(e);
      throw new BodyAbortedError(`the request body ended early: ${why}`, { cause: e });
    });
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(`body exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export function fetchHandler(handler: CoreHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const core: CoreRequest = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      hasQuery: url.search !== "",
      headers: request.headers,
      header: (name) => request.headers.get(name),
      signal: request.signal,
      body: (limit) => readFetchBody(request, limit),
    };
    const out = await handler(core);
    if (typeof out.body === "string") {
      // A HEAD answer's length, if any, is in its headers (head.ts): an empty body would make the server send 0.
      const body = NO_CONTENT_STATUSES.has(out.status) || request.method === "HEAD" ? null : out.body;
      return new Response(body, { status: out.status, headers: out.headers });
    }
    const encoder = new TextEncoder();
    const iterator = out.body[Symbol.asyncIterator]();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      },
      async cancel() {
        await iterator.return?.();
      },
    });
    return new Response(stream, { status: out.status, headers: out.headers });
  };
}
