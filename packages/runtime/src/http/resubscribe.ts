/**
 * Resubscription, client side (issue 11): a task stream that drops before the
 * task is done is picked up again with SubscribeToTask, so the caller's
 * iterator carries on. Shared by the JSON-RPC, HTTP+JSON and gRPC clients
 * (buildClient, client-http.ts); opt-in with the client option `resubscribe`,
 * or withResubscribe over any client (a version bridge's: clientForCard
 * resumes a bridged client at the newer version, above the bridge).
 *
 * Rules:
 * - Which operations: the version's two streaming operations, told apart by
 *   their request: the one carrying a Message is SendStreamingMessage, the
 *   other is SubscribeToTask (v0.3: TaskSubscription). A dropped
 *   subscription is retried with the caller's own request; a dropped
 *   SendStreamingMessage is picked up by subscribing to the task id its
 *   events named (a Task's `id`, an update's `taskId`) — never sent again, as
 *   sending is not idempotent. Before any event named a task it is not retried.
 * - What is a drop: the stream ends while the last state seen is not terminal
 *   (completed, failed, canceled, rejected) nor interrupted (input-required,
 *   auth-required), or it fails with an A2ATransportError that is not the
 *   caller's doing: not an abort or timeout of the caller's signals, no HTTP
 *   4xx but 408 and 429 (which ask for a later try), no gRPC status other than
 *   UNAVAILABLE, INTERNAL, UNKNOWN, ABORTED, CANCELED (what a lost HTTP/2
 *   connection looks like). A stream that only answered a Message (no task)
 *   is complete. An A2AError (TaskNotFoundError, …) is the server's answer and
 *   is thrown as it is.
 * - Bounds: at most `attempts` resubscriptions in a row without progress, the
 *   n-th after backoffMs·2^(n-1) ms, or after the wait the failure's answer
 *   asked for when that is longer (retryAfterMs: Retry-After, gRPC pushback);
 *   a failure asking for more than maxRetryAfterMs is thrown, not waited for.
 *   Every wait is abortable by the caller's signals.
 *   Progress is an event after the first one of a resumed stream; it resets
 *   the count. When the attempts are used up, the last failure is thrown; a
 *   stream that kept ending without a terminal state throws an
 *   A2ATransportError naming the operation, URL and task id.
 * - Events: a resumed stream starts with the server's Task snapshot, which is
 *   yielded like any event: it is the task's state now and replaces what the
 *   caller built from earlier events. Events lost in the gap are not replayed
 *   (the snapshot holds their result).
 * - Stopping: a terminal or interrupted state ends the iterator; so does the
 *   caller (break, return, its signal). Without resubscription a terminal
 *   state ends it too (streamEnd, which buildClient applies to every task
 *   stream); an interrupted one does not, as a subscription starts there.
 */
import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import type { DescService } from "@bufbuild/protobuf";
import type { A2aClient, A2aServiceDefinition, CallOptions, OperationInfo } from "../core/definition.js";
import { A2AError, A2ATransportError } from "../core/a2a-error.js";

export interface ResubscribeOptions {
  /** Resubscriptions in a row without progress before giving up. Default 3. */
  readonly attempts?: number;
  /** Wait before the first resubscription, doubled for each further one. Default 200. */
  readonly backoffMs?: number;
  /** Longest wait an answer's Retry-After (or gRPC pushback) is honored for; longer ends the call. Default 60 000. */
  readonly maxRetryAfterMs?: number;
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 200;
const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;
/** Request Timeout and Too Many Requests: answers that ask for a later try. */
const RETRIED_4XX = [408, 429];
/** The states that end a task: no event can follow one. */
const TERMINAL_STATES = ["COMPLETED", "FAILED", "CANCELED", "CANCELLED", "REJECTED"];
/** The states that end a stream the server sends: the terminal ones and the interrupted ones. */
const DONE_STATES = [...TERMINAL_STATES, "INPUT_REQUIRED", "AUTH_REQUIRED"];
/** CANCELED too: a connection lost under HTTP/2 resets the stream with CANCEL (the caller's abort is told apart). */
const RETRIED_GRPC = ["UNAVAILABLE", "INTERNAL", "UNKNOWN", "ABORTED", "CANCELED"];

/** Starts one stream of an operation with a request (init shape) and the caller's call options. */
export type StreamStarter = (op: OperationInfo, init: unknown, call: CallOptions | undefined) => AsyncIterable<Message>;

/** What one resubscribing call needs. */
export interface ResubscribeCall {
  readonly def: A2aServiceDefinition;
  readonly op: OperationInfo;
  readonly init: unknown;
  readonly call: CallOptions | undefined;
  readonly url: string;
  /** The client's own signal (A2aClientOptions.signal). */
  readonly clientSignal: AbortSignal | undefined;
  readonly policy: ResubscribeOptions;
  readonly start: StreamStarter;
}

/** The subscription operation, when `op` is one of the two a stream can be resumed for. */
export function subscriptionFor(def: A2aServiceDefinition, op: OperationInfo): OperationInfo | undefined {
  if (!op.streaming) return undefined;
  const streams = def.operations.filter((o) => o.streaming);
  const carriesMessage = (o: OperationInfo) => o.method.input.fields.some((f) => f.message?.name === "Message");
  const subscribe = streams.filter((o) => !carriesMessage(o));
  return subscribe.length === 1 && streams.length === 2 ? subscribe[0] : undefined;
}

/**
 * A client whose streams resume after drops: for a client built without the option, e.g. a version
 * bridge's (clientForOlder), whose older JSON-RPC calls go around the older client's own streams.
 * `site` names the URL in errors and the client-wide signal that stops retrying.
 */
export function withResubscribe<S extends DescService>(
  def: A2aServiceDefinition<S>,
  client: A2aClient<S>,
  policy: true | ResubscribeOptions,
  site: { readonly url?: string; readonly signal?: AbortSignal } = {},
): A2aClient<S> {
  const d = def as unknown as A2aServiceDefinition;
  const methods = client as unknown as Record<string, (init: unknown, call?: CallOptions) => AsyncIterable<Message>>;
  const start: StreamStarter = (op, init, call) => methods[op.localName]!.call(client, init, call);
  const out: Record<string, unknown> = { ...client };
  for (const op of d.operations) {
    if (!subscriptionFor(d, op)) continue;
    out[op.localName] = (init: unknown, call?: CallOptions) =>
      resubscribing({
        def: d,
        op,
        init,
        call,
        url: site.url ?? "",
        clientSignal: site.signal,
        policy: policy === true ? {} : policy,
        start,
      });
  }
  return out as A2aClient<S>;
}

/** The stream of `c.op`, resumed by subscription after drops (see the module rules). */
export async function* resubscribing(c: ResubscribeCall): AsyncGenerator<Message> {
  const subscription = subscriptionFor(c.def, c.op)!;
  const attempts = c.policy.attempts ?? DEFAULT_ATTEMPTS;
  const backoff = c.policy.backoffMs ?? DEFAULT_BACKOFF_MS;
  let op = c.op;
  let init = c.init;
  let taskId = op === subscription ? taskIdOfRequest(c.init) : undefined;
  let failures = 0;
  for (;;) {
    let seen = 0;
    let failure: unknown;
    try {
      for await (const ev of c.start(op, init, c.call)) {
        seen++;
        if (seen > 1 && failures > 0) failures = 0;
        const read = readEvent(op, ev);
        taskId = read.taskId ?? taskId;
        yield ev;
        if (read.done) return;
      }
    } catch (e) {
      if (!retriable(e, c)) throw e;
      failure = e;
    }
    // Nothing to resume: SendStreamingMessage before any event named a task (or it answered a Message).
    if (c.op !== subscription && taskId === undefined) {
      if (failure !== undefined) throw failure;
      return;
    }
    if (failures >= attempts) throw failure ?? endedError(c, taskId, attempts);
    failures++;
    const asked = failure instanceof A2ATransportError ? (failure.retryAfterMs ?? 0) : 0;
    if (asked > (c.policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS)) throw failure;
    await pause(Math.max(backoff * 2 ** (failures - 1), asked), [c.clientSignal, c.call?.signal]);
    if (c.clientSignal?.aborted || c.call?.signal?.aborted) throw failure ?? endedError(c, taskId, attempts);
    op = subscription;
    init = c.op === subscription ? c.init : subscribeRequest(subscription, taskId!);
  }
}

const endedError = (c: ResubscribeCall, taskId: string | undefined, attempts: number) =>
  new A2ATransportError(
    `${c.op.name}: ${c.url} task ${taskId ?? "(unnamed)"}: the stream ended without a terminal state, ` +
      `also after ${attempts} resubscription(s)`,
    undefined,
    undefined,
    { operation: c.op.name, url: c.url },
  );

/** Whether a failure is a dropped connection (module rules), not the server's answer nor the caller's doing. */
function retriable(e: unknown, c: ResubscribeCall): boolean {
  if (e instanceof A2AError || !(e instanceof A2ATransportError)) return false;
  if (c.clientSignal?.aborted || c.call?.signal?.aborted) return false;
  if (e.status !== undefined && e.status >= 400 && e.status < 500 && !RETRIED_4XX.includes(e.status)) return false;
  if (e.grpcStatus !== undefined && !RETRIED_GRPC.includes(e.grpcStatus)) return false;
  for (let x: unknown = e.cause, depth = 0; x && depth < 5; depth++) {
    const name = (x as { name?: unknown }).name;
    if (name === "TimeoutError" || name === "AbortError") return false;
    x = (x as { cause?: unknown }).cause;
  }
  return true;
}

/** The task id a subscription request names: `id` (v1.0) or the resource name `tasks/{id}` (v0.3). */
function taskIdOfRequest(init: unknown): string | undefined {
  const r = (init ?? {}) as { id?: unknown; name?: unknown };
  if (typeof r.id === "string" && r.id !== "") return r.id;
  const m = typeof r.name === "string" ? /^tasks\/([^/]+)$/.exec(r.name) : null;
  return m ? m[1] : undefined;
}

/** A subscription request for a task id, in the fields the version's request has. */
function subscribeRequest(op: OperationInfo, taskId: string): Record<string, string> {
  const fields = op.method.input.fields.map((f) => f.name);
  if (fields.includes("id")) return { id: taskId };
  if (fields.includes("name")) return { name: `tasks/${taskId}` };
  throw new A2ATransportError(`${op.name}: its request names no task (no id nor name field)`);
}

/**
 * What ends a stream of `op`, when it is a task stream (one of the two streams subscriptionFor knows): an event
 * with a terminal state. A server ends the stream there; the client stops reading there too, so a server that
 * keeps the connection open after it does not hold the caller's iterator. Not an interrupted state: a
 * subscription to an input-required task starts with it and goes on to the task's next turn.
 */
export function streamEnd(def: A2aServiceDefinition, op: OperationInfo): ((ev: Message) => boolean) | undefined {
  return subscriptionFor(def, op) === undefined ? undefined : (ev) => readEvent(op, ev, TERMINAL_STATES).done;
}

/** The task id an event names and whether its state ends the stream. */
function readEvent(
  op: OperationInfo,
  ev: Message,
  states: readonly string[] = DONE_STATES,
): { taskId: string | undefined; done: boolean } {
  const desc = op.method.output;
  const oneof = desc.oneofs[0];
  const payload = oneof
    ? (ev as unknown as Record<string, { case?: string; value?: unknown }>)[oneof.localName]
    : undefined;
  const field = oneof?.fields.find((f) => f.localName === payload?.case);
  if (field?.fieldKind !== "message" || !payload) return { taskId: undefined, done: false };
  // A Message event names no task to resume: a Message answer is complete.
  if (field.message.name === "Message") return { taskId: undefined, done: false };
  const value = payload.value as Record<string, unknown>;
  const isTask = !field.message.fields.some((f) => f.name === "task_id");
  const id = isTask ? value["id"] : value["taskId"];
  const done = stateDone(field.message, value, states);
  return { taskId: typeof id === "string" && id !== "" ? id : undefined, done };
}

/** Whether the `status.state` of a Task or status update is terminal or interrupted. */
function stateDone(desc: DescMessage, value: Record<string, unknown>, states: readonly string[]): boolean {
  const statusField: DescField | undefined = desc.fields.find((f) => f.name === "status");
  if (statusField?.fieldKind !== "message") return false;
  const stateField = statusField.message.fields.find((f) => f.name === "state");
  const status = value[statusField.localName] as Record<string, unknown> | undefined;
  if (stateField?.fieldKind !== "enum" || !status) return false;
  const name = stateField.enum.values.find((v) => v.number === status[stateField.localName])?.name ?? "";
  return states.some((s) => name === s || name.endsWith(`_${s}`));
}

/** Waits `ms`, or less when a signal aborts. */
function pause(ms: number, signals: readonly (AbortSignal | undefined)[]): Promise<void> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of live) s.addEventListener("abort", done, { once: true });
    if (live.some((s) => s.aborted)) done();
  });
}
