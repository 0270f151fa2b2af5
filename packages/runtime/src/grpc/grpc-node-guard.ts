/**
 * A guard around the node:http2 (or node:http) request listener that serves gRPC, connectNodeAdapter's:
 * `createServer(guardGrpcListener(connectNodeAdapter({ routes, ... })))`.
 *
 *   why      connect-node reads a request's URL synchronously, as new URL(path, "http://" + :authority), when
 *            the path is a registered method; an :authority node:http2 lets through but the URL parser refuses
 *            ("[", "x:99999", "%zz") throws there, and a throw in a 'request' listener ends the process, before
 *            any interceptor or authentication runs
 *   answer   a request the listener throws on synchronously is answered HTTP 400 with the error's message
 *            (a gRPC client reads INTERNAL), or its stream is destroyed if the listener had started an answer;
 *            the process goes on. What the listener does asynchronously is its own to answer, as before.
 *   unread   on node:http2, a call answered before its request ended (a message past the size limit, refused
 *            from its length prefix) is closed with RST_STREAM NO_ERROR once its answer's trailers are sent (RFC 9113
 *            §8.1), and what is left of its request is dropped: node:http2 otherwise keeps the stream, and
 *            the unread bytes with it, until the client ends the request, which a hostile client never does.
 */

/** RST_STREAM's NO_ERROR code (RFC 9113 §7): the answer is complete, the rest of the request is not needed. */
const NO_ERROR = 0;

/** The part of a node:http2 server stream the guard closes. */
interface GuardedStream {
  readonly destroyed: boolean;
  readonly readableEnded: boolean;
  close(code: number): unknown;
  resume(): unknown;
  once(event: "wantTrailers", listener: () => void): unknown;
}

/** What the guard writes on a node:http2 or node:http response. */
export interface GuardedResponse {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string): unknown;
  destroy(): unknown;
  /** Present on node:http2's compatibility response alone. */
  readonly stream?: GuardedStream;
}

/** The listener, with a synchronous throw answered 400 instead of ending the process (see the header). */
export function guardGrpcListener<L extends (req: never, res: never) => void>(listener: L): L {
  const guarded = (req: never, res: never) => {
    closeUnreadAfterTrailers(res as GuardedResponse);
    try {
      listener(req, res);
    } catch (error) {
      answerUnreadable(res as GuardedResponse, error);
    }
  };
  return guarded as L;
}

/**
 * node:http2's compatibility response sends its trailers from its own 'wantTrailers' listener, added before this
 * one, from within node:http2's send loop: the stream is closed on the next turn, after them (RST_STREAM sent
 * from within that loop went out before the trailers, or not at all).
 */
function closeUnreadAfterTrailers(res: GuardedResponse): void {
  const stream = res.stream;
  if (stream === undefined) return;
  stream.once("wantTrailers", () => setImmediate(() => closeUnread(stream)));
}

function closeUnread(stream: GuardedStream): void {
  if (stream.destroyed || stream.readableEnded) return;
  stream.close(NO_ERROR);
  stream.resume();
}

function answerUnreadable(res: GuardedResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const why = error instanceof Error ? error.message : String(error);
  res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
  res.end(`the request cannot be read: ${why.slice(0, 200)}\n`);
}
