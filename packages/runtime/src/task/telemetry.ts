/**
 * What createTaskHandler tells a telemetry implementation (the `telemetry`
 * option; @protoc-gen-a2a/runtime/otel gives one on OpenTelemetry), without
 * loading any of it:
 *
 *   turn     each executor run of one message: started before the executor
 *            is called, told every event of its task while it runs (its own
 *            and those committed elsewhere, a cancel through another instance
 *            included), ended when the executor returns or throws
 *   push     each delivery of one update to one webhook: the sender reports
 *            each attempt (with the headers the attempt adds, traceparent) and
 *            the delivery's end (push-types.ts PushTrace)
 *   store    each operation on the task store, timed (timed-store.ts)
 *
 * The calls come from the task runtime's own code paths; an implementation
 * must not throw and must not block (the runtime does not wait on it).
 */
import type { HandlerContext } from "../core/definition.js";
import type { StreamResponse } from "./a2a-types.js";
import type { PushTrace } from "./push-types.js";

export interface TurnStart {
  readonly tenant: string;
  readonly taskId: string;
  readonly contextId: string;
  /** The call that runs the turn: SendMessage or SendStreamingMessage. */
  readonly operation: string;
  readonly context: HandlerContext;
}

/** One running turn, as telemetry follows it. */
export interface TurnTrace {
  /** An event of the task, committed while the turn runs. */
  event(event: StreamResponse): void;
  /** The executor returned (no error) or threw. */
  end(error?: unknown): void;
}

export interface PushStart {
  readonly tenant: string;
  readonly taskId: string;
  readonly configId: string;
  /** The webhook URL. */
  readonly url: string;
  /** The protocol version the payload is written in. */
  readonly protocolVersion: string;
  /** The call whose commit caused the update. */
  readonly context: HandlerContext;
  /** The turn whose commit caused the update, when an executor made it. */
  readonly turn: TurnTrace | undefined;
}

export interface TaskTelemetry {
  turn(start: TurnStart): TurnTrace;
  push(start: PushStart): PushTrace;
  /**
   * One store operation starts ("get", "commit", "list", …, on `store`: "memory", "postgresql" or another
   * store's name); the function returned ends it, with the error it failed with, if any.
   */
  storeOperation(operation: string, store: string): (error?: unknown) => void;
}
