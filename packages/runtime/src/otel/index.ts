/**
 * @protoc-gen-a2a/runtime/otel: OpenTelemetry for A2A agents and clients.
 * Needs @opentelemetry/api (an optional peer); an agent that does not import
 * this entry loads no OpenTelemetry code.
 *
 *   otelServerInterceptor   a span and a duration per call, every binding and version
 *   otelClientInterceptor   a span and a duration per client call, trace context sent
 *   otelTaskTelemetry       createTaskHandler's `telemetry`: turns, push attempts, store operations
 *   w3cTraceContext         the W3C Trace Context propagator they use by default
 */
export { otelClientInterceptor } from "./client-interceptor.js";
export type { OtelOptions } from "./options.js";
export { otelServerInterceptor } from "./server-interceptor.js";
export { otelTaskTelemetry } from "./task-telemetry.js";
export { formatTraceparent, parseTraceparent, w3cTraceContext } from "./trace-context.js";
