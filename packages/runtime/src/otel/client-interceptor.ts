/**
 * otelClientInterceptor: one CLIENT span per call on the wire (a
 * resubscription is a call of its own), the trace context injected into the
 * request headers or gRPC metadata, and the call duration metric.
 *
 *   parent     the active span (context.active()), else a new trace
 *   span       "<rpc.service>/<rpc.method>", the attributes of attributes.ts
 *              and server.address / server.port / url.full of the interface
 *              URL; a stream's events as span events; ends when the answer
 *              arrives, or the stream ends, fails or is broken off
 *   errors     error.type = the A2A type the server answered (with the
 *              JSON-RPC code it sent), or A2ATransportError (with the HTTP
 *              status or gRPC status when one arrived); status ERROR
 *   metric     rpc.client.call.duration (s), as the server's
 */
import {
  type Attributes,
  context as otelContext,
  type Histogram,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapSetter,
  trace,
} from "@opentelemetry/api";
import type { Message } from "@bufbuild/protobuf";
import type { A2aClientCall, ClientInterceptor } from "../client-interceptor.js";
import { type CallShape, callShapes, clientErrorOutcome, okAttributes, taskAttributes } from "./attributes.js";
import { durationHistogram, type OtelOptions, otelTools } from "./options.js";
import { recordTaskEvent } from "./task-events.js";

const headerSetter: TextMapSetter<Headers> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

function serverAttributes(url: string): Attributes {
  try {
    const u = new URL(url);
    const port = u.port !== "" ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
    return { "server.address": u.hostname, "server.port": port, "url.full": `${u.origin}${u.pathname}` };
  } catch {
    return {};
  }
}

/** How many interface URLs' server attributes an interceptor keeps made. */
const MAX_CACHED_SERVERS = 64;

interface ClientRecord {
  readonly span: Span;
  readonly recording: boolean;
  readonly start: number;
  readonly shape: CallShape;
  readonly call: A2aClientCall;
  readonly duration: Histogram;
  hasTask: boolean;
}

/** Sets the task attributes of `message` when the span has none yet. */
function noteTask(r: ClientRecord, message: Message): void {
  if (r.hasTask || !r.recording) return;
  const attributes = taskAttributes(message);
  r.hasTask = attributes["a2a.task.id"] !== undefined;
  r.span.setAttributes(attributes);
}

function endOk(r: ClientRecord, answer: Message | undefined): void {
  if (r.recording) {
    r.span.setAttributes(okAttributes(r.call.binding));
    if (answer !== undefined) noteTask(r, answer);
  }
  r.span.end();
  r.duration.record((performance.now() - r.start) / 1000, r.shape.metric(undefined));
}

function endError(r: ClientRecord, error: unknown): void {
  const outcome = clientErrorOutcome(r.call.binding, error);
  if (r.recording) {
    r.span.setAttributes(outcome.attributes);
    r.span.recordException(error instanceof Error ? error : new Error(String(error)));
    r.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
  }
  r.span.end();
  r.duration.record((performance.now() - r.start) / 1000, r.shape.metric(outcome.type));
}

async function* tracedStream(r: ClientRecord, messages: AsyncIterable<Message>): AsyncIterable<Message> {
  let ended = false;
  try {
    for await (const message of messages) {
      if (r.recording) recordTaskEvent(r.span, message);
      yield message;
    }
    ended = true;
    endOk(r, undefined);
  } catch (error) {
    ended = true;
    endError(r, error);
    throw error;
  } finally {
    // The caller broke off the stream: the call ended as the caller wanted.
    if (!ended) endOk(r, undefined);
  }
}

/** A client interceptor that traces each call, propagates its trace and measures its duration. */
export function otelClientInterceptor(options: OtelOptions = {}): ClientInterceptor {
  const { tracer, meter, propagator } = otelTools(options);
  const duration = durationHistogram(meter, "rpc.client.call.duration", "Duration of A2A calls, client side");
  const shapeOf = callShapes();
  const servers = new Map<string, Attributes>();
  return (next) => async (call) => {
    const start = performance.now();
    const shape = shapeOf(call.operation, call.binding, call.protocolVersion, false);
    const parent = otelContext.active();
    const span = tracer.startSpan(shape.name, { kind: SpanKind.CLIENT, attributes: shape.attributes }, parent);
    propagator.inject(trace.setSpan(parent, span), call.headers, headerSetter);
    const recording = span.isRecording();
    const record: ClientRecord = { span, recording, start, shape, call, duration, hasTask: false };
    if (recording) {
      let server = servers.get(call.url);
      if (server === undefined) {
        server = serverAttributes(call.url);
        // One interceptor may serve clients of many agents: the cache keeps the first few.
        if (servers.size < MAX_CACHED_SERVERS) servers.set(call.url, server);
      }
      span.setAttributes(server);
      noteTask(record, call.request);
    }
    try {
      const result = await next(call);
      if (result.kind === "stream") return { kind: "stream", messages: tracedStream(record, result.messages) };
      endOk(record, result.message);
      return result;
    } catch (error) {
      endError(record, error);
      throw error;
    }
  };
}
