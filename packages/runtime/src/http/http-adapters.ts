/**
 * Adapters between the framework-agnostic core (server-types.ts) and
 * node:http or fetch-style `(Request) => Response` servers. Both read bodies
 * with a limit, stream text/event-stream bodies as they are produced, and
 * abort the handler's signal when the client goes away; a stream whose client
 * goes away is closed (its iterator's return() is called), also while the
 * node adapter waits for 'drain'. A body is read only up to the limit: the
 * fetch adapter cancels the rest of its stream, and the node adapter answers
 * a request whose body it did not read to the end with "connection: close",
 * then closes the socket gently (closeAfterAnswer). The node adapter builds the Headers,
 * URLSearchParams and AbortSignal objects only when something asks for them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyTooLargeError, type CoreHandler, type CoreRequest } from "../server-types.js";

export function nodeHttpListener(handler: CoreHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let controller: AbortController | undefined;
    let gone = false;
    let onGone: (() => void) | undefined;
    let goneSignal: Promise<void> | undefined;
    // Made only when a stream waits for 'drain': a unary answer needs no promise.
    const whenGone = () =>
      (goneSignal ??= new Promise<void>((resolve) => {
        if (gone) resolve();
        else onGone = resolve;
      }));
    res.on("close", () => {
      if (res.writableFinished) return;
      gone = true;
      controller?.abort();
      onGone?.();
    });
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    let headers: Headers | undefined;
    let query: URLSearchParams | undefined;
    const core: CoreRequest = {
      method: req.method ?? "GET",
      path: q < 0 ? raw : raw.slice(0, q),
      hasQuery: q >= 0,
      get query() {
        query ??= new URLSearchParams(q < 0 ? "" : raw.slice(q + 1));
        return query;
      },
      header(name) {
        const v = req.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
      },
      get headers() {
        if (!headers) {
          headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) {
            if (v === undefined) continue;
            for (const item of Array.isArray(v) ? v : [v]) headers.append(k, item);
          }
        }
        return headers;
      },
      get signal() {
        if (!controller) {
          controller = new AbortController();
          if (gone) controller.abort();
        }
        return controller.signal;
      },
      body: (limit) => readNodeBody(req, limit),
    };
    handler(core).then(
      async (out) => {
        // A body not read to its end (refused, or past the limit): close the connection after the answer
        // rather than read the rest, which may never end.
        const headers = req.complete ? out.headers : closeAfterAnswer(req, out.headers);
        if (typeof out.body === "string") {
          res.writeHead(out.status, { ...headers, "content-length": Buffer.byteLength(out.body) });
          res.end(out.body);
          return;
        }
        res.writeHead(out.status, headers);
        res.flushHeaders();
        await writeNodeStream(res, out.body, () => gone, whenGone);
      },
      () => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end("internal error");
      },
    );
  };
}

/** How long, and how many bytes, a connection closed after its answer reads and drops what still comes. */
const LINGER_MS = 2000;
const LINGER_BYTES = 1 << 20;

/**
 * Marks the answer "connection: close" and makes the close gentle (RFC 9112 §9.6): node:http would close the
 * socket as soon as the answer is written, and closing it with unread bytes resets the connection, which can
 * drop the answer before the client reads it. Instead the server half-closes, then reads and drops what the
 * client still sends for up to LINGER_MS or LINGER_BYTES, then closes.
 */
function closeAfterAnswer(req: IncomingMessage, headers: Readonly<Record<string, string>>): Record<string, string> {
  const socket = req.socket as IncomingMessage["socket"] & { destroySoon?: () => void };
  socket.destroySoon = () => {
    socket.end();
    let dropped = 0;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    socket.on("data", (c: Buffer) => {
      dropped += c.length;
      if (dropped > LINGER_BYTES) socket.destroy();
    });
    req.resume();
  };
  return { ...headers, connection: "close" };
}

/**
 * Writes a streaming body, waiting for 'drain' when the socket is full. When the client goes away
 * (`gone`), while a chunk is written or while waiting for 'drain', the body's return() is called, so
 * the handler's iterator closes; then the response ends. Never rejects: a body that fails destroys
 * the response.
 */
async function writeNodeStream(
  res: ServerResponse,
  body: AsyncIterable<string>,
  gone: () => boolean,
  whenGone: () => Promise<void>,
): Promise<void> {
  const it = body[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (!gone()) {
      const r = await it.next();
      if (r.done) {
        finished = true;
        break;
      }
      if (gone()) break;
      if (!res.write(r.value)) await drainOrGone(res, whenGone());
    }
    if (!finished) await it.return?.();
    res.end();
  } catch {
    res.destroy(); // the body or its return() failed: drop the connection
  }
}

function drainOrGone(res: ServerResponse, goneSignal: Promise<void>): Promise<void> {
  let onDrain = () => {};
  const drained = new Promise<void>((resolve) => (onDrain = resolve));
  res.once("drain", onDrain);
  return Promise.race([drained, goneSignal]).finally(() => res.off("drain", onDrain));
}

/**
 * The body, up to `limit` bytes. Past the limit (declared or counted) it stops reading; the listener then
 * closes the connection after the answer, so the rest is never read.
 */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > limit) {
      reject(new BodyTooLargeError(`body of ${declared} bytes exceeds ${limit}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.off("data", onData);
        req.pause();
        reject(new BodyTooLargeError(`body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(c);
    };
    req.on("data", onData);
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

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
    const { done, value } = await reader.read();
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
    if (typeof out.body === "string")
      return new Response(out.status === 204 ? null : out.body, { status: out.status, headers: out.headers });
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
