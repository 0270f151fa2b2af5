/**
 * Waiting that a signal can end: untilAborted(work, signal) is `work`'s outcome, or the signal's reason once it
 * aborts first; eventsUntilAborted(events, signal) yields `events` until the signal aborts, then rejects with its
 * reason and closes them (not awaited: a source busy with a read closes when it can). Each wait's listener is
 * removed when the wait ends, so a long-lived signal gathers none.
 */

export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    // `work` is left to settle alone: its failure is nobody's to hear.
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  let listener = () => {};
  const aborted = new Promise<never>((_, reject) => {
    listener = () => reject(signal.reason);
    signal.addEventListener("abort", listener, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", listener));
}

export async function* eventsUntilAborted<T>(
  events: AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  if (signal === undefined) {
    yield* events;
    return;
  }
  const source = events[Symbol.asyncIterator]();
  try {
    for (let read = await untilAborted(source.next(), signal); !read.done; ) {
      yield read.value;
      read = await untilAborted(source.next(), signal);
    }
  } finally {
    void Promise.resolve(source.return?.()).catch(() => {});
  }
}
