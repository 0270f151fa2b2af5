/**
 * Adapters between the framework-agnostic core (server-types.ts) and
 * node:http or fetch-style `(Request) => Response` servers. Both read bodies
 * with a limit, stream text/event-stream bodies as they are produced, and
 * abort the handler's signal when the client goes away. The node adapter
 * builds the Headers, URLSearchParams and AbortSignal objects only when
 * something asks for them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyTooLargeError, type CoreHandler, type CoreRequest } from "./server-types.js";

export function nodeHttpListener(handler: CoreHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let controller: AbortController | undefined;
    let gone = false;
    res.on("close", () => {
      if (res.writableFinished) return;
      gone = true;
      controller?.abort();
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
        for await (const chunk of out.body) {
          if (gone) break;
          if (!res.write(chunk)) await new Promise<void>((resolve) => res.once("drain", resolve));
        }
        res.end();
      },
      () => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end("internal error");
      },
    );
  };
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
