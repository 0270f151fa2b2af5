/**
 * The retry policy of push delivery (push.ts): which attempt outcomes are retried and how long to wait.
 *
 *   delivered       2xx (S10 §4.3.3: "Clients MUST respond with HTTP 2xx status codes")
 *   retried         no answer (refused, reset, DNS, timeout), 408, 429, 5xx
 *   not retried     a request node:http refuses to build, 3xx (redirects are not followed), other 4xx
 *   wait            the answer's Retry-After (delay-seconds or HTTP date, RFC 9110 §10.2.3), capped at
 *                   maxRetryAfterMs; else exponential backoff with jitter (S10 §13.2 SHOULD): retry n waits
 *                   a random time in [b/2, b], b = min(maxBackoffMs, initialBackoffMs * 2^(n-1))
 *   detail          "HTTP <status> <reason phrase>", the phrase with each control character as "?" and cut at
 *                   200 characters: the detail goes to logs
 * Options are read once, with their defaults, and refused with a RangeError naming the option when out of range.
 */
import { parseRetryAfter } from "../core/retry-after.js";
import type { AttemptOutcome } from "./push-outcome.js";
import type { ShareLimits } from "./push-shares.js";

/** The kind of a failed attempt, or why a delivery ended unsent or early (a queue overflowed, a config deleted,
 * the sender closed). */
export type PushFailure =
  | "url-refused"
  | "http-status"
  | "network"
  | "timeout"
  | "request-refused"
  | "queue-overflow"
  | "config-deleted"
  | "sender-closed";

/** The sender's settings: its retries, and the limits of what it holds and runs (push-shares.ts). */
export interface RetrySettings extends ShareLimits {
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly maxRetryAfterMs: number;
  readonly queueLimit: number;
}

/** The defaults: timeoutMs within S10 §4.3.3's recommended 10-30 s. */
export const RETRY_DEFAULTS: RetrySettings = {
  timeoutMs: 10_000,
  attempts: 5,
  initialBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  maxRetryAfterMs: 120_000,
  queueLimit: 100,
  maxQueuedBytes: 64 * 1024 * 1024,
  maxQueuedBytesPerHost: 16 * 1024 * 1024,
  maxQueuedBytesPerOwner: 16 * 1024 * 1024,
  maxConcurrent: 64,
  maxConcurrentPerHost: 16,
};

/** The end of one attempt: delivered, or why not and whether to retry. */
export type Verdict =
  | { readonly delivered: true }
  | {
      readonly delivered: false;
      readonly retryable: boolean;
      readonly failure: PushFailure;
      readonly detail: string;
      readonly status?: number;
      readonly cause?: unknown;
      readonly retryAfterMs?: number;
    };

export type Failed = Extract<Verdict, { delivered: false }>;

const INTEGER_OPTIONS: ReadonlySet<keyof RetrySettings> = new Set([
  "attempts",
  "queueLimit",
  "maxQueuedBytes",
  "maxQueuedBytesPerHost",
  "maxQueuedBytesPerOwner",
  "maxConcurrent",
  "maxConcurrentPerHost",
]);
const MINIMUM: Readonly<Record<keyof RetrySettings, number>> = {
  timeoutMs: 1,
  attempts: 1,
  initialBackoffMs: 0,
  maxBackoffMs: 0,
  maxRetryAfterMs: 0,
  queueLimit: 1,
  maxQueuedBytes: 1,
  maxQueuedBytesPerHost: 1,
  maxQueuedBytesPerOwner: 1,
  maxConcurrent: 1,
  maxConcurrentPerHost: 1,
};

/**
 * The limits per webhook host and per task owner, whose default is a quarter of the limit in all (read after it,
 * in key order).
 */
const SHARE_OF: Partial<Record<keyof RetrySettings, keyof RetrySettings>> = {
  maxQueuedBytesPerHost: "maxQueuedBytes",
  maxQueuedBytesPerOwner: "maxQueuedBytes",
  maxConcurrentPerHost: "maxConcurrent",
};

/** The settings from the options, defaults filled in; a RangeError names the first option out of range. */
export function readRetrySettings(options: Partial<RetrySettings>): RetrySettings {
  const settings: { -readonly [K in keyof RetrySettings]: number } = { ...RETRY_DEFAULTS };
  for (const name of Object.keys(RETRY_DEFAULTS) as (keyof RetrySettings)[]) {
    const all = SHARE_OF[name];
    const fallback = all === undefined ? RETRY_DEFAULTS[name] : Math.max(1, Math.ceil(settings[all] / 4));
    const value = options[name] ?? fallback;
    const integer = INTEGER_OPTIONS.has(name);
    if (!Number.isFinite(value) || value < MINIMUM[name] || (integer && !Number.isInteger(value))) {
      const what = integer ? "an integer" : "a number";
      throw new RangeError(`createPushSender: option ${name} must be ${what} >= ${MINIMUM[name]}; got ${value}`);
    }
    settings[name] = value;
  }
  return settings;
}

/** Judges one attempt's outcome. */
export function judge(outcome: AttemptOutcome, settings: RetrySettings): Verdict {
  if (outcome.kind === "failed") {
    const failure = outcome.timedOut ? "timeout" : outcome.retryable ? "network" : "request-refused";
    const code = (outcome.cause as NodeJS.ErrnoException).code;
    const detail = code !== undefined ? `${code} ${outcome.cause.message}` : outcome.cause.message;
    return { delivered: false, retryable: outcome.retryable, failure, detail, cause: outcome.cause };
  }
  const { status } = outcome;
  if (status >= 200 && status < 300) return { delivered: true };
  const retryable = status === 408 || status === 429 || (status >= 500 && status < 600);
  const after = retryable ? parseRetryAfter(outcome.retryAfter, Date.now()) : undefined;
  return {
    delivered: false,
    retryable,
    failure: "http-status",
    status,
    detail: `HTTP ${status}${outcome.statusText !== "" ? ` ${shownStatusText(outcome.statusText)}` : ""}`,
    ...(after !== undefined ? { retryAfterMs: Math.min(after, settings.maxRetryAfterMs) } : {}),
  };
}

/**
 * A webhook's reason phrase as a failure's detail shows it: a control character (C0, DEL, C1) as "?", at most
 * 200 characters. The detail goes to logs, where an escape sequence from the webhook would act on a terminal.
 */
function shownStatusText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain;
}

/** The wait before retry `retry` (1 = the first retry) after a failed attempt. */
export function retryDelayMs(failed: Failed, retry: number, settings: RetrySettings): number {
  if (failed.retryAfterMs !== undefined) return failed.retryAfterMs;
  const base = Math.min(settings.maxBackoffMs, settings.initialBackoffMs * 2 ** (retry - 1));
  return base / 2 + (Math.random() * base) / 2;
}
