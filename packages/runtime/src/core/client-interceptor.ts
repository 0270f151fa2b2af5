/**
 * Client interceptors, one model for the JSON-RPC, HTTP+JSON and gRPC
 * clients: an interceptor takes the next step of a call and returns a step
 * that wraps it, as connect-es interceptors do, and as the server's do
 * (interceptor.ts).
 *
 *   order     the first interceptor of a client's list is the outermost: it
 *             sees the call first and the result last
 *   call      the operation, the request message (the version's type: narrow
 *             it with protobuf-es `isMessage`), the request headers the
 *             binding sends (HTTP headers or gRPC metadata; version and
 *             extension headers already in), query parameters the HTTP
 *             bindings add to the request URL, the interface URL, the binding,
 *             the protocol version and the call's signal
 *   answer    return a result without calling next; refuse: throw (an
 *             A2AError or A2ATransportError reaches the caller as it is,
 *             anything else as an A2ATransportError with it as cause); retry:
 *             call next again, with fresh headers; change: return another
 *             result, or call next with another request
 *   streams   next resolves with the stream's first event in hand (or its
 *             end), so an error the server answers before the first event
 *             (HTTP 401, gRPC UNAUTHENTICATED) rejects next and can be retried;
 *             wrap `messages` to see or change each event
 *   errors    next rejects only with A2AError or A2ATransportError, as the
 *             caller's call would (client-errors.ts)
 *
 * Each request on the wire is one call through the chain: a resubscription
 * (resubscribe.ts) is a SubscribeToTask call of its own, so credentials are
 * set on it too.
 */
import type { Message } from "@bufbuild/protobuf";
import type { Binding, OperationInfo } from "./definition.js";
import type { A2aResult } from "./interceptor.js";

/** One call as a client interceptor sees it. */
export interface A2aClientCall {
  readonly operation: OperationInfo;
  /** The request message of the operation's input type, at the client's version. */
  readonly request: Message;
  /** What the binding sends as HTTP headers or gRPC metadata; set, append or delete before calling next. */
  readonly headers: Headers;
  /** Query parameters the HTTP bindings add to the request URL; gRPC sends none. */
  readonly query: URLSearchParams;
  /** The interface URL the client was made for. */
  readonly url: string;
  readonly binding: Binding;
  /** Major.Minor, e.g. "1.0". */
  readonly protocolVersion: string;
  /** Aborted when the caller's signals or timeout end the call. */
  readonly signal: AbortSignal | undefined;
}

/** The rest of a client call: the next interceptor, and at the end the binding's request. */
export type A2aClientNext = (call: A2aClientCall) => Promise<A2aResult>;

/** Wraps the rest of a client call. */
export type ClientInterceptor = (next: A2aClientNext) => A2aClientNext;

/** The chain of `interceptors` ending in `last`: the first interceptor outermost. */
export function chainClientInterceptors(
  interceptors: readonly ClientInterceptor[],
  last: A2aClientNext,
): A2aClientNext {
  let next = last;
  for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next);
  return next;
}

/**
 * A stream started: its first event read (a failure before it thrown here), the rest to iterate. Breaking
 * off the returned iterable closes the underlying one.
 */
export async function openStream(events: AsyncIterable<Message>): Promise<AsyncIterable<Message>> {
  const it = events[Symbol.asyncIterator]();
  const first = await it.next();
  return (async function* () {
    let ended = first.done === true;
    try {
      if (ended) return;
      yield first.value;
      for (;;) {
        const r = await it.next();
        if (r.done) {
          ended = true;
          return;
        }
        yield r.value;
      }
    } finally {
      if (!ended) await it.return?.();
    }
  })();
}
