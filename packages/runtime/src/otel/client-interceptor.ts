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
import { type Attributes, context as otelContext, SpanKind, type TextMapSetter, trace } from "@opentelemetry/api";
import type { ClientInterceptor } from "../core/client-interceptor.js";
import type { A2aResult } from "../core/interceptor.js";
import { callShapes, clientErrorOutcome, okAttributes } from "./attributes.js";
import { CallSpan } from "./call-span.js";
import { durationHistogram, type OtelOptions, otelTools } from "./options.js";

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

/** On a client, every failure is the call's error. */
const always = () => true;

/** A client interceptor that traces each call, propagates its trace and measures its duration. */
export function otelClientInterceptor(options: OtelOptions = {}): ClientInterceptor {
  const { tracer, meter, propagator } = otelTools(options);
  const duration = durationHistogram(meter, "rpc.client.call.duration", "Duration of A2A calls, client side");
  const shapeOf = callShapes();
  const servers = new Map<string, Attributes>();
  return (next) => async (call) => {
    const shape = shapeOf(call.operation, call.binding, call.protocolVersion, false);
    const parent = otelContext.active();
    const span = tracer.startSpan(shape.name, { kind: SpanKind.CLIENT, attributes: shape.attributes }, parent);
    propagator.inject(trace.setSpan(parent, span), call.headers, headerSetter);
    const traced = new CallSpan(span, shape, duration, (e) => clientErrorOutcome(call.binding, e), always);
    if (span.isRecording()) {
      let server = servers.get(call.url);
      if (server === undefined) {
        server = serverAttributes(call.url);
        // One interceptor may serve clients of many agents: the cache keeps the first few.
        if (servers.size < MAX_CACHED_SERVERS) servers.set(call.url, server);
      }
      span.setAttributes(server);
      traced.noteTask(call.request);
    }
    let result: A2aResult;
    try {
      result = await next(call);
    } catch (error) {
      traced.endError(error);
      throw error;
    }
    const ok = okAttributes(call.binding);
    // A caller that breaks off a stream ends the call as it wanted.
    if (result.kind === "stream")
      return { kind: "stream", messages: traced.traced(result.messages, ok, { kind: "ok" }) };
    traced.endOk(ok, result.message);
    return result;
  };
}
