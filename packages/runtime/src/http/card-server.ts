/**
 * Serves an agent card: GET and HEAD (the headers, Content-Length included,
 * without the body: head.ts); any other method is 405 with Allow.
 *
 * The card is cacheable (S10 §8.6.1): Cache-Control max-age (default 300 s),
 * a strong ETag that hashes the body, and Last-Modified, the time this handler
 * first served that body; If-None-Match (or, without it, If-Modified-Since)
 * that matches gets 304.
 */
import type { CoreHandler, CoreRequest } from "../core/server-types.js";
import { headOf } from "./head.js";

export interface AgentCardServing {
  /** Cache-Control max-age of the card, in seconds. Default 300. */
  readonly maxAge?: number;
  /** More headers for the card response; they take precedence over the caching headers. */
  readonly headers?: (headers: Headers) => Readonly<Record<string, string>>;
}

const DEFAULT_CARD_MAX_AGE = 300;

/** The card handler; `agentCard` is called per request, so the card can depend on its headers. */
export function createAgentCardHandler(
  agentCard: (req: CoreRequest) => unknown,
  serving: AgentCardServing = {},
): CoreHandler {
  const firstServed = new Map<string, Date>();
  const maxAge = serving.maxAge ?? DEFAULT_CARD_MAX_AGE;
  return async (req) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      return { status: 405, headers: { allow: "GET, HEAD" }, body: "" };
    }
    const body = JSON.stringify(agentCard(req));
    const etag = `"${await digest(body)}"`;
    let served = firstServed.get(etag);
    if (served === undefined) {
      if (firstServed.size >= 64) firstServed.clear(); // a card that changes per request: keep the map bounded
      served = new Date(Math.floor(Date.now() / 1000) * 1000);
      firstServed.set(etag, served);
    }
    const headers = {
      "content-type": "application/json",
      "cache-control": `max-age=${maxAge}`,
      etag,
      "last-modified": served.toUTCString(),
      ...serving.headers?.(req.headers),
    };
    if (notModified(req, etag, served)) return { status: 304, headers, body: "" };
    return req.method === "HEAD" ? headOf({ status: 200, headers, body }) : { status: 200, headers, body };
  };
}

/** RFC 9110 §13.1.2 and §13.1.3: If-None-Match (weak comparison, `*`) first, else If-Modified-Since. */
function notModified(req: CoreRequest, etag: string, served: Date): boolean {
  const ifNoneMatch = req.header("if-none-match");
  if (ifNoneMatch !== null) {
    return ifNoneMatch.split(",").some((t) => {
      const tag = t.trim();
      return tag === "*" || tag.replace(/^W\//, "") === etag;
    });
  }
  const since = httpDate(req.header("if-modified-since"));
  return since !== undefined && served.getTime() <= since;
}

/** The three forms of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, RFC 850's and asctime's, all in GMT. */
const HTTP_DATES: readonly RegExp[] = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/** The time an HTTP-date names, in ms; undefined for anything else, which a recipient ignores (RFC 9110 §13.1.3). */
function httpDate(value: string | null): number | undefined {
  if (value === null || !HTTP_DATES.some((form) => form.test(value))) return undefined;
  // asctime's form names no zone, and is GMT: Date.parse would read it as local time.
  const time = Date.parse(value.endsWith("GMT") ? value : `${value} GMT`);
  return Number.isNaN(time) ? undefined : time;
}

/** base64url of the SHA-256 of the text, cut to 27 characters (160 bits). */
async function digest(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...hash))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .slice(0, 27);
}
