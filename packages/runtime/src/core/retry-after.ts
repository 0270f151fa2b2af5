/**
 * How long an answer asks the caller to wait before trying again, in milliseconds:
 *
 *   Retry-After              delay-seconds or an HTTP date (RFC 9110 §10.2.3), the date counted from `now`
 *                            and never below 0; anything else is unreadable
 *   grpc-retry-pushback-ms   a gRPC server's pushback (gRFC A6), a whole number of milliseconds; a negative
 *                            one says not to retry, read as an endless wait (Infinity)
 *
 * Read by push delivery (task/push-policy.ts) for a webhook's answer and by the clients' transport errors.
 */

/** Retry-After in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day or month (e.g. "Sun, 06 Nov 1994 08:49:37 GMT"); a bare "-5" is no date.
  const at = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait an answer's headers (HTTP) or metadata (gRPC) ask for, in ms; undefined when they name none. */
export function retryAfterOf(headers: Headers | undefined, now: number): number | undefined {
  if (headers === undefined) return undefined;
  const pushback = headers.get("grpc-retry-pushback-ms")?.trim();
  if (pushback !== undefined && /^\d+$/.test(pushback)) return Number(pushback);
  if (pushback !== undefined && /^-\d+$/.test(pushback)) return Number.POSITIVE_INFINITY;
  return parseRetryAfter(headers.get("retry-after"), now);
}
