/**
 * Push delivery: createPushSender returns the PushSender of push-types.ts. The webhook request is
 *
 *   POST <config.url>
 *   Content-Type: application/a2a+json   protocol version 1.x (S10 §4.3.3 "Request Format")
 *                 application/json       protocol version 0.x (S03 §9.5 step 3 "HTTP Headers")
 *   Authorization: <scheme> <credentials>        when config.authentication has a scheme (S10 §4.3.3,
 *                                                S10 §13.2 "Agents MUST include authentication credentials")
 *   X-A2A-Notification-Token: <config.token>     when config.token is set (S03 §9.5 step 3; S10 defines the
 *                                                token field, P10 TaskPushNotificationConfig.token, but names
 *                                                no header, so the v0.3 header is kept for both versions)
 *   traceparent, tracestate                      when the delivery is traced (PushDelivery.trace: its
 *                                                attempt's headers, W3C Trace Context)
 *   <body as given: a v1.0 StreamResponse or a v0.3 Task>
 *
 * Delivered = a 2xx answer. Each attempt screens the URL again (url-screen.ts: DNS answered now, every
 * address checked, the connection pinned to them; a refused URL is final), posts once (push-attempt.ts, own
 * timeout) and is judged by push-policy.ts (what is retried, backoff, Retry-After), up to `attempts` in all.
 *
 * Order: deliveries for one config (tenant, task id, config id) go one after another, each ending (delivered
 * or given up) before the next starts, so a webhook sees a task's updates in the order they were sent.
 * Different configs are delivered concurrently, at most maxConcurrent attempts at a time in all and
 * maxConcurrentPerHost to one webhook host (the others wait their turn; an attempt's timeout starts with its
 * turn). An attempt holds its turn until its connection is closed: a webhook that answers and then trickles its
 * answer's body keeps the turn for up to timeoutMs after its answer, so the sender never has more than
 * maxConcurrent connections open. A config's waiting deliveries are bounded (queueLimit): on overflow the oldest
 * waiting one is dropped and reported. What the sender holds, waiting or in flight, is bounded in all
 * (maxQueuedBytes), per webhook host (maxQueuedBytesPerHost) and per task owner (maxQueuedBytesPerOwner): the
 * bodies, a body shared by several deliveries counted once, and each delivery's config, counted per delivery (a
 * store may read a fresh copy of a config for every commit, and a config's strings may be long). A delivery that
 * would pass any of them is dropped and reported, unless nothing else is held there. So a webhook that never
 * answers, a task with many configs, or one caller's tasks with webhooks on many hosts hold at most that much,
 * and leave the other hosts and owners their room; the turns, per host and in all, go round the owners waiting
 * for one (push-shares.ts). send() only enqueues; every failure,
 * final or dropped, goes to onError as a PushDeliveryError naming the URL, task id, config id, attempts and the
 * last status or cause (default: console.error).
 * cancel() drops what waits for a config and stops its retries (its config was deleted). idle() resolves once
 * nothing is queued or in flight and no attempt's connection is open. close() does what cancel() does for every
 * config, drops what is sent after it, and resolves once the attempts in flight have ended and their
 * connections closed (each within about twice timeoutMs): no timer of the sender's is left to keep the
 * process running. To deliver what waits first, await idle(), with a deadline of one's own, before close().
 */
import { postOnce } from "./push-attempt.js";
import type { PushAttemptTrace, PushDelivery, PushOutcome, PushSender } from "./push-types.js";
import {
  judge,
  readRetrySettings,
  retryDelayMs,
  type Failed,
  type PushFailure,
  type RetrySettings,
  type Verdict,
} from "./push-policy.js";
import {
  createUrlScreen,
  displayUrl,
  UnresolvedHostError,
  type ScreenedUrl,
  type UrlScreenOptions,
} from "./url-screen.js";
import { headerRecord } from "../core/records.js";
import { PushShares, type Sharer, type TurnRequest, webhookHost } from "./push-shares.js";

export type { PushFailure } from "./push-policy.js";

/** The header carrying TaskPushNotificationConfig.token (S03 §9.5). */
export const NOTIFICATION_TOKEN_HEADER = "X-A2A-Notification-Token";

export interface PushSenderOptions extends UrlScreenOptions {
  /** Time one attempt may take, from connecting to the answer's end. Default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Attempts per delivery, the first included. Default 5. */
  readonly attempts?: number;
  /** Backoff before the first retry; doubled each retry, jittered down to half. Default 1 000 ms. */
  readonly initialBackoffMs?: number;
  /** Ceiling of the backoff. Default 60 000 ms. */
  readonly maxBackoffMs?: number;
  /** Ceiling of a webhook's Retry-After. Default 120 000 ms. */
  readonly maxRetryAfterMs?: number;
  /** Deliveries that may wait behind the one in flight, per config. Default 100. */
  readonly queueLimit?: number;
  /**
   * Bodies (a shared body once) and configs (one per delivery) held, waiting or in flight, in all, counted in
   * UTF-16 code units: bytes for JSON in ASCII, up to twice that in memory for other text. Default 64 MiB.
   */
  readonly maxQueuedBytes?: number;
  /**
   * What maxQueuedBytes counts, held for one webhook host (its URL's host and port): one slow or failing webhook
   * leaves the others the rest. Default a quarter of maxQueuedBytes (16 MiB).
   */
  readonly maxQueuedBytesPerHost?: number;
  /**
   * What maxQueuedBytes counts, held for the tasks of one owner (an authenticated caller, access.ts; owner "" has
   * no share of its own): one caller's webhooks, on however many hosts, leave the others the rest, so that their
   * deliveries are not dropped (turns go round the owners waiting: push-shares.ts). Default a quarter of
   * maxQueuedBytes (16 MiB).
   */
  readonly maxQueuedBytesPerOwner?: number;
  /** Attempts in flight at once, over all configs. Default 64. */
  readonly maxConcurrent?: number;
  /** Attempts in flight at once to one webhook host (its URL's host and port). Default a quarter of maxConcurrent. */
  readonly maxConcurrentPerHost?: number;
  /** Receives every delivery given up or dropped. Default: console.error. */
  readonly onError?: (error: PushDeliveryError) => void;
}

/** A delivery given up (after its last attempt) or dropped unsent (queue overflow). */
export class PushDeliveryError extends Error {
  override name = "PushDeliveryError";
  constructor(
    message: string,
    readonly failure: PushFailure,
    /** The webhook URL, credentials and query values hidden (displayUrl). */
    readonly url: string,
    readonly taskId: string,
    readonly configId: string,
    /** Attempts made; 0 for a dropped delivery. */
    readonly attempts: number,
    /** The last HTTP status, when the webhook answered. */
    readonly status?: number,
    cause?: unknown,
  ) {
    super(message, cause !== undefined ? { cause } : undefined);
  }
}

/** The webhook request's headers for a delivery (sources in the module header). */
export function pushHeaders(delivery: PushDelivery): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": /^0\./.test(delivery.protocolVersion) ? "application/json" : "application/a2a+json",
  };
  const { token, authentication } = delivery.config;
  if (token !== "") headers[NOTIFICATION_TOKEN_HEADER] = token;
  if (authentication !== undefined && authentication.scheme !== "") {
    const { scheme, credentials } = authentication;
    headers.Authorization = credentials === "" ? scheme : `${scheme} ${credentials}`;
  }
  return headers;
}

function where(delivery: PushDelivery): string {
  const { url, taskId, id } = delivery.config;
  return `push delivery to ${displayUrl(url)} for task ${taskId} (config ${id})`;
}

function givenUp(delivery: PushDelivery, attempts: number, failed: Failed): PushDeliveryError {
  const { url, taskId, id } = delivery.config;
  const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
  const message = `${where(delivery)} failed after ${tries}: ${failed.detail}`;
  return new PushDeliveryError(
    message,
    failed.failure,
    displayUrl(url),
    taskId,
    id,
    attempts,
    failed.status,
    failed.cause,
  );
}

function dropped(delivery: PushDelivery, why: string, failure: PushFailure = "queue-overflow"): PushDeliveryError {
  const { url, taskId, id } = delivery.config;
  const message = `${where(delivery)} dropped unsent after 0 attempts: ${why}`;
  return new PushDeliveryError(message, failure, displayUrl(url), taskId, id, 0);
}

/** The length of a delivery's config in UTF-16 code units: what maxQueuedBytes counts of it. */
function configLength({ tenant, taskId, id, url, token, authentication }: PushDelivery["config"]): number {
  const auth = authentication === undefined ? 0 : authentication.scheme.length + authentication.credentials.length;
  return tenant.length + taskId.length + id.length + url.length + token.length + auth;
}

/** Why a config's deliveries stopped before they ended. */
type Stop = "config-deleted" | "sender-closed";

const STOP_TEXT: Record<Stop, string> = {
  "config-deleted": "its config was deleted",
  "sender-closed": "the sender was closed",
};

/** A delivery ended early (its config deleted, the sender closed), after `attempts` attempts. */
function stopped(delivery: PushDelivery, attempts: number, stop: Stop): PushDeliveryError {
  if (attempts === 0) return dropped(delivery, STOP_TEXT[stop], stop);
  const { url, taskId, id } = delivery.config;
  const message = `${where(delivery)} given up after ${attempts} attempt(s): ${STOP_TEXT[stop]}`;
  return new PushDeliveryError(message, stop, displayUrl(url), taskId, id, attempts);
}

function logError(error: PushDeliveryError): void {
  console.error(`A2A push: ${error.message}`);
}

/** A delivery with its webhook host and task owner (push-shares.ts) and its config's length (configLength). */
interface Queued {
  readonly delivery: PushDelivery;
  readonly sharer: Sharer;
  readonly configBytes: number;
}

interface ConfigQueue {
  readonly waiting: Queued[];
  running: boolean;
  /** Set when its config was deleted or the sender closed: nothing more is sent, retried or waited for. */
  canceled: Stop | undefined;
  /** Ends the retry pause, or withdraws the wait for a turn, under way, if any (cancel, close). */
  wake: (() => void) | undefined;
}

/** Why a config's deliveries stopped, if they did: read afresh after an await (no narrowing carried over). */
const stopOf = (queue: ConfigQueue): Stop | undefined => queue.canceled;

/** The key of a config's queue. */
const queueKey = (tenant: string, taskId: string, configId: string) => JSON.stringify([tenant, taskId, configId]);

/** Deliveries by config, one at a time per config; counts what is queued or in flight for idle(). */
class QueuedSender implements Required<PushSender> {
  private readonly queues = new Map<string, ConfigQueue>();
  private readonly screen: ReturnType<typeof createUrlScreen>;
  private readonly onError: (error: PushDeliveryError) => void;
  private open = 0;
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  /** What is held, in all, per host and per owner, and the turns of the attempts in flight, in all and per host. */
  private readonly shares: PushShares;

  constructor(
    options: PushSenderOptions,
    private readonly settings: RetrySettings,
  ) {
    this.shares = new PushShares(settings);
    this.screen = createUrlScreen(options);
    this.onError = options.onError ?? logError;
  }

  async checkUrl(url: string): Promise<void> {
    try {
      await this.screen(url);
    } catch (e) {
      // A host that does not resolve yet is accepted; delivery retries it (url-screen.ts: the decision).
      if (!(e instanceof UnresolvedHostError)) throw e;
    }
  }

  send(delivery: PushDelivery): void {
    const { tenant, taskId, id } = delivery.config;
    const key = queueKey(tenant, taskId, id);
    this.open += 1;
    if (this.closed) {
      delivery.trace?.end("dropped");
      this.end(stopped(delivery, 0, "sender-closed"));
      return;
    }
    const sharer = { host: webhookHost(delivery.config.url), owner: delivery.owner ?? "" };
    const queued = { delivery, sharer, configBytes: configLength(delivery.config) };
    const refusal = this.shares.refusal(sharer, delivery.body, queued.configBytes);
    if (refusal !== undefined) {
      delivery.trace?.end("dropped");
      this.end(dropped(delivery, refusal));
      return;
    }
    this.shares.hold(sharer, delivery.body, queued.configBytes);
    let queue = this.queues.get(key);
    if (queue === undefined) {
      queue = { waiting: [], running: false, canceled: undefined, wake: undefined };
      this.queues.set(key, queue);
    }
    queue.waiting.push(queued);
    if (queue.waiting.length > this.settings.queueLimit) {
      const oldest = queue.waiting.shift();
      const why = `its queue overflowed (queueLimit ${this.settings.queueLimit})`;
      if (oldest !== undefined) this.drop(oldest, dropped(oldest.delivery, why));
    }
    if (!queue.running) void this.drain(key, queue);
  }

  cancel(tenant: string, taskId: string, configId: string): void {
    const key = queueKey(tenant, taskId, configId);
    const queue = this.queues.get(key);
    if (queue !== undefined) this.stop(key, queue, "config-deleted");
  }

  close(): Promise<void> {
    this.closed = true;
    for (const [key, queue] of this.queues) this.stop(key, queue, "sender-closed");
    return this.idle();
  }

  /** Drops a config's waiting deliveries and ends its retries (the attempt in flight, if any, ends on its own). */
  private stop(key: string, queue: ConfigQueue, why: Stop): void {
    queue.canceled = why;
    this.queues.delete(key);
    for (let next = queue.waiting.shift(); next !== undefined; next = queue.waiting.shift()) {
      this.drop(next, stopped(next.delivery, 0, why));
    }
    queue.wake?.();
  }

  /** Drops a delivery unsent, reporting why. */
  private drop(queued: Queued, error: PushDeliveryError): void {
    queued.delivery.trace?.end("dropped");
    this.release(queued);
    this.end(error);
  }

  private release({ delivery, sharer, configBytes }: Queued): void {
    this.shares.release(sharer, delivery.body, configBytes);
  }

  idle(): Promise<void> {
    return this.open === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Ends one delivery: reports its error, if any, and wakes idle() when it was the last open one. */
  private end(error?: PushDeliveryError): void {
    if (error !== undefined) {
      try {
        this.onError(error);
      } catch (thrown) {
        console.error("A2A push: onError threw", thrown);
      }
    }
    this.open -= 1;
    if (this.open > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private async drain(key: string, queue: ConfigQueue): Promise<void> {
    queue.running = true;
    for (let next = queue.waiting.shift(); next !== undefined; next = queue.waiting.shift()) {
      let error: PushDeliveryError | undefined;
      let outcome: PushOutcome;
      const { delivery } = next;
      try {
        error = await this.deliver(next, queue);
        // Stopped before its first attempt (its config deleted, the sender closed): never sent, as a delivery
        // dropped from its queue.
        outcome = error === undefined ? "delivered" : error.attempts === 0 ? "dropped" : "failed";
      } catch (thrown) {
        const detail = String(thrown);
        error = givenUp(delivery, 0, { delivered: false, retryable: false, failure: "network", detail });
        outcome = "failed";
      }
      delivery.trace?.end(outcome);
      this.release(next);
      this.end(error);
    }
    queue.running = false;
    if (this.queues.get(key) === queue) this.queues.delete(key);
  }

  /** Delivers with retries; resolves to the error to report, or undefined once delivered. */
  private async deliver({ delivery, sharer }: Queued, queue: ConfigQueue): Promise<PushDeliveryError | undefined> {
    for (let n = 1; ; n += 1) {
      const turn = await this.turn(sharer, queue);
      if (typeof turn === "string") return stopped(delivery, n - 1, turn);
      let verdict: Verdict;
      let closed: Promise<void> | undefined;
      try {
        ({ verdict, closed } = await this.attempt(delivery, delivery.trace?.attempt(n)));
      } finally {
        this.giveTurnOnceClosed(turn, closed);
      }
      if (verdict.delivered) return undefined;
      if (!verdict.retryable || n >= this.settings.attempts) return givenUp(delivery, n, verdict);
      await this.pause(queue, retryDelayMs(verdict, n, this.settings));
    }
  }

  /**
   * Gives an attempt's turn back once its connection is closed; meanwhile it counts as open for idle() and
   * close(), so that they do not resolve while a connection is.
   */
  private giveTurnOnceClosed(turn: TurnRequest, closed: Promise<void> | undefined): void {
    if (closed === undefined) {
      turn.give();
      return;
    }
    this.open += 1;
    void closed.then(() => {
      try {
        turn.give();
      } finally {
        this.end();
      }
    });
  }

  /**
   * Waits for the attempt's turn (push-shares.ts), and resolves to it once granted; when its config is deleted or
   * the sender closed first (also during the retry pause or the attempt before), to the reason, with no turn
   * held: stop() withdraws the wait, so that the delivery is reported and what it holds given back at once.
   */
  private async turn(sharer: Sharer, queue: ConfigQueue): Promise<TurnRequest | Stop> {
    if (queue.canceled !== undefined) return queue.canceled;
    const request = this.shares.askTurn(sharer);
    queue.wake = request.withdraw;
    const granted = await request.granted;
    queue.wake = undefined;
    const stop = stopOf(queue);
    if (stop === undefined && granted) return request;
    request.give();
    // Not granted: withdrawn, which only stop() does, once it has set the reason.
    return stop as Stop;
  }

  /**
   * Waits `ms` before a retry, or less when the config is deleted meanwhile (cancel wakes it); not at all when it
   * was deleted during the attempt before.
   */
  private pause(queue: ConfigQueue, ms: number): Promise<void> {
    if (queue.canceled !== undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      queue.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      queue.wake = undefined;
    });
  }

  /** One attempt's verdict and, when it was answered, when its connection closes. */
  private async attempt(
    delivery: PushDelivery,
    trace: PushAttemptTrace | undefined,
  ): Promise<{ verdict: Verdict; closed?: Promise<void> }> {
    let target: ScreenedUrl;
    try {
      target = await this.screen(delivery.config.url);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      const retryable = e instanceof UnresolvedHostError;
      const failure = retryable ? "network" : "url-refused";
      trace?.end({ failure });
      return { verdict: { delivered: false, retryable, failure, detail, cause: e } };
    }
    const { body } = delivery;
    const headers = trace === undefined ? pushHeaders(delivery) : headerRecord(pushHeaders(delivery), trace.headers);
    const outcome = await postOnce({ target, headers, body, timeoutMs: this.settings.timeoutMs });
    const verdict = judge(outcome, this.settings);
    if (outcome.kind === "answered") {
      trace?.end({ status: outcome.status });
      return { verdict, closed: outcome.closed };
    }
    trace?.end({ failure: verdict.delivered ? "network" : verdict.failure });
    return { verdict };
  }
}

/**
 * Creates a sender; see PushSenderOptions for the defaults. Throws a RangeError for an option out of range or an
 * allowHosts or allowNetworks entry that is no host or network, naming it.
 */
export function createPushSender(options: PushSenderOptions = {}): Required<PushSender> {
  return new QueuedSender(options, readRetrySettings(options));
}
