/**
 * logCalls: a server interceptor that writes one structured record per call
 * to a sink with `info` and `error` (pino's logger is one; jsonLines makes
 * one that writes JSON lines):
 *
 *   record    msg "a2a call", operation, binding, protocolVersion, status
 *             ("OK", else the A2A error type), code (the binding's: gRPC
 *             status, HTTP status, JSON-RPC error code; absent for a
 *             JSON-RPC success), durationMs, taskId and contextId (from the
 *             request, else the answer), traceId and spanId (when a tracing
 *             interceptor runs before it: call-trace.ts), tenant when the
 *             call has one
 *   level     error for a server fault (call-outcome.ts), else info
 *   when      a unary call when it is answered, a stream when it ends or
 *             fails; a stream or a unary gRPC call when its signal aborts
 *             first (call-outcome.ts watchesAbort), written then, whatever
 *             the handler does after: status "Canceled" when the client
 *             left (level info), "DEADLINE_EXCEEDED" past a gRPC deadline
 *             (code 4, level error)
 *   escaping  the record is data, never a format string: jsonLines writes
 *             JSON.stringify of it (quotes, backslashes and control
 *             characters escaped, so a request's value cannot start a line of
 *             its own; DEL, C1 controls, line separators and bidi controls as
 *             \uXXXX too), and pino escapes as JSON does; ids are shown to
 *             256 characters (task-ids.ts)
 *
 * Put it after the tracing interceptor (otelServerInterceptor) to have trace
 * and span ids in each record.
 */
import type { Message } from "@bufbuild/protobuf";
import { callTraceKey } from "./call-trace.js";
import { abortedCall, callFailure, successCode, watchesAbort } from "./call-outcome.js";
import type { A2aCall, Interceptor } from "./interceptor.js";
import { taskIdsOf } from "./task-ids.js";

export interface CallLogRecord {
  readonly msg: "a2a call";
  readonly operation: string;
  readonly binding: string;
  readonly protocolVersion: string;
  readonly status: string;
  readonly code?: number;
  readonly durationMs: number;
  readonly taskId?: string;
  readonly contextId?: string;
  readonly tenant?: string;
  readonly traceId?: string;
  readonly spanId?: string;
}

/** Where call records go: pino's logger, or jsonLines(...). */
export interface CallLogSink {
  info(record: CallLogRecord): void;
  error(record: CallLogRecord): void;
}

/**
 * DEL and the C1 controls (U+0085 is a line break to some readers, U+009B a terminal escape), line and paragraph
 * separators and bidi controls: valid in JSON, but they could mislead a reader of the log.
 */
const MISLEADING = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * A sink that writes each record as one line of JSON, `level` first, through `write` (e.g.
 * `(l) => process.stdout.write(l)`); separators and bidi controls escaped too, so a value shows as it is.
 */
export function jsonLines(write: (line: string) => void): CallLogSink {
  const line = (level: string) => (record: CallLogRecord) =>
    write(`${JSON.stringify({ level, ...record }).replace(MISLEADING, unicodeEscape)}\n`);
  return { info: line("info"), error: line("error") };
}

interface Started {
  readonly call: A2aCall;
  readonly start: number;
  readonly ids: { taskId?: string; contextId?: string };
}

function record(s: Started, outcome: { status: string; code?: number | undefined }, answer?: Message): CallLogRecord {
  const { context, operation } = s.call;
  const ids = s.ids.taskId === undefined && answer !== undefined ? taskIdsOf(answer) : s.ids;
  const trace = context.values.get(callTraceKey);
  return {
    msg: "a2a call",
    operation: operation.name,
    binding: context.binding,
    protocolVersion: context.protocolVersion,
    status: outcome.status,
    ...(outcome.code !== undefined ? { code: outcome.code } : {}),
    durationMs: Math.round((performance.now() - s.start) * 1000) / 1000,
    ...ids,
    ...(context.tenant ? { tenant: context.tenant } : {}),
    ...(trace ? { traceId: trace.traceId, spanId: trace.spanId } : {}),
  };
}

/** A server interceptor that writes one record per call to `sink` (see the header). */
export function logCalls(sink: CallLogSink): Interceptor {
  const ok = (s: Started, answer?: Message) =>
    sink.info(record(s, { status: "OK", code: successCode(s.call.context.binding) }, answer));
  const failed = (s: Started, error: unknown) => {
    const failure = callFailure(s.call.definition, s.call.context.binding, error);
    const r = record(s, { status: failure.type, code: failure.code });
    if (failure.serverFault) sink.error(r);
    else sink.info(r);
  };
  return (next) => async (call) => {
    const s: Started = { call, start: performance.now(), ids: taskIdsOf(call.request) };
    const once = new OneRecord(s, sink);
    try {
      const result = await next(call);
      if (result.kind === "unary") {
        once.end(() => ok(s, result.message));
        return result;
      }
      return { kind: "stream", messages: loggedStream(s, once, result.messages, { ok, failed }) };
    } catch (error) {
      once.end(() => failed(s, error));
      throw error;
    }
  };
}

/**
 * A call's one record: the first end wins. Once the call's signal has aborted (the client left, a gRPC deadline
 * passed) it is the abort's, written then, not when (or if) the handler answers or gives its stream another event.
 */
class OneRecord {
  #ended = false;
  /** A stream's first event, whose ids a record shows when the request had none. */
  first: Message | undefined;
  /** The call's signal, when its abort is watched (call-outcome.ts watchesAbort). */
  readonly #signal: AbortSignal | undefined;
  readonly #left = () => this.end(this.aborted);

  constructor(
    private readonly s: Started,
    private readonly sink: CallLogSink,
  ) {
    const { context, operation } = s.call;
    if (!watchesAbort(context.binding, operation.streaming)) return;
    this.#signal = context.signal;
    this.#signal.addEventListener("abort", this.#left, { once: true });
  }

  /** Writes the record: `how`'s, or the abort's once the signal has aborted. */
  end(how: () => void): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#signal?.removeEventListener("abort", this.#left);
    (this.#signal?.aborted ? this.aborted : how)();
  }

  /** The record of a call its signal ended: "Canceled" when the client left, else past its gRPC deadline. */
  readonly aborted = () => {
    const { context, operation } = this.s.call;
    const why = abortedCall(context.binding, this.#signal?.reason, operation.streaming);
    const r = record(this.s, { status: why.type, code: why.code }, this.first);
    if (why.serverFault) this.sink.error(r);
    else this.sink.info(r);
  };
}

interface StreamLog {
  readonly ok: (s: Started, answer?: Message) => void;
  readonly failed: (s: Started, error: unknown) => void;
}

async function* loggedStream(
  s: Started,
  once: OneRecord,
  messages: AsyncIterable<Message>,
  log: StreamLog,
): AsyncIterable<Message> {
  try {
    for await (const message of messages) {
      once.first ??= message;
      yield message;
    }
    once.end(() => log.ok(s, once.first));
  } catch (error) {
    once.end(() => log.failed(s, error));
    throw error;
  } finally {
    once.end(once.aborted);
  }
}
