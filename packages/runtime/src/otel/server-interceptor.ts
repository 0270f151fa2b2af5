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
import { type CallShape, callShapes, okAttributes, serverErrorOutcome, taskAttributes } from "./attributes.js";
import { durationHistogram, type OtelOptions, otelTools } from "./options.js";
import { recordTaskEvent } from "./task-events.js";
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

interface CallRecord {
  readonly span: Span;
  /** Whether the span records (a no-op or unsampled span gets no attributes beyond its start). */
  readonly recording: boolean;
  readonly start: number;
  readonly shape: CallShape;
  readonly call: A2aCall;
  readonly duration: Histogram;
  /** Whether the span has a2a.task.id (from the request, or the answer once seen). */
  hasTask: boolean;
}

/** Sets the task attributes of `message` when the span has none yet. */
function noteTask(r: CallRecord, message: Message): void {
  if (r.hasTask || !r.recording) return;
  const attributes = taskAttributes(message);
  r.hasTask = attributes["a2a.task.id"] !== undefined;
  r.span.setAttributes(attributes);
}

function endOk(r: CallRecord, answer: Message | undefined): void {
  if (r.recording) {
    r.span.setAttributes(okAttributes(r.call.context.binding));
    if (answer !== undefined) noteTask(r, answer);
  }
  r.span.end();
  r.duration.record((performance.now() - r.start) / 1000, r.shape.metric(undefined));
}

function endError(r: CallRecord, error: unknown): void {
  const outcome = serverErrorOutcome(r.call.definition, r.call.context.binding, error);
  if (r.recording) {
    r.span.setAttributes(outcome.attributes);
    r.span.recordException(error instanceof Error ? error : new Error(String(error)));
    if (outcome.serverFault) r.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
  }
  r.span.end();
  r.duration.record((performance.now() - r.start) / 1000, r.shape.metric(outcome.type));
}

/** The stream's events, each a span event; the span ends with the stream. */
async function* tracedStream(r: CallRecord, messages: AsyncIterable<Message>): AsyncIterable<Message> {
  let ended = false;
  try {
    for await (const message of messages) {
      if (r.recording) {
        noteTask(r, message);
        recordTaskEvent(r.span, message);
      }
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
  const shapeOf = callShapes();
  return (next) => async (call) => {
    const start = performance.now();
    const { operation, context } = call;
    const parent = propagator.extract(ROOT_CONTEXT, context, headerGetter);
    const shape = shapeOf(operation, context.binding, context.protocolVersion, context.tenant !== undefined);
    const span = tracer.startSpan(shape.name, { kind: SpanKind.SERVER, attributes: shape.attributes }, parent);
    context.values.set(callTraceKey, new SpanCallTrace(span));
    const recording = span.isRecording();
    const record: CallRecord = { span, recording, start, shape, call, duration, hasTask: false };
    noteTask(record, call.request);
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
