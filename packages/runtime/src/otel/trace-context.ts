/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as an
 * OpenTelemetry TextMapPropagator, so that the interceptors propagate traces
 * whether or not the application registered a global propagator:
 *
 *   traceparent  version "-" trace-id "-" parent-id "-" trace-flags
 *                00-<32 hex, not all 0>-<16 hex, not all 0>-<2 hex>
 *                (a version other than 00 is read as 00 when it has these
 *                four fields; version ff is invalid)
 *   tracestate   passed on as it came (at most 512 characters here; a longer
 *                one is dropped, as the recommendation allows)
 *
 * Extract reads a remote parent from a carrier (HandlerContext headers or
 * gRPC metadata; HTTP headers of a client request); a malformed value is
 * ignored. Inject writes the active span's context.
 */
import {
  type Context,
  isSpanContextValid,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  trace,
  TraceFlags,
  createTraceState,
} from "@opentelemetry/api";
import { withNames } from "../core/records.js";

const TRACEPARENT = "traceparent";
const TRACESTATE = "tracestate";
const MAX_TRACESTATE = 512;
const PARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The span context a traceparent names, or undefined when it is malformed. */
export function parseTraceparent(value: string): SpanContext | undefined {
  const m = PARENT.exec(value.trim());
  if (m === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string?];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  const context: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
  return isSpanContextValid(context) ? context : undefined;
}

/** The traceparent of a span context. */
export function formatTraceparent(context: SpanContext): string {
  const flags = (context.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

class W3cTraceContext implements TextMapPropagator {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const span = trace.getSpanContext(context);
    if (span === undefined || !isSpanContextValid(span)) return;
    setter.set(carrier, TRACEPARENT, formatTraceparent(span));
    const state = span.traceState?.serialize();
    if (state) setter.set(carrier, TRACESTATE, state);
  }

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const header = getter.get(carrier, TRACEPARENT);
    const value = Array.isArray(header) ? header[0] : header;
    if (value === undefined) return context;
    const parent = parseTraceparent(value);
    if (parent === undefined) return context;
    const stateHeader = getter.get(carrier, TRACESTATE);
    const state = Array.isArray(stateHeader) ? stateHeader.join(",") : stateHeader;
    const traceState = state && state.length <= MAX_TRACESTATE ? createTraceState(state) : undefined;
    return trace.setSpanContext(context, traceState ? withNames(parent, { traceState }) : parent);
  }

  fields(): string[] {
    return [TRACEPARENT, TRACESTATE];
  }
}

/** The W3C Trace Context propagator the interceptors use unless given another. */
export const w3cTraceContext: TextMapPropagator = new W3cTraceContext();
