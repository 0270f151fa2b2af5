/**
 * How a server stream (JSON-RPC and HTTP+JSON text/event-stream) starts and
 * keeps going. The rule: nothing is committed to the client until the
 * handler's first event is ready, so an error before it is answered as the
 * binding chooses (`startStream`): the ordinary error reply, or, where the
 * version's override entry api.streamStart says `in-stream` (v0.3 JSON-RPC),
 * a stream holding only the error event (server-jsonrpc.ts); after the first event,
 * a stream that stays silent for `keepAliveMs` gets an SSE comment line, so
 * proxies and clients do not time it out (`withKeepAlive`). The body's
 * lines come from `sseLines`. Each passes return() on to the source, so a
 * consumer that stops (a client that went away, a HEAD that reads nothing)
 * closes the handler's iterator, also before it asked for a first line: none
 * of them is an async generator, whose return() before its first next() would
 * end it without reaching the source.
 */

/** The SSE comment a silent stream sends; it goes between events, where a blank line dispatches nothing. */
export const KEEP_ALIVE_COMMENT = ": keep-alive\n\n";

/** Default `keepAliveMs` of the servers: 15 s. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

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

const END: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The text of a started stream: `line(item)` for each item of `source`; a failure (the source's, or `line`'s,
 * which closes the source) is `errorLine(e)`, the last line. return() closes the source (see the header), and
 * never rejects: what the source's return() throws is dropped.
 */
export function sseLines<T>(
  source: AsyncIterable<T>,
  line: (item: T) => string,
  errorLine: (e: unknown) => string,
): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      let done = false;
      const failed = (e: unknown): IteratorResult<string> => {
        done = true;
        return { done: false, value: errorLine(e) };
      };
      return {
        async next(): Promise<IteratorResult<string>> {
          if (done) return END;
          let item: IteratorResult<T>;
          try {
            item = await it.next();
          } catch (e) {
            return failed(e);
          }
          if (item.done) {
            done = true;
            return END;
          }
          try {
            return { done: false, value: line(item.value) };
          } catch (e) {
            await Promise.resolve(it.return?.()).catch(() => {});
            return failed(e);
          }
        },
        async return(): Promise<IteratorResult<string>> {
          if (done) return END;
          done = true;
          // A handler's cleanup that throws has no one to answer: the consumer is leaving (withKeepAlive alike).
          await Promise.resolve(it.return?.()).catch(() => {});
          return END;
        },
      };
    },
  };
}

/**
 * Yields the chunks of `source`, plus KEEP_ALIVE_COMMENT whenever the next
 * chunk takes longer than `ms` to arrive (`ms` <= 0: never). The timer runs
 * only while the consumer waits for a chunk, so a consumer held up by
 * backpressure gets no comments queued. On return(), the source is returned
 * too; if a chunk is still pending then, its return() is not awaited (an async
 * generator would only run it after that chunk).
 */
export function withKeepAlive(source: AsyncIterable<string>, ms: number): AsyncIterable<string> {
  if (!(ms > 0)) return source;
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      let pending: Promise<IteratorResult<string>> | undefined;
      let done = false;
      return {
        async next(): Promise<IteratorResult<string>> {
          if (done) return { done: true, value: undefined };
          pending ??= it.next();
          let timer: ReturnType<typeof setTimeout> | undefined;
          const silent = new Promise<"silent">((resolve) => {
            timer = setTimeout(() => resolve("silent"), ms);
          });
          try {
            const r = await Promise.race([pending, silent]);
            if (r === "silent") return { done: false, value: KEEP_ALIVE_COMMENT };
            pending = undefined;
            if (r.done) done = true;
            return r;
          } catch (e) {
            pending = undefined;
            done = true;
            throw e;
          } finally {
            clearTimeout(timer);
          }
        },
        async return(): Promise<IteratorResult<string>> {
          if (done) return { done: true, value: undefined };
          done = true;
          const closing = Promise.resolve()
            .then(() => it.return?.())
            .catch(() => {});
          if (pending) pending.catch(() => {});
          else await closing;
          return { done: true, value: undefined };
        },
      };
    },
  };
}
