/**
 * OpenTelemetry's SDK with in-memory exporters, for the tests that check what
 * the runtime's otel entry produces: a tracer provider whose spans are kept
 * as they end (SimpleSpanProcessor into InMemorySpanExporter), a meter
 * provider read on demand (a MetricReader collected by the test), and the
 * AsyncLocalStorage context manager registered, so a test can make a span
 * active around a client call.
 */
import { context, type HrTime, SpanKind } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One data point of a metric, with its attributes. */
export interface Point {
  readonly attributes: Readonly<Record<string, unknown>>;
  /** A counter's or gauge's value; a histogram's count. */
  readonly value: number;
}

export interface OtelMemory {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  /** Every span ended so far. */
  spans(): readonly ReadableSpan[];
  /** The data points of each metric, by name, as collected now. */
  metrics(): Promise<ReadonlyMap<string, readonly Point[]>>;
  reset(): void;
  shutdown(): Promise<void>;
}

const pointValue = (point: DataPoint<number | Histogram>): number =>
  typeof point.value === "number" ? point.value : point.value.count;

export function startOtelMemory(): OtelMemory {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async metrics() {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, Point[]>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          const points = metric.dataPoints as DataPoint<number | Histogram>[];
          out.set(
            metric.descriptor.name,
            points.map((p) => ({ attributes: p.attributes, value: pointValue(p) })),
          );
        }
      }
      return out;
    },
    reset: () => exporter.reset(),
    async shutdown() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      context.disable();
    },
  };
}

/** A span's parent span id (SDK 2 keeps it in parentSpanContext). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export const kindName = (span: ReadableSpan) => SpanKind[span.kind];

/** Start of a span in ms, for ordering. */
export const startMs = (t: HrTime) => t[0] * 1000 + t[1] / 1e6;
