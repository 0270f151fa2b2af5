/**
 * otelServerInterceptor: one SERVER span per call, on every binding and
 * version (the v0.3 bridge included: a bridged call is traced as the v0.3
 * call it is), and the call duration metric.
 *
 *   parent     the W3C traceparent / tracestate of the request headers or
 *              gRPC metadata (options.propagator), else a new trace
 *   span       "<rpc.service>/<rpc.method>", attributes of attributes.ts;
 *              a2a.task.id / a2a.context.id from the request, else the
 *              answer; a stream's events as span events (task-events.ts);
 *              ends when the answer is made, or when the stream ends, fails
 *              or the client leaves
 *   errors     error.type = the A2A type, the binding's code (gRPC status,
 *              JSON-RPC code, HTTP status), the exception as an event; the
 *              span status is ERROR only for a server fault (gRPC
 *              UNKNOWN/INTERNAL/…, HTTP 5xx, JSON-RPC InternalError), as the
 *              conventions ask of server spans
 *   aborted    a stream, or a unary gRPC call (call-outcome.ts
 *              watchesAbort), ends when its signal aborts before it ends
 *              or answers: a client that left is error.type
 *              "Canceled" (gRPC CANCELLED, the HTTP status a stream sent), no
 *              status ERROR: the client ended it; a gRPC deadline is
 *              "DEADLINE_EXCEEDED" (4), status ERROR, as gRPC counts it
 *   context    the rest of the call runs in the span's context (handlers and
 *              their instrumented libraries see it as the active span, with
 *              a context manager registered), and HandlerContext.values holds
 *              its CallTrace (call-trace.ts) for the task runtime and the call
 *              log, which need no context manager
 *   metric     rpc.server.call.duration (s): rpc.system, rpc.service,
 *              rpc.method, a2a.operation, and error.type when the call failed
 *              (rpc.service names the version: attributes.ts)
 *
 * The interceptor sees what interceptors see (interceptor.ts): a call the
 * server refuses before them (an unknown method, a bad body, a version it
 * does not serve) has no span.
 */
import {
  context as otelContext,
  type Span,
  SpanKind,
  type TextMapGetter,
  trace,
  ROOT_CONTEXT,
} from "@opentelemetry/api";
import type { CallTrace } from "../core/call-trace.js";
import { callTraceKey } from "../core/call-trace.js";
import type { HandlerContext } from "../core/definition.js";
import type { A2aResult, Interceptor } from "../core/interceptor.js";
import { watchesAbort } from "../core/call-outcome.js";
import { abortedOutcome, callShapes, type ErrorOutcome, okAttributes, serverErrorOutcome } from "./attributes.js";
import { CallSpan, type StreamBreak } from "./call-span.js";
import { durationHistogram, type OtelOptions, otelTools } from "./options.js";
import { formatTraceparent, parseTraceparent } from "./trace-context.js";

const headerGetter: TextMapGetter<HandlerContext> = {
  get: (carrier, key) => carrier.header(key) ?? undefined,
  keys: (carrier) => [...carrier.headers.keys()],
};

/** The CallTrace of a span: its ids, its traceparent (written when first asked for), and links added to it. */
class SpanCallTrace implements CallTrace {
  readonly traceId: string;
  readonly spanId: string;
  #traceparent: string | undefined;

  constructor(private readonly span: Span) {
    const spanContext = span.spanContext();
    this.traceId = spanContext.traceId;
    this.spanId = spanContext.spanId;
  }

  get traceparent(): string {
    this.#traceparent ??= formatTraceparent(this.span.spanContext());
    return this.#traceparent;
  }

  link(traceparent: string, attributes?: Readonly<Record<string, string>>): void {
    const linked = parseTraceparent(traceparent);
    if (linked !== undefined) this.span.addLink({ context: linked, ...(attributes ? { attributes } : {}) });
  }
}

/** What ends a stream its signal ended (the client left, or a deadline passed; the outcome reads which). */
const CLIENT_LEFT = Object.assign(new Error("the call's signal aborted"), { name: "AbortError" });
const CLIENT_LEFT_BREAK: StreamBreak = { kind: "error", error: CLIENT_LEFT };

const isServerFault = (outcome: ErrorOutcome) => outcome.serverFault;

/** A server interceptor that traces each call and measures its duration (see the header). */
export function otelServerInterceptor(options: OtelOptions = {}): Interceptor {
  const { tracer, meter, propagator } = otelTools(options);
  const duration = durationHistogram(meter, "rpc.server.call.duration", "Duration of A2A calls, server side");
  const shapeOf = callShapes();
  return (next) => async (call) => {
    const { operation, context } = call;
    const parent = propagator.extract(ROOT_CONTEXT, context, headerGetter);
    const shape = shapeOf(operation, context.binding, context.protocolVersion, context.tenant !== undefined);
    const span = tracer.startSpan(shape.name, { kind: SpanKind.SERVER, attributes: shape.attributes }, parent);
    context.values.set(callTraceKey, new SpanCallTrace(span));
    const outcomeOf = (error: unknown) =>
      error === CLIENT_LEFT
        ? abortedOutcome(context.binding, context.signal.reason, operation.streaming)
        : serverErrorOutcome(call.definition, context.binding, error);
    const traced = new CallSpan(span, shape, duration, outcomeOf, isServerFault);
    traced.noteTask(call.request);
    // A watched signal (call-outcome.ts watchesAbort) that aborts before the call answers ends the span then.
    const signal = watchesAbort(context.binding, operation.streaming) ? context.signal : undefined;
    const left = () => traced.endError(CLIENT_LEFT);
    signal?.addEventListener("abort", left, { once: true });
    let result: A2aResult;
    try {
      result = await otelContext.with(trace.setSpan(parent, span), next, undefined, call);
    } catch (error) {
      traced.endError(signal?.aborted ? CLIENT_LEFT : error);
      throw error;
    } finally {
      signal?.removeEventListener("abort", left);
    }
    const ok = okAttributes(context.binding);
    if (result.kind === "stream") {
      return { kind: "stream", messages: traced.traced(result.messages, ok, CLIENT_LEFT_BREAK, context.signal) };
    }
    if (signal?.aborted) traced.endError(CLIENT_LEFT);
    else traced.endOk(ok, result.message);
    return result;
  };
}
