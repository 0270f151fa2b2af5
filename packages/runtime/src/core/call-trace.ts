/**
 * The trace a call belongs to, as a context value: what a tracing interceptor
 * (otel/server-interceptor.ts) sets, and what the rest of the runtime reads
 * without loading any tracing code.
 *
 *   ids        the call span's trace id and span id (lowercase hex, W3C
 *              Trace Context), and its `traceparent` header value
 *   link       adds a link from the call's span to another span, given as a
 *              traceparent: a CancelTask served by one instance links to the
 *              call that started the task's running turn on another (the
 *              store keeps that call's traceparent with the turn)
 *   readers    the call log (log-interceptor.ts) writes the ids; the task
 *              runtime records the traceparent with each turn it starts and
 *              links the calls that reach a task to it
 *
 * Unset (undefined) when the server traces nothing.
 */
import { type ContextValues, createContextKey } from "./context-values.js";

export interface CallTrace {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** The W3C traceparent of the call's span: "00-<traceId>-<spanId>-<flags>". */
  readonly traceparent: string;
  /** Links the call's span to the span `traceparent` names; a value that is no traceparent is ignored. */
  link(traceparent: string, attributes?: Readonly<Record<string, string>>): void;
}

/** The call's trace, set by a tracing interceptor; undefined when nothing traces the call. */
export const callTraceKey = createContextKey<CallTrace | undefined>(undefined, "call trace");

/**
 * Links the call's span to the call that started a task's turn (StoredTask.turnTrace), when both are traced.
 * `values` may be missing from a context a JavaScript caller built by hand: nothing is linked then.
 */
export function linkToTurn(values: ContextValues | undefined, turnTrace: string | undefined): void {
  if (turnTrace !== undefined) values?.get(callTraceKey)?.link(turnTrace, { "a2a.link": "task turn" });
}

/** The traceparent of the call's span, if a tracing interceptor set one (none for a hand-built context). */
export function callTraceparent(values: ContextValues | undefined): string | undefined {
  return values?.get(callTraceKey)?.traceparent;
}
