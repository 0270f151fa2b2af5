/**
 * One webhook POST (a single attempt; push.ts decides on retries):
 *
 *   POST <url>   headers as given + Content-Length; body as given (UTF-8)
 *   -> answered {status, retryAfter, closed}   any HTTP answer, once its headers came (the status decides: a
 *                                      2xx whose body trickles is delivered); the body is drained after, at
 *                                      most 64 KiB read and within timeoutMs, and dropped: then `closed`
 *                                      resolves
 *   -> failed {cause, timedOut, retryable}   no answer: refused, reset, DNS, TLS, or no headers within
 *                                      timeoutMs (retryable); a request that cannot be built (not)
 *
 * Where node:http exists (Node, Bun, Deno: `process.versions.node` is set) the POST goes over it
 * (push-attempt-node.ts, imported on first use), connecting only to the screened addresses. Elsewhere
 * (Cloudflare Workers, browsers) it goes over fetch: redirects are not followed either, and the connection
 * resolves the host itself, since such a runtime has no DNS lookup to screen with (url-screen.ts).
 */
import { hasNodeBuiltins } from "../core/node-builtins.js";
import { type AttemptInput, type AttemptOutcome, MAX_DRAIN_BYTES } from "./push-outcome.js";

export type { AttemptInput, AttemptOutcome } from "./push-outcome.js";

type Post = (input: AttemptInput) => Promise<AttemptOutcome>;

let nodePost: Promise<Post> | undefined;

/** Posts once; never rejects (every failure is an outcome). */
export function postOnce(input: AttemptInput): Promise<AttemptOutcome> {
  if (!hasNodeBuiltins()) return postOnceFetch(input);
  nodePost ??= import("./push-attempt-node.js").then((m) => m.postOnceNode);
  return nodePost.then((post) => post(input));
}

/** The POST over fetch, for runtimes without node:http. */
export async function postOnceFetch(input: AttemptInput): Promise<AttemptOutcome> {
  const deadline = performance.now() + input.timeoutMs;
  let request: Request;
  try {
    const signal = AbortSignal.timeout(input.timeoutMs);
    request = new Request(input.target.url, {
      method: "POST",
      headers: input.headers,
      body: input.body,
      redirect: "manual",
      signal,
    });
  } catch (cause) {
    // A request fetch refuses to build, e.g. a header value with a line break.
    return { kind: "failed", cause: asError(cause), timedOut: false, retryable: false };
  }
  try {
    const res = await fetch(request);
    // Read so that fetch may reuse the connection, until the attempt's deadline: the request's signal does not
    // reach the body once the Request is collected (undici links them weakly), so the drain has a timer of its own.
    const closed = drain(res, deadline).catch(() => {});
    const retryAfter = res.headers.get("retry-after");
    return {
      kind: "answered",
      status: res.status,
      statusText: res.statusText,
      ...(retryAfter !== null ? { retryAfter } : {}),
      closed,
    };
  } catch (cause) {
    const error = asError(cause);
    if (error.name !== "TimeoutError") return { kind: "failed", cause: error, timedOut: false, retryable: true };
    const timeout = new Error(`no answer within ${input.timeoutMs} ms`);
    timeout.name = "TimeoutError";
    return { kind: "failed", cause: timeout, timedOut: true, retryable: true };
  }
}

/**
 * Reads an answer's body up to MAX_DRAIN_BYTES and drops it; the rest, or what has not come by `deadline`
 * (performance.now()), is cancelled.
 */
async function drain(res: Response, deadline: number): Promise<void> {
  const reader = res.body?.getReader();
  if (!reader) return;
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), Math.max(0, deadline - performance.now()));
  try {
    let read = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.length;
      if (read > MAX_DRAIN_BYTES) return void (await reader.cancel().catch(() => {}));
    }
  } finally {
    clearTimeout(timer);
  }
}

const asError = (cause: unknown): Error => (cause instanceof Error ? cause : new Error(String(cause)));
