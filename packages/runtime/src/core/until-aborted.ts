/**
 * Waiting that a signal can end, for the server's gRPC calls (grpc/grpc-limits.ts: a deadline or a client gone
 * away) and the clients' calls (http/client-http.ts: the caller's signals and timeout, whatever signal an
 * interceptor passed on):
 *
 *   untilAborted(work, signal)         what `work` resolves to, unless the signal aborts first: then its reason
 *   eventsUntilAborted(events, signal) the events until the signal aborts; then the source is closed at once
 *                                      (not awaited: it may be waiting for its next event), even while this
 *                                      generator waits for its consumer, and the reason is thrown
 *
 * The reason is the signal's, or what `reasonOf` makes of the signal. Each wait's listener is removed when the
 * wait ends, so a long-lived signal gathers none; a read left behind by an abort settles unheard.
 */

/** What an abort is thrown as. */
export type AbortReason = (signal: AbortSignal) => unknown;

const signalReason: AbortReason = (signal) => signal.reason;

/** Listens for the signal's abort until `stop` is called. */
function onAbort(signal: AbortSignal, reasonOf: AbortReason): { readonly aborted: Promise<never>; stop(): void } {
  let stop = () => {};
  const aborted = new Promise<never>((_, reject) => {
    const listener = () => reject(reasonOf(signal));
    if (signal.aborted) return listener();
    signal.addEventListener("abort", listener, { once: true });
    stop = () => signal.removeEventListener("abort", listener);
  });
  aborted.catch(() => {});
  return { aborted, stop: () => stop() };
}

export async function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  reasonOf: AbortReason = signalReason,
): Promise<T> {
  if (signal === undefined) return work;
  const abort = onAbort(signal, reasonOf);
  try {
    // The race listens to `work` too: its failure after an abort is heard, and dropped.
    return await Promise.race([work, abort.aborted]);
  } finally {
    abort.stop();
  }
}

export async function* eventsUntilAborted<T>(
  events: AsyncIterable<T>,
  signal: AbortSignal | undefined,
  reasonOf: AbortReason = signalReason,
): AsyncGenerator<T> {
  if (signal === undefined) return yield* events;
  const it = events[Symbol.asyncIterator]();
  const abort = onAbort(signal, reasonOf);
  const close = () => void Promise.resolve(it.return?.()).catch(() => {});
  signal.addEventListener("abort", close, { once: true });
  let done = false;
  try {
    for (;;) {
      const r = await Promise.race([it.next(), abort.aborted]);
      if (r.done) {
        done = true;
        break;
      }
      yield r.value;
    }
    if (signal.aborted) throw reasonOf(signal);
  } finally {
    abort.stop();
    signal.removeEventListener("abort", close);
    if (!done) close();
  }
}
