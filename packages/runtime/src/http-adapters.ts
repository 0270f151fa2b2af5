/**
 * Adapters between the framework-agnostic core (server-types.ts) and
 * node:http or fetch-style `(Request) => Response` servers. Both read bodies
 * with a limit, stream text/event-stream bodies as they are produced, and
 * abort the handler's signal when the client goes away; a stream whose client
 * goes away is closed (its iterator's return() is called), also while the
 * node adapter waits for 'drain'. The node adapter builds the Headers,
 * URLSearchParams and AbortSignal objects only when something asks for them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyTooLargeError, type CoreHandler, type CoreRequest } from "./server-types.js";

export function nodeHttpListener(handler: CoreHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let controller: AbortController | undefined;
    let gone = false;
    let onGone = () => {};
    const goneSignal = new Promise<void>((resolve) => (onGone = resolve));
    res.on("close", () => {
      if (res.writableFinished) return;
      gone = true;
      controller?.abort();
      onGone();
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
        if (typeof out.body === "string") {
          res.writeHead(out.status, { ...out.headers, "content-length": Buffer.byteLength(out.body) });
          res.end(out.body);
          return;
        }
        res.writeHead(out.status, out.headers);
        res.flushHeaders();
        await writeNodeStream(res, out.body, () => gone, goneSignal);
      },
      () => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end("internal error");
      },
    );
  };
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
  goneSignal: Promise<void>,
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
      if (!res.write(r.value)) await drainOrGone(res, goneSignal);
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

function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > limit) {
      req.resume();
      reject(new BodyTooLargeError(`body of ${declared} bytes exceeds ${limit}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyTooLargeError(`body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
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
      body: async (limit) => {
        const declared = Number(request.headers.get("content-length") ?? "0");
        if (declared > limit) throw new BodyTooLargeError(`body of ${declared} bytes exceeds ${limit}`);
        const bytes = new Uint8Array(await request.arrayBuffer());
        if (bytes.length > limit) throw new BodyTooLargeError(`body exceeds ${limit} bytes`);
        return bytes;
      },
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
