/**
 * The node:http adapter between the framework-agnostic core (server-types.ts) and a node:http server
 * (`createServer(nodeHttpListener(handler))`); fetch-handler.ts is the other. It reads a body with a
 * limit, streams text/event-stream bodies as they are produced, and aborts the handler's signal when the
 * client goes away; a stream whose client goes away is closed (its iterator's return() is called), also
 * while the adapter waits for 'drain'. A body is read only up to the limit: a request whose body it did not
 * read to the end is answered with "connection: close", then the socket is closed gently (closeAfterAnswer).
 * A text body is sent with its Content-Length, except in the answer to HEAD, whose headers already carry
 * the length the GET sends (head.ts) and go out as they are, and in a 204, 205 or 304, which has none.
 * The path is routed as sent; an absolute-form request target (`GET http://host/path`) by its path.
 *
 * A client that reads nothing of its answer cannot hold it in memory for good: a text body over WRITE_CHUNK
 * bytes goes out in chunks of that size, and a stream event at a time, each waiting for 'drain'; when none
 * comes within `stallTimeoutMs` (the client read nothing of what was sent meanwhile), the connection is
 * destroyed. A client that reads slowly but reads goes on. A smaller text body is handed to the socket whole.
 *
 * A text body up to WRITE_CHUNK bytes is ended with the others made in the same turn of the event loop, all at
 * its end (EndBatch), not each as soon as it is made. Under load one turn reads many requests; their answers then
 * leave one after the other, so a client woken by the first finds the next ones arriving while it runs, instead
 * of being put to sleep and woken again for each (on one machine: about a third less server CPU per small
 * request, bench/server-throughput.js). An answer waits at most for the rest of its turn's work.
 *
 * The adapter is on every request's path, so it allocates little: one NodeRequest per request (its members
 * live on the prototype), the Headers, URLSearchParams and AbortSignal only when something asks for them,
 * and the response's 'close' listener only once a signal or a stream needs it (a client that left before
 * then is seen from `res.destroyed`). A body whose declared length has arrived by the time it is asked for
 * (the usual small request) is taken from the stream's buffer at once, without listeners.
 *
 * The one module of the universal HTTP core that needs Node (Buffer, node:http's types): Bun and Deno run
 * it too, and bundles for Workers or browsers that do not call it leave it out.
 */
import { verifiedClientCertificate, type ClientCertificate } from "../core/client-certificate.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  BodyAbortedError,
  BodyTooLargeError,
  type CoreHandler,
  type CoreRequest,
  type CoreResponse,
  NO_CONTENT_STATUSES,
} from "../core/server-types.js";
import { headerRecord } from "../core/records.js";
import { MAX_DEADLINE_MS } from "../core/limits.js";

export interface NodeListenerOptions {
  /**
   * A body a framework has already read (Express's body parsers): its bytes, or undefined to read it from the
   * request as usual. Held to the same limit as a body read here.
   */
  readonly readBody?: (req: IncomingMessage) => Uint8Array | undefined;
  /**
   * How long an answer waits for a client that reads nothing of it, in milliseconds: then the connection is
   * destroyed (module header). Default 30 000.
   */
  readonly stallTimeoutMs?: number;
}

/** The default of NodeListenerOptions.stallTimeoutMs. */
const STALL_TIMEOUT_MS = 30_000;
/** A text body longer than this many bytes goes out in chunks of it, each waiting for 'drain'. */
const WRITE_CHUNK = 64 * 1024;

export function nodeHttpListener(
  handler: CoreHandler,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const readBody = options.readBody;
  const stallMs = options.stallTimeoutMs ?? STALL_TIMEOUT_MS;
  if (!(stallMs > 0 && stallMs <= MAX_DEADLINE_MS)) {
    throw new RangeError(`nodeHttpListener: stallTimeoutMs must be > 0 and at most ${MAX_DEADLINE_MS}; got ${stallMs}`);
  }
  const ends = new EndBatch();
  return (req, res) => void answerNode(handler, new NodeRequest(req, res, readBody?.(req)), req, res, stallMs, ends);
}

/**
 * Ends answers at the end of the event loop's turn, in the order given (module header): one setImmediate for all
 * the answers of a turn. An answer whose connection went away during the turn (a reset read in the same poll) is
 * destroyed, not ended: its 'close' then says it did not finish, and the request's signal aborts, as when the
 * client leaves before the answer. An end that throws destroys its response, is reported as a process warning,
 * and leaves the others to end.
 */
class EndBatch {
  #responses: ServerResponse[] = [];
  #bodies: (string | Buffer)[] = [];

  end(res: ServerResponse, body: string | Buffer): void {
    if (this.#responses.push(res) === 1) setImmediate(this.#flush);
    this.#bodies.push(body);
  }

  readonly #flush = (): void => {
    const responses = this.#responses;
    const bodies = this.#bodies;
    this.#responses = [];
    this.#bodies = [];
    for (let i = 0; i < responses.length; i++) {
      const res = responses[i]!;
      if (res.destroyed || res.socket?.destroyed === true) {
        res.destroy();
        continue;
      }
      try {
        res.end(bodies[i]);
      } catch (error) {
        res.destroy();
        const why = error instanceof Error ? error.message : String(error);
        process.emitWarning(
          `nodeHttpListener: ending an answer threw, so its connection was closed: ${why}`,
          "A2AAnswerEnd",
        );
      }
    }
  };
}

/**
 * A request target in origin-form: an absolute-form one (`http://host/a2a?x`, which a server must accept,
 * RFC 9112 §3.2.2) loses its scheme and authority; the path and query stay as sent (no dot segment resolved).
 */
function originForm(raw: string): string {
  if (raw.startsWith("/")) return raw;
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(raw);
  if (authority === null) return raw;
  const rest = raw.slice(authority[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/** Header names as the node request keys them (lowercase), for the few names the bindings ask for. */
const lowerNames = new Map<string, string>();
const LOWER_NAMES_KEPT = 64;

function lowerName(name: string): string {
  const known = lowerNames.get(name);
  if (known !== undefined) return known;
  const lower = name.toLowerCase();
  if (lowerNames.size < LOWER_NAMES_KEPT) lowerNames.set(name, lower);
  return lower;
}

/** A node:http request as a CoreRequest, plus whether its client went away (for the signal and streams). */
class NodeRequest implements CoreRequest {
  readonly method: string;
  readonly path: string;
  readonly hasQuery: boolean;
  /** Whether the client went away before the answer was written. */
  gone = false;
  private readonly req: IncomingMessage;
  private readonly res: ServerResponse;
  private readonly q: number;
  private watching = false;
  private readWhole = false;
  private controller: AbortController | undefined;
  private onGone: (() => void) | undefined;
  private goneSignal: Promise<void> | undefined;
  private builtHeaders: Headers | undefined;
  private builtQuery: URLSearchParams | undefined;
  /** The request target in origin-form (path and query), as sent. */
  private readonly target: string;
  /** The body a framework read before the request got here, if it did. */
  private readonly readBefore: Uint8Array | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, readBefore?: Uint8Array) {
    this.req = req;
    this.res = res;
    this.readBefore = readBefore;
    const raw = originForm(req.url ?? "/");
    this.target = raw;
    const q = raw.indexOf("?");
    this.q = q;
    this.method = req.method ?? "GET";
    this.path = q < 0 ? raw : raw.slice(0, q);
    this.hasQuery = q >= 0;
  }

  get clientCertificate(): ClientCertificate | undefined {
    return verifiedClientCertificate(this.req.socket);
  }

  get query(): URLSearchParams {
    this.builtQuery ??= new URLSearchParams(this.q < 0 ? "" : this.target.slice(this.q + 1));
    return this.builtQuery;
  }

  header(name: string): string | null {
    const v = this.req.headers[lowerName(name)];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  }

  get headers(): Headers {
    if (!this.builtHeaders) {
      const headers = new Headers();
      for (const [k, v] of Object.entries(this.req.headers)) {
        if (v === undefined) continue;
        for (const item of Array.isArray(v) ? v : [v]) headers.append(k, item);
      }
      this.builtHeaders = headers;
    }
    return this.builtHeaders;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      this.watch();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }

  body(limit: number): Promise<Uint8Array> {
    const before = this.readBefore;
    if (before !== undefined) {
      this.readWhole = true;
      if (before.length > limit) return Promise.reject(new BodyTooLargeError(`body exceeds ${limit} bytes`));
      return Promise.resolve(before);
    }
    const whole = this.buffered(limit);
    if (whole) return Promise.resolve(whole);
    // The handler usually asks during the 'request' event, before the parser has pushed a small body that came
    // in the same packet; one turn of the microtask queue later it has.
    return Promise.resolve(limit).then((n) => this.buffered(n) ?? readNodeBody(this.req, n));
  }

  /**
   * The whole body when all its declared bytes are buffered and nothing was read yet, taken at once without
   * listeners; the parser may not have marked the message complete yet, so the body then counts as read to
   * its end. Else undefined.
   */
  private buffered(limit: number): Buffer | undefined {
    const req = this.req;
    const declared = Number(req.headers["content-length"] ?? "0");
    if (!(declared > 0 && declared <= limit && req.readableLength === declared && !req.readableDidRead)) return;
    const whole = req.destroyed ? null : (req.read() as Buffer | null);
    if (whole === null || whole.length !== declared) return;
    this.readWhole = true;
    return whole;
  }

  /** Whether the body was read to its end: the connection can serve the next request. */
  get bodyDone(): boolean {
    return this.readWhole || this.req.complete;
  }

  /** Starts watching for the client going away: at once if it already has, else on the response's 'close'. */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    const res = this.res;
    if (res.destroyed && !res.writableFinished) {
      this.gone = true;
      return;
    }
    res.on("close", () => {
      if (res.writableFinished) return;
      this.gone = true;
      this.controller?.abort();
      this.onGone?.();
    });
  }

  /** Resolves when the client goes away; made only when a stream waits for 'drain'. */
  whenGone(): Promise<void> {
    this.goneSignal ??= new Promise<void>((resolve) => {
      if (this.gone) resolve();
      else this.onGone = resolve;
    });
    return this.goneSignal;
  }
}

/**
 * Runs the handler and writes its answer (a small text body at the end of the turn, with others: EndBatch); a
 * handler that fails answers 500. Never rejects, but for a write that throws.
 */
async function answerNode(
  handler: CoreHandler,
  core: NodeRequest,
  req: IncomingMessage,
  res: ServerResponse,
  stallMs: number,
  ends: EndBatch,
): Promise<void> {
  let out: CoreResponse;
  try {
    out = await handler(core);
  } catch {
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("internal error");
    return;
  }
  // A body not read to its end (refused, or past the limit): close the connection after the answer
  // rather than read the rest, which may never end.
  const headers = core.bodyDone ? out.headers : closeAfterAnswer(req, out.headers);
  if (typeof out.body === "string") {
    // A HEAD answer carries the GET's length, if it has one (head.ts); a 204, 205 or 304 none; any other gets its
    // body's. A record built by assignment, not a spread copy, which node:http would walk slowly (core/records.ts).
    // A text that may pass WRITE_CHUNK (3 bytes per UTF-16 unit at most) is encoded once, for its length and
    // its chunks; a shorter one is only measured.
    const encoded = out.body.length * 3 > WRITE_CHUNK ? Buffer.from(out.body, "utf8") : undefined;
    const bytes = encoded?.length ?? Buffer.byteLength(out.body);
    const asIs = core.method === "HEAD" || NO_CONTENT_STATUSES.has(out.status);
    res.writeHead(out.status, asIs ? headers : headerRecord(headers, { "content-length": String(bytes) }));
    if (asIs || encoded === undefined || bytes <= WRITE_CHUNK) ends.end(res, encoded ?? out.body);
    else await writeNodeStream(res, chunksOf(encoded), core, stallMs);
    return;
  }
  res.writeHead(out.status, headers);
  res.flushHeaders();
  await writeNodeStream(res, out.body, core, stallMs);
}

/** An encoded text body as chunks of WRITE_CHUNK bytes. */
async function* chunksOf(bytes: Buffer): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += WRITE_CHUNK) yield bytes.subarray(at, at + WRITE_CHUNK);
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
  return headerRecord(headers, { connection: "close" });
}

/**
 * Writes a streaming body, waiting for 'drain' when the socket is full. When the client goes away
 * (`core.gone`), while a chunk is written or while waiting for 'drain', the body's return() is called, so
 * the handler's iterator closes; then the response ends. A 'drain' that does not come within `stallMs`
 * destroys the response, and the body's return() is called as well. Never rejects: a body that fails
 * destroys the response.
 */
async function writeNodeStream(
  res: ServerResponse,
  body: AsyncIterable<string | Uint8Array>,
  core: NodeRequest,
  stallMs: number,
): Promise<void> {
  core.watch();
  const it = body[Symbol.asyncIterator]();
  let finished = false;
  let stalled = false;
  try {
    while (!core.gone && !stalled) {
      const r = await it.next();
      if (r.done) {
        finished = true;
        break;
      }
      if (core.gone) break;
      if (!res.write(r.value)) stalled = (await drainOrGone(res, core.whenGone(), stallMs)) === "stalled";
    }
    if (stalled) res.destroy();
    if (!finished) await it.return?.();
    if (!stalled) res.end();
  } catch {
    res.destroy(); // the body or its return() failed: drop the connection
  }
}

/** Waits for 'drain', the client going away, or `stallMs`, whichever comes first. */
function drainOrGone(
  res: ServerResponse,
  goneSignal: Promise<void>,
  stallMs: number,
): Promise<"drained" | "gone" | "stalled"> {
  let onDrain = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const drained = new Promise<"drained">((resolve) => (onDrain = () => resolve("drained")));
  const stalled = new Promise<"stalled">((resolve) => (timer = setTimeout(() => resolve("stalled"), stallMs)));
  res.once("drain", onDrain);
  return Promise.race([drained, goneSignal.then(() => "gone" as const), stalled]).finally(() => {
    res.off("drain", onDrain);
    clearTimeout(timer);
  });
}

/**
 * The body, up to `limit` bytes. Past the limit (declared or counted) it stops reading; the listener then
 * closes the connection after the answer, so the rest is never read.
 */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return Promise.reject(new BodyTooLargeError(`body of ${declared} bytes exceeds ${limit}`));
  // Read to its end already (by a framework's parser): there is nothing left, and 'end' will not come again.
  if (req.readableEnded) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
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
    // The request stream fails only when its connection does: the client closed or reset it mid-body.
    req.on("error", (e) => reject(new BodyAbortedError(`the request body ended early: ${e.message}`, { cause: e })));
  });
}
