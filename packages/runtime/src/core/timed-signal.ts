/**
 * One signal for a piece of work that its caller's signals and a timeout can end (the clients' calls in
 * http/client-http.ts, a card resolve in card/card-resolver.ts, a gRPC request's read in grpc/grpc-limits.ts):
 *
 *   timedSignal(sources, timeoutMs)   aborted by the first of `sources` to abort, with its reason, or when
 *                                     `timeoutMs` has passed, with a TimeoutError; end() stops the timer.
 *                                     A timeoutMs past what a timer takes (2^31 - 1 ms; Infinity) sets none
 *
 * The timeout is a controller of its own that its timer holds, not AbortSignal.timeout: AbortSignal.any holds its
 * sources weakly, and on Node 20 a timeout signal nothing else holds is collected and never fires, so a body that
 * trickles in after the headers would be read without bound. The sources are joined by AbortSignal.any, which
 * adds no listener to them, so work that ends (or a stream its caller drops) leaves nothing on a long-lived
 * signal. The timer does not keep the process alive.
 */
import { MAX_DEADLINE_MS } from "./limits.js";

/** The work's signal (undefined when nothing can end it) and end(), which stops the timer once the work is over. */
export interface TimedSignal {
  readonly signal: AbortSignal | undefined;
  end(): void;
}

const noTimer = () => {};

/** A signal aborted by any of `sources` or after `timeoutMs` (none when undefined). */
export function timedSignal(sources: readonly (AbortSignal | undefined)[], timeoutMs: number | undefined): TimedSignal {
  const given = sources.filter((s): s is AbortSignal => s !== undefined);
  if (timeoutMs === undefined || timeoutMs > MAX_DEADLINE_MS) {
    return { signal: given.length <= 1 ? given[0] : AbortSignal.any(given), end: noTimer };
  }
  const timedOut = new AbortController();
  const timer = setTimeout(
    () => timedOut.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    timeoutMs,
  );
  (timer as { unref?: () => void }).unref?.();
  return { signal: AbortSignal.any([...given, timedOut.signal]), end: () => clearTimeout(timer) };
}
