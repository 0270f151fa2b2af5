/**
 * otelTaskTelemetry: the `telemetry` of createTaskHandler on OpenTelemetry
 * (task/telemetry.ts says when each hook is called).
 *
 *   turn       an INTERNAL span "a2a.turn <operation>" per executor run,
 *              child of the call's server span (its CallTrace in
 *              HandlerContext.values, so no context manager is needed), else
 *              of the active span; attributes a2a.task.id, a2a.context.id,
 *              a2a.operation, a2a.protocol.version; an event per task state
 *              change and artifact it hears (task-events.ts), a cancel made
 *              through another instance included; the executor's throw as
 *              error. Metric a2a.tasks.running: turns running now
 *   push       a CLIENT span "a2a.push POST" per delivery attempt, child of
 *              the turn that committed the update (else the call): url.full
 *              (credentials and query values REDACTED), a2a.task.id, a2a.push.config.id,
 *              a2a.push.attempt, http.request.method POST,
 *              http.response.status_code, error.type (the HTTP status or the
 *              failure) unless 2xx; the attempt's request carries its
 *              traceparent. Metric a2a.push.deliveries by a2a.push.outcome
 *              (delivered, failed, dropped: push-types.ts PushOutcome)
 *   store      metric a2a.store.operation.duration (s) by db.system.name
 *              (memory, postgresql) and db.operation.name (get, commit, …),
 *              error.type when it failed
 */
import {
  type Context,
  context as otelContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  ROOT_CONTEXT,
} from "@opentelemetry/api";
import { A2AError } from "../core/a2a-error.js";
import { callTraceKey } from "../core/call-trace.js";
import type { HandlerContext } from "../core/definition.js";
import type { PushAttemptTrace, PushTrace } from "../task/push-types.js";
import type { TaskTelemetry, TurnTrace } from "../task/telemetry.js";
import { displayUrl } from "../task/url-screen.js";
import { durationHistogram, type OtelOptions, type OtelTools, otelTools } from "./options.js";
import { recordTaskEvent } from "./task-events.js";
import { parseTraceparent } from "./trace-context.js";
import { withNames } from "../core/records.js";

/** The context of the call's span: from its CallTrace, else the active context. */
function callContext(context: HandlerContext): Context {
  const traceparent = context.values.get(callTraceKey)?.traceparent;
  const parent = traceparent === undefined ? undefined : parseTraceparent(traceparent);
  return parent === undefined ? otelContext.active() : trace.setSpanContext(ROOT_CONTEXT, parent);
}

const errorType = (error: unknown) =>
  error instanceof A2AError ? error.type : error instanceof Error ? error.name : "Error";

/** The TaskTelemetry of createTaskHandler on OpenTelemetry (see the header). */
export function otelTaskTelemetry(options: OtelOptions = {}): TaskTelemetry {
  const tools = otelTools(options);
  const turnSpans = new WeakMap<TurnTrace, Span>();
  return {
    turn: turnTracer(tools, turnSpans),
    push: pushTracer(tools, turnSpans),
    storeOperation: storeTimer(tools.meter),
  };
}

/** The turn hook: a span per executor run and the a2a.tasks.running count; each span kept for its pushes. */
function turnTracer({ tracer, meter }: OtelTools, turnSpans: WeakMap<TurnTrace, Span>): TaskTelemetry["turn"] {
  const running = meter.createUpDownCounter("a2a.tasks.running", { unit: "{turn}", description: "Turns running" });
  return (start) => {
    const attributes = {
      "a2a.task.id": start.taskId,
      "a2a.context.id": start.contextId,
      "a2a.operation": start.operation,
      "a2a.protocol.version": start.context.protocolVersion,
    };
    const span = tracer.startSpan(
      `a2a.turn ${start.operation}`,
      { kind: SpanKind.INTERNAL, attributes },
      callContext(start.context),
    );
    running.add(1);
    let ended = false;
    const traced: TurnTrace = {
      event: (event) => recordTaskEvent(span, event),
      end(error) {
        if (ended) return;
        ended = true;
        if (error !== undefined) {
          span.recordException(error instanceof Error ? error : new Error(String(error)));
          span.setAttribute("error.type", errorType(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
        running.add(-1);
      },
    };
    turnSpans.set(traced, span);
    return traced;
  };
}

/** The push hook: a span per delivery attempt, under the turn that committed the update, and the outcome count. */
function pushTracer(
  { tracer, meter, propagator }: OtelTools,
  turnSpans: WeakMap<TurnTrace, Span>,
): TaskTelemetry["push"] {
  const deliveries = meter.createCounter("a2a.push.deliveries", {
    unit: "{delivery}",
    description: "Push deliveries by outcome",
  });
  return (start): PushTrace => {
    const turnSpan = start.turn === undefined ? undefined : turnSpans.get(start.turn);
    const parent = turnSpan === undefined ? callContext(start.context) : trace.setSpan(ROOT_CONTEXT, turnSpan);
    const base = {
      "url.full": displayUrl(start.url),
      "a2a.task.id": start.taskId,
      "a2a.push.config.id": start.configId,
      "a2a.protocol.version": start.protocolVersion,
      "http.request.method": "POST",
    };
    return {
      attempt(n) {
        const attributes = withNames(base, { "a2a.push.attempt": n });
        const span = tracer.startSpan("a2a.push POST", { kind: SpanKind.CLIENT, attributes }, parent);
        const headers: Record<string, string> = {};
        propagator.inject(trace.setSpan(parent, span), headers, {
          set: (carrier, key, value) => {
            carrier[key] = value;
          },
        });
        return { headers, end: (result) => endAttempt(span, result) };
      },
      end: (outcome) => deliveries.add(1, { "a2a.push.outcome": outcome }),
    };
  };
}

/** Ends a delivery attempt's span with its HTTP status, as an error unless 2xx. */
function endAttempt(span: Span, result: Parameters<PushAttemptTrace["end"]>[0]): void {
  if (result.status !== undefined) span.setAttribute("http.response.status_code", result.status);
  const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
  if (!ok) {
    span.setAttribute("error.type", result.status !== undefined ? String(result.status) : (result.failure ?? "failed"));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** The store hook: the duration of each store operation, with error.type when it failed. */
function storeTimer(meter: OtelTools["meter"]): TaskTelemetry["storeOperation"] {
  const storeDuration = durationHistogram(meter, "a2a.store.operation.duration", "Duration of task store operations");
  return (operation, system) => {
    const start = performance.now();
    return (error) => {
      const attributes: Record<string, string> = { "db.system.name": system, "db.operation.name": operation };
      if (error !== undefined) attributes["error.type"] = errorType(error);
      storeDuration.record((performance.now() - start) / 1000, attributes);
    };
  };
}
