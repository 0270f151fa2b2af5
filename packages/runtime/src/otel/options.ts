/**
 * The options every OpenTelemetry piece of the runtime takes, and how it gets
 * its tracer and meter from them:
 *
 *   tracerProvider   default: the global one (trace.getTracerProvider()),
 *                    a no-op until the application registers an SDK
 *   meterProvider    default: the global one (metrics.getMeterProvider())
 *   propagator       default: W3C Trace Context (trace-context.ts), whatever
 *                    the application registered; give `propagation` (the
 *                    global API) to use the registered one, baggage included
 *
 * The instrumentation scope is "@protoc-gen-a2a/runtime" with the runtime's
 * version. Durations are histograms in seconds, as the conventions ask.
 */
import {
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type TextMapPropagator,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { w3cTraceContext } from "./trace-context.js";

export interface OtelOptions {
  readonly tracerProvider?: TracerProvider;
  readonly meterProvider?: MeterProvider;
  readonly propagator?: TextMapPropagator;
}

export const SCOPE_NAME = "@protoc-gen-a2a/runtime";
export const SCOPE_VERSION = "0.1.0";

/** Bucket bounds of the duration histograms, in seconds: 1 ms to 60 s. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface OtelTools {
  readonly tracer: Tracer;
  readonly meter: Meter;
  readonly propagator: TextMapPropagator;
}

export function otelTools(options: OtelOptions): OtelTools {
  return {
    tracer: (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, SCOPE_VERSION),
    meter: (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION),
    propagator: options.propagator ?? w3cTraceContext,
  };
}

/** A duration histogram in seconds. */
export function durationHistogram(meter: Meter, name: string, description: string): Histogram {
  return meter.createHistogram(name, {
    unit: "s",
    description,
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
}
