/**
 * Server interceptors, one model for every binding and version: an
 * interceptor takes the next step of a call and returns a step that wraps it,
 * as connect-es interceptors do.
 *
 *   order     the first interceptor of a server's list is the outermost: it
 *             sees the call first and the result last
 *   call      the operation, the request message (the version's type: use
 *             protobuf-es `isMessage(call.request, GetTaskRequestSchema)` to
 *             narrow it) and the handler context (binding, version, headers,
 *             tenant, typed context values, principal)
 *   answer    return a result without calling next; refuse: throw an A2AError
 *             (the binding maps it as any handler error); change: call next
 *             and return another result, or next with another request
 *   streams   next resolves once the stream is ready, before its first event;
 *             wrap `messages` to see or change each event. A refusal before
 *             the first event is the binding's ordinary error reply
 *   when      after the version, the route or method, the body and its
 *             limits, and the agent card's capability rules; before the
 *             request's input rules (validate.ts) and the handler, so an
 *             authentication interceptor answers a call it refuses before
 *             anything about the request is checked or looked up
 *
 * A v0.3 call served through the version bridge passes the interceptors of
 * the server it reaches, as a v0.3 call; the principal and every context
 * value go on to the v1.0 handler with the context.
 */
import type { Message } from "@bufbuild/protobuf";
import type { A2aServiceDefinition, HandlerContext, OperationInfo } from "./definition.js";

/** One call as an interceptor sees it. */
export interface A2aCall {
  /** The definition of the version the server serves: its service, error catalog and tables. */
  readonly definition: A2aServiceDefinition;
  readonly operation: OperationInfo;
  /** The request message of the operation's input type, at the call's version. */
  readonly request: Message;
  readonly context: HandlerContext;
}

/** What a unary call answers. */
export interface A2aUnaryResult {
  readonly kind: "unary";
  readonly message: Message;
}

/** What a streaming call answers: its events, in order. */
export interface A2aStreamResult {
  readonly kind: "stream";
  readonly messages: AsyncIterable<Message>;
}

export type A2aResult = A2aUnaryResult | A2aStreamResult;

/** The rest of a call: the next interceptor, and at the end the handler. */
export type A2aNext = (call: A2aCall) => Promise<A2aResult>;

/** Wraps the rest of a call. */
export type Interceptor = (next: A2aNext) => A2aNext;

/** The chain of `interceptors` ending in `last`: the first interceptor outermost. */
export function chainInterceptors(interceptors: readonly Interceptor[], last: A2aNext): A2aNext {
  let next = last;
  for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next);
  return next;
}
