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
 */

/** What the guard writes on a node:http2 or node:http response. */
export interface GuardedResponse {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string): unknown;
  destroy(): unknown;
}

/** The listener, with a synchronous throw answered 400 instead of ending the process (see the header). */
export function guardGrpcListener<L extends (req: never, res: never) => void>(listener: L): L {
  const guarded = (req: never, res: never) => {
    try {
      listener(req, res);
    } catch (error) {
      answerUnreadable(res as GuardedResponse, error);
    }
  };
  return guarded as L;
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
