/**
 * OpenTelemetry for the example agent, from the environment (main.ts imports
 * this module only when OTEL_EXPORTER_OTLP_ENDPOINT is set, so an agent
 * without it loads no OpenTelemetry code):
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT    base URL of an OTLP/HTTP receiver; traces go
 *                                  to <endpoint>/v1/traces, metrics to
 *                                  <endpoint>/v1/metrics (the exporters' rule)
 *   OTEL_EXPORTER_OTLP_PROTOCOL    http/json (the default here); another value
 *                                  is refused in one line, as the example ships
 *                                  the JSON exporters only
 *   OTEL_SERVICE_NAME              service.name of the resource; default
 *                                  "echo-agent"
 *   OTEL_METRIC_EXPORT_INTERVAL    ms between metric exports; default 60000
 *   OTEL_BSP_SCHEDULE_DELAY        ms a finished span waits for its batch
 *                                  (read by the SDK's batch processor)
 *
 * It gives the server interceptor and the task telemetry of
 * @protoc-gen-a2a/runtime/otel on an SDK of their own (not registered
 * globally, except the AsyncLocalStorage context manager, so handlers see the
 * call's span as the active one), and a shutdown that flushes both exporters.
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { otelServerInterceptor, otelTaskTelemetry } from "@protoc-gen-a2a/runtime/otel";
import type { AgentTelemetry } from "./server.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The agent's telemetry from `env`, or the line that says why there is none. */
export function telemetryFromEnv(env: Env): { telemetry: AgentTelemetry } | { problem: string } {
  const protocol = env["OTEL_EXPORTER_OTLP_PROTOCOL"] ?? "http/json";
  if (protocol !== "http/json") {
    return {
      problem: `OTEL_EXPORTER_OTLP_PROTOCOL=${JSON.stringify(protocol)}: the example exports OTLP over HTTP as JSON only; set http/json`,
    };
  }
  const rawInterval = env["OTEL_METRIC_EXPORT_INTERVAL"];
  const interval = rawInterval === undefined || rawInterval === "" ? 60_000 : Number(rawInterval);
  if (!Number.isSafeInteger(interval) || interval < 100) {
    return { problem: `OTEL_METRIC_EXPORT_INTERVAL=${JSON.stringify(rawInterval)} is not a whole number of ms >= 100` };
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const resource = resourceFromAttributes({ "service.name": env["OTEL_SERVICE_NAME"] || "echo-agent" });
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: interval }),
    ],
  });
  const otel = { tracerProvider, meterProvider };
  return {
    telemetry: {
      interceptor: otelServerInterceptor(otel),
      task: otelTaskTelemetry(otel),
      shutdown: async () => {
        await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      },
    },
  };
}
