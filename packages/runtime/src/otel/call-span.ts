/**
 * One call's span and duration, as both interceptors keep them
 * (server-interceptor.ts, client-interceptor.ts):
 *
 *   task       a2a.task.id / a2a.context.id from the request, else from the
 *              first answer or event that names them
 *   end        once: on success the binding's success attributes; on failure
 *              the outcome's attributes, the exception as an event and, when
 *              the side says so (`markError`), status ERROR; then the
 *              duration, by the call's shape and the outcome's error type
 *   streams    each event a span event (task-events.ts); the call ends with
 *              the stream: its end, its failure, or `onBreak` when the reader
 *              leaves before the end. Given the call's signal (a server's),
 *              the call ends as `onBreak` once it aborts (the client left, or
 *              a deadline passed), then and there, whatever the stream does
 *   recording  a span that does not record (no-op providers, not sampled)
 *              gets nothing beyond its start; the duration is measured anyway
 */
import type { Message } from "@bufbuild/protobuf";
import { type Attributes, type Histogram, type Span, SpanStatusCode } from "@opentelemetry/api";
import { type CallShape, type ErrorOutcome, taskAttributes } from "./attributes.js";
import { recordTaskEvent } from "./task-events.js";

/** How a stream that its reader left before the end counts: as a success, or as this error. */
export type StreamBreak = { readonly kind: "ok" } | { readonly kind: "error"; readonly error: Error };

export class CallSpan {
  readonly #recording: boolean;
  readonly #start = performance.now();
  #hasTask = false;
  #ended = false;

  constructor(
    readonly span: Span,
    private readonly shape: CallShape,
    private readonly duration: Histogram,
    /** The outcome of a failure, as the side reads it. */
    private readonly outcomeOf: (error: unknown) => ErrorOutcome,
    /** Whether a failure sets status ERROR (always on a client; a server fault only on a server). */
    private readonly markError: (outcome: ErrorOutcome) => boolean,
  ) {
    this.#recording = span.isRecording();
  }

  /** Sets the task attributes of `message` when the span has none yet. */
  noteTask(message: Message): void {
    if (this.#hasTask || !this.#recording) return;
    const attributes = taskAttributes(message);
    this.#hasTask = attributes["a2a.task.id"] !== undefined;
    this.span.setAttributes(attributes);
  }

  endOk(attributes: Attributes, answer?: Message): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#recording) {
      this.span.setAttributes(attributes);
      if (answer !== undefined) this.noteTask(answer);
    }
    this.span.end();
    this.duration.record((performance.now() - this.#start) / 1000, this.shape.metric(undefined));
  }

  endError(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const outcome = this.outcomeOf(error);
    if (this.#recording) {
      this.span.setAttributes(outcome.attributes);
      this.span.recordException(error instanceof Error ? error : new Error(String(error)));
      if (this.markError(outcome)) this.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
    }
    this.span.end();
    this.duration.record((performance.now() - this.#start) / 1000, this.shape.metric(outcome.type));
  }

  /** The stream's events, each a span event; the call ends with the stream (see the header). */
  async *traced(
    messages: AsyncIterable<Message>,
    ok: Attributes,
    onBreak: StreamBreak,
    signal?: AbortSignal,
  ): AsyncIterable<Message> {
    const broken = () => (onBreak.kind === "ok" ? this.endOk(ok) : this.endError(onBreak.error));
    const left = () => broken();
    signal?.addEventListener("abort", left, { once: true });
    try {
      for await (const message of messages) {
        if (this.#recording) {
          this.noteTask(message);
          recordTaskEvent(this.span, message);
        }
        yield message;
      }
      if (signal?.aborted) broken();
      else this.endOk(ok);
    } catch (error) {
      if (signal?.aborted) broken();
      else this.endError(error);
      throw error;
    } finally {
      signal?.removeEventListener("abort", left);
      broken();
    }
  }
}
