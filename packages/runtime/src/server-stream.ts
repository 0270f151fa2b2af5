/**
 * How a server stream (JSON-RPC and HTTP+JSON text/event-stream) starts. The
 * rule: nothing is committed to the client until the handler's first event is
 * ready, so an error before it is answered as the ordinary error reply of the
 * binding (`startStream`). return() is passed on to the source, so a consumer
 * that stops (a client that went away) closes the handler's iterator.
 */

/**
 * Pulls the first item of `source` and resolves with an iterable that yields
 * it and then the rest; rejects with what the source throws before it. A
 * source that ends at once resolves with an empty iterable. The result can be
 * iterated once.
 */
export async function startStream<T>(source: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  let replayed = first.done === true;
  return {
    [Symbol.asyncIterator]: () => ({
      next(): Promise<IteratorResult<T>> {
        if (replayed) return it.next();
        replayed = true;
        return Promise.resolve(first);
      },
      async return(value?: unknown): Promise<IteratorResult<T>> {
        replayed = true;
        if (first.done) return { done: true, value: undefined };
        await it.return?.(value);
        return { done: true, value: undefined };
      },
    }),
  };
}
