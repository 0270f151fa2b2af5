/**
 * How long a fetched agent card may be reused without asking (RFC 9111, for
 * a private client cache, spec §8.6.2), from the response's headers:
 *
 *   no-store           not stored at all (and a stored copy is dropped)
 *   no-cache           stored, but revalidated before every use
 *   max-age=N          fresh for N seconds less the response's Age
 *   none of these      fresh for the resolver's default (0: revalidate)
 *
 * Directive names are case-insensitive, values may be quoted; a max-age that
 * is not a non-negative integer counts as 0 (stale, RFC 9111 §4.2.1).
 * Expires and heuristic freshness are not used.
 */

export interface Freshness {
  /** The card may be stored. */
  readonly store: boolean;
  /** Milliseconds from receipt during which the card is used without a request. */
  readonly freshMs: number;
}

/** The freshness a response's headers give; `defaultSeconds` when they say nothing. */
export function freshnessOf(headers: Headers, defaultSeconds: number): Freshness {
  const directives = parseCacheControl(headers.get("cache-control") ?? "");
  if (directives.has("no-store")) return { store: false, freshMs: 0 };
  if (directives.has("no-cache")) return { store: true, freshMs: 0 };
  const maxAge = directives.get("max-age");
  if (maxAge === undefined) return { store: true, freshMs: Math.max(0, defaultSeconds) * 1000 };
  const seconds = /^\d+$/.test(maxAge) ? Number(maxAge) : 0;
  const ageHeader = headers.get("age") ?? "";
  const age = /^\d+$/.test(ageHeader.trim()) ? Number(ageHeader.trim()) : 0;
  return { store: true, freshMs: Math.max(0, seconds - age) * 1000 };
}

/** Directive name (lower case) → value ("" when it has none). */
function parseCacheControl(header: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of header.split(",")) {
    const [name = "", ...rest] = part.split("=");
    const key = name.trim().toLowerCase();
    if (key === "") continue;
    out.set(
      key,
      rest
        .join("=")
        .trim()
        .replace(/^"(.*)"$/, "$1"),
    );
  }
  return out;
}
