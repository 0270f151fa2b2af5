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
 *   context    the rest of the call runs in the span's context (handlers and
 *              their instrumented libraries see it as the active span, with
 *              a context manager registered), and HandlerContext.values holds
 *              its CallTrace (call-trace.ts) for the task runtime and the call
 *              log, which need no context manager
 *   metric     rpc.server.call.duration (s): rpc.system, rpc.service,
 *              rpc.method, a2a.operation, a2a.protocol.version, and
 *              error.type when the call failed
 *
 * The interceptor sees what interceptors see (interceptor.ts): a call the
 * server refuses before them (an unknown method, a bad body, a version it
 * does not serve) has no span.
 */
import {
  type Attributes,
  context as otelContext,
  type Histogram,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  ROOT_CONTEXT,
} from "@opentelemetry/api";
import type { Message } from "@bufbuild/protobuf";
import type { CallTrace } from "../call-trace.js";
import { callTraceKey } from "../call-trace.js";
import type { HandlerContext } from "../definition.js";
import type { A2aCall, A2aResult, Interceptor } from "../interceptor.js";
import {
  callAttributes,
  durationAttributes,
  okAttributes,
  serverErrorOutcome,
  spanName,
  taskAttributes,
} from "./attributes.js";
import { durationHistogram, type OtelOptions, otelTools } from "./options.js";
import { recordTaskEvent } from "./task-events.js";
import { formatTraceparent, parseTraceparent } from "./trace-context.js";

const headerGetter: TextMapGetter<HandlerContext> = {
  get: (carrier, key) => carrier.header(key) ?? undefined,
  keys: (carrier) => [...carrier.headers.keys()],
};

/** The CallTrace of a span: its ids, traceparent, and links added to it. */
function callTraceOf(span: Span): CallTrace {
  const spanContext = span.spanContext();
  return {
    traceId: spanContext.traceId,
    spanId: spanContext.spanId,
    traceparent: formatTraceparent(spanContext),
    link(traceparent, attributes) {
      const linked = parseTraceparent(traceparent);
      if (linked !== undefined) span.addLink({ context: linked, ...(attributes ? { attributes } : {}) });
    },
  };
}

interface CallRecord {
  readonly span: Span;
  readonly start: number;
  readonly attributes: Attributes;
  readonly call: A2aCall;
  readonly duration: Histogram;
}

function endOk(r: CallRecord, answer: Message | undefined): void {
  r.span.setAttributes(okAttributes(r.call.context.binding));
  if (answer !== undefined && r.attributes["a2a.task.id"] === undefined) r.span.setAttributes(taskAttributes(answer));
  r.span.end();
  r.duration.record((performance.now() - r.start) / 1000, durationAttributes(r.attributes, undefined));
}

function endError(r: CallRecord, error: unknown): void {
  const outcome = serverErrorOutcome(r.call.definition, r.call.context.binding, error);
  r.span.setAttributes(outcome.attributes);
  r.span.recordException(error instanceof Error ? error : new Error(String(error)));
  if (outcome.serverFault) r.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
  r.span.end();
  r.duration.record((performance.now() - r.start) / 1000, durationAttributes(r.attributes, outcome.type));
}

/** The stream's events, each a span event; the span ends with the stream. */
async function* tracedStream(r: CallRecord, messages: AsyncIterable<Message>): AsyncIterable<Message> {
  let ended = false;
  let first = true;
  try {
    for await (const message of messages) {
      if (first && r.attributes["a2a.task.id"] === undefined) r.span.setAttributes(taskAttributes(message));
      first = false;
      recordTaskEvent(r.span, message);
      yield message;
    }
    ended = true;
    endOk(r, undefined);
  } catch (error) {
    ended = true;
    endError(r, error);
    throw error;
  } finally {
    // The client left before the end: the call ends here, as the binding cancels it.
    if (!ended) endError(r, Object.assign(new Error("the client went away"), { name: "AbortError" }));
  }
}

/** A server interceptor that traces each call and measures its duration (see the header). */
export function otelServerInterceptor(options: OtelOptions = {}): Interceptor {
  const { tracer, meter, propagator } = otelTools(options);
  const duration = durationHistogram(meter, "rpc.server.call.duration", "Duration of A2A calls, server side");
  return (next) => async (call) => {
    const start = performance.now();
    const { operation, context } = call;
    const parent = propagator.extract(ROOT_CONTEXT, context, headerGetter);
    const attributes = callAttributes(operation, context.binding, context.protocolVersion, context.tenant);
    Object.assign(attributes, taskAttributes(call.request));
    const span = tracer.startSpan(spanName(operation, context.binding), { kind: SpanKind.SERVER, attributes }, parent);
    context.values.set(callTraceKey, callTraceOf(span));
    const record: CallRecord = { span, start, attributes, call, duration };
    let result: A2aResult;
    try {
      result = await otelContext.with(trace.setSpan(parent, span), next, undefined, call);
    } catch (error) {
      endError(record, error);
      throw error;
    }
    if (result.kind === "stream") return { kind: "stream", messages: tracedStream(record, result.messages) };
    endOk(record, result.message);
    return result;
  };
}
