/**
 * One webhook POST over node:http or node:https (push-attempt.ts loads it on demand where node:http exists:
 * Node, Bun, Deno):
 *
 *   POST <url>   headers as given + Content-Length; body as given (UTF-8)
 *   -> answered {status, retryAfter, closed}   any HTTP answer, once its status line and headers came; its
 *                                      body is dropped (at most 64 KiB read), and the connection closed once
 *                                      the notification is sent whole and the answer read, or at timeoutMs:
 *                                      then `closed` resolves
 *   -> failed {cause, timedOut, retryable}   no answer: refused, reset, DNS, TLS, or no status line within
 *                                      timeoutMs (retryable); a request node:http refuses to build (not)
 *
 * Decisions: the connection goes only to the screened addresses (pinnedLookup below) when there are
 * any; no agent (a fresh connection per attempt: nothing pooled outlives a delivery); redirects are not
 * followed (a 3xx is an answer like any other, so a webhook cannot bounce a delivery to an unscreened host);
 * the timeout covers the attempt from connecting to the answer's headers. The status decides: a 2xx whose
 * body trickles is delivered (waiting for its end would time out and send the notification again).
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { type AttemptInput, type AttemptOutcome, MAX_DRAIN_BYTES } from "./push-outcome.js";
import type { ScreenedAddress } from "./url-screen.js";
import { headerRecord } from "../core/records.js";

function requestOptions(input: AttemptInput, body: Buffer): RequestOptions {
  const { url, addresses } = input.target;
  const options: RequestOptions = {
    method: "POST",
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    path: `${url.pathname}${url.search}`,
    headers: headerRecord(input.headers, { "Content-Length": String(body.length) }),
    agent: false,
  };
  if (url.port !== "") options.port = Number(url.port);
  if (addresses.length > 0) options.lookup = pinnedLookup(addresses);
  return options;
}

function answered(res: IncomingMessage, closed: Promise<void>): AttemptOutcome {
  const retryAfter = res.headers["retry-after"];
  return {
    kind: "answered",
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? "",
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    closed,
  };
}

/**
 * A `lookup` for node:http(s) that answers only with the screened addresses (no second DNS query). It answers
 * on the next tick, as DNS does: node:net connects in the callback, and a connect that fails at once (no route,
 * EINVAL) emits the socket's error before node:http listens for it, which would crash the process.
 */
export function pinnedLookup(addresses: readonly ScreenedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family;
    const wanted = family === 4 || family === "IPv4" ? 4 : family === 6 || family === "IPv6" ? 6 : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    const first = usable[0];
    if (first === undefined) {
      const err: NodeJS.ErrnoException = new Error(`no screened IPv${wanted} address for ${hostname}`);
      err.code = "ENOTFOUND";
      process.nextTick(callback, err, "", 0);
    } else if (options.all === true) process.nextTick(callback, null, [...usable]);
    else process.nextTick(callback, null, first.address, first.family);
  };
}

/**
 * Ends the attempt's connection once the notification is sent whole and the answer read (to its end, or
 * MAX_DRAIN_BYTES of it), or at `timeoutMs`.
 */
function closeWhenDone(req: ReturnType<typeof httpRequest>, res: IncomingMessage, timeoutMs: number): void {
  let pending = 2;
  const timer = setTimeout(() => req.destroy(), timeoutMs);
  timer.unref?.();
  const one = () => {
    if (--pending > 0) return;
    clearTimeout(timer);
    req.destroy();
  };
  if (req.writableFinished) one();
  else req.once("finish", one);
  let read = 0;
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read <= MAX_DRAIN_BYTES) return;
    res.off("data", onData).off("end", one).pause();
    one();
  };
  res.on("data", onData).once("end", one);
}

/** Posts once; never rejects (every failure is an outcome). */
export function postOnceNode(input: AttemptInput): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    const body = Buffer.from(input.body, "utf8");
    let req: ReturnType<typeof httpRequest> | undefined;
    let settled = false;
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      const cause = new Error(`no answer within ${input.timeoutMs} ms`);
      cause.name = "TimeoutError";
      settle({ kind: "failed", cause, timedOut: true, retryable: true });
      req?.destroy(cause);
    }, input.timeoutMs);
    try {
      const send = input.target.url.protocol === "https:" ? httpsRequest : httpRequest;
      req = send(requestOptions(input, body), (res) => {
        const closed = new Promise<void>((resolve) => req!.once("close", () => resolve()));
        settle(answered(res, closed));
        // The status decides; the answer's body is read and dropped, and the connection (never reused: agent
        // false) ends once the notification is sent whole (a webhook may answer before reading it), or at the
        // timeout.
        res.on("error", () => {});
        closeWhenDone(req!, res, input.timeoutMs);
      });
      req.on("error", (cause) => settle({ kind: "failed", cause, timedOut: false, retryable: true }));
      req.end(body);
    } catch (cause) {
      // Synchronous refusals, e.g. a header value with a line break (ERR_INVALID_CHAR).
      const error = cause instanceof Error ? cause : new Error(String(cause));
      settle({ kind: "failed", cause: error, timedOut: false, retryable: false });
    }
  });
}
