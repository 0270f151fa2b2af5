/**
 * Fetches an agent card (spec §8.2, §8.6.2) with an in-memory HTTP cache per
 * resolver:
 *
 *   URL        a URL whose path ends in ".json" is the card's own URL; any
 *              other is a base URL, and the card is its
 *              ".well-known/agent-card.json", relative to the base's path
 *              (https://host/agent → https://host/agent/.well-known/…)
 *   request    GET with Accept: application/json and A2A-Version (default
 *              "1.0"; a card can differ per version, so the cache is keyed
 *              by URL and version)
 *   cache      freshness from Cache-Control (card-freshness.ts): a fresh
 *              card is returned without a request; a stale one is
 *              revalidated with If-None-Match / If-Modified-Since, and a 304
 *              reuses it; no-store keeps nothing. At most 64 cards are kept,
 *              and at most MAX_CACHED_BYTES of them by the size they were
 *              served with (the oldest dropped first)
 *   timeout    timeoutMs (default 30 s) bounds a resolve, redirects and body
 *              included: a server that trickles a card cannot hold it for
 *              good
 *   redirects  followed by hand, within the card URL's origin only (at most
 *              MAX_REDIRECTS): a redirect to another origin is refused, so
 *              the request's headers (credentials among them) never go there;
 *              the result's `url` is the URL the card came from
 *   verify     an optional function run on each card a 200 brings (e.g.
 *              agentCardVerifier from @protoc-gen-a2a/runtime/card-signing);
 *              a throw refuses the card (AgentCardVerificationError), and
 *              a refused card is not cached. When it returns an object with
 *              a `card` object (agentCardVerifier does: the card as its
 *              signatures cover it), that is the result's `card`, and the
 *              card as served is `fetched`: what a caller makes clients
 *              from is then what was verified. The check takes a function
 *              so this entry stays free of jose.
 *
 * Every failure names the card URL: A2ATransportError (operation
 * "ResolveAgentCard") for a failed fetch, a status other than 200/304, a
 * body over 1 MiB, not JSON or not an object; AgentCardVerificationError for
 * a refused card.
 */
import { A2ATransportError } from "../core/a2a-error.js";
import { FifoMap } from "../core/fifo-map.js";
import { freshnessOf } from "./card-freshness.js";
import { DEFAULT_MAX_BODY } from "../core/limits.js";
import { boundedText, isRedirect } from "../core/response-body.js";
import { timedSignal } from "../core/timed-signal.js";

export interface AgentCardResolverOptions<V = undefined> {
  readonly fetch?: typeof globalThis.fetch;
  /** More request headers (e.g. authorization). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The A2A-Version header sent. Default "1.0". */
  readonly version?: string;
  /** Freshness in seconds when the response has no max-age, no-cache or no-store. Default 0. */
  readonly defaultMaxAgeSeconds?: number;
  /** Timeout of one resolve in milliseconds, its redirects and reading the body included. Default 30000. */
  readonly timeoutMs?: number;
  /**
   * Checks each fetched card; throw to refuse it. What it returns is the result's `verification`; when that has
   * a `card` object (agentCardVerifier's: the card as its signatures cover it), it is also the result's `card`.
   */
  readonly verify?: (card: Readonly<Record<string, unknown>>) => Promise<V> | V;
}

export interface ResolvedAgentCard<V = undefined> {
  /**
   * The card to use (ProtoJSON): the verification's `card` when `verify` returned one (only what the card's
   * signatures cover), else the card as served.
   */
  readonly card: Readonly<Record<string, unknown>>;
  /** The card as served, fields no signature covers included. */
  readonly fetched: Readonly<Record<string, unknown>>;
  /** The card URL fetched. */
  readonly url: string;
  /** "network": fetched now; "revalidated": a 304 confirmed the stored card; "cache": fresh, no request. */
  readonly source: "network" | "revalidated" | "cache";
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
  /** What `verify` returned for this card (undefined without `verify`). */
  readonly verification: V | undefined;
}

export interface AgentCardResolver<V = undefined> {
  resolve(url: string | URL, options?: { readonly signal?: AbortSignal }): Promise<ResolvedAgentCard<V>>;
  /** Forgets every stored card. */
  clear(): void;
}

/** A card a `verify` function refused. */
export class AgentCardVerificationError extends Error {
  override name = "AgentCardVerificationError";
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`ResolveAgentCard: the card at ${url} was refused: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
  }
}

interface Entry<V> {
  readonly resolved: ResolvedAgentCard<V>;
  readonly freshUntil: number;
  /** The size the card was served with: its text's length in UTF-8 bytes. */
  readonly bytes: number;
}

const OPERATION = "ResolveAgentCard";
const MAX_ENTRIES = 64;
/** The most bytes of cards (as served) one resolver keeps: a parsed card takes several times its text. */
const MAX_CACHED_BYTES = 8 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const utf8 = new TextEncoder();

/** The resolver's cards by version and URL, at most MAX_ENTRIES and MAX_CACHED_BYTES, the oldest dropped first. */
class CardCache<V> {
  readonly #entries = new FifoMap<string, Entry<V>>();
  #bytes = 0;

  get(key: string): Entry<V> | undefined {
    return this.#entries.get(key);
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#bytes -= entry.bytes;
    this.#entries.delete(key);
  }

  set(key: string, entry: Entry<V>): void {
    this.delete(key);
    while (
      this.#entries.size > 0 &&
      (this.#entries.size >= MAX_ENTRIES || this.#bytes + entry.bytes > MAX_CACHED_BYTES)
    ) {
      const oldest = this.#entries.oldest();
      if (oldest === undefined) break;
      this.delete(oldest.key);
    }
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
/** Redirects followed within the card URL's origin before the fetch is refused. */
const MAX_REDIRECTS = 5;

/** The card URL for a card URL or a base URL. */
export function agentCardUrl(url: string | URL): string {
  const u = new URL(url);
  if (u.pathname.endsWith(".json")) return u.href;
  if (!u.pathname.endsWith("/")) u.pathname += "/";
  return new URL(".well-known/agent-card.json", u).href;
}

/** A resolver with its own cache. */
export function createAgentCardResolver<V = undefined>(
  options: AgentCardResolverOptions<V> = {},
): AgentCardResolver<V> {
  const cache = new CardCache<V>();
  const version = options.version ?? "1.0";
  return {
    async resolve(url, call = {}) {
      const cardUrl = agentCardUrl(url);
      const key = `${version} ${cardUrl}`;
      const entry = cache.get(key);
      if (entry && Date.now() < entry.freshUntil) return { ...entry.resolved, source: "cache" };
      const deadline = timedSignal([call.signal], options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const { res, resolved, bytes } = await fetchCard(cardUrl, options, version, entry, deadline.signal).finally(() =>
        deadline.end(),
      );
      const fresh = freshnessOf(res.headers, options.defaultMaxAgeSeconds ?? 0);
      cache.delete(key);
      if (fresh.store) cache.set(key, { resolved, freshUntil: Date.now() + fresh.freshMs, bytes });
      return resolved;
    },
    clear() {
      cache.clear();
    },
  };
}

/** One card fetch with a resolver of its own (nothing kept afterwards). */
export function resolveAgentCard<V = undefined>(
  url: string | URL,
  options: AgentCardResolverOptions<V> & { readonly signal?: AbortSignal } = {},
): Promise<ResolvedAgentCard<V>> {
  return createAgentCardResolver(options).resolve(url, options.signal ? { signal: options.signal } : {});
}

/** The card at `url`, or the stored one when the server answers 304; what it was served with. */
async function fetchCard<V>(
  url: string,
  options: AgentCardResolverOptions<V>,
  version: string,
  entry: { readonly resolved: ResolvedAgentCard<V>; readonly bytes: number } | undefined,
  signal: AbortSignal | undefined,
): Promise<{ readonly res: Response; readonly resolved: ResolvedAgentCard<V>; readonly bytes: number }> {
  const { res, from } = await sendFollowing(url, options, version, entry?.resolved, signal);
  if (res.status === 304 && entry)
    return { res, resolved: revalidated(entry.resolved, res.headers), bytes: entry.bytes };
  return { res, ...(await accept(from, res, options.verify)) };
}

/** The card's response, redirects within `url`'s origin followed; `from` is the URL that answered. */
async function sendFollowing<V>(
  url: string,
  options: AgentCardResolverOptions<V>,
  version: string,
  stored: ResolvedAgentCard<V> | undefined,
  signal: AbortSignal | undefined,
): Promise<{ res: Response; from: string }> {
  let from = url;
  for (let hops = 0; ; hops++) {
    const res = await send(from, options, version, stored, signal);
    if (!isRedirect(res)) return { res, from };
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get("location");
    const next = location === null ? undefined : urlOf(location, from);
    const why =
      next === undefined
        ? "with no Location it can follow"
        : next.origin !== new URL(url).origin
          ? `to ${next.origin}, another origin than the card URL's: the request's headers do not go there`
          : hops >= MAX_REDIRECTS
            ? `after ${MAX_REDIRECTS} redirects`
            : undefined;
    if (why !== undefined || next === undefined) {
      throw failure(`GET ${from} answered ${res.status || "a redirect"} ${why}`, url, res);
    }
    from = next.href;
  }
}

function urlOf(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

async function send<V>(
  url: string,
  options: AgentCardResolverOptions<V>,
  version: string,
  stored: ResolvedAgentCard<V> | undefined,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const headers = new Headers(options.headers);
  headers.set("accept", "application/json");
  headers.set("a2a-version", version);
  if (stored?.etag) headers.set("if-none-match", stored.etag);
  if (stored?.lastModified) headers.set("if-modified-since", stored.lastModified);
  try {
    return await (options.fetch ?? globalThis.fetch)(url, {
      headers,
      redirect: "manual",
      ...(signal !== undefined ? { signal } : {}),
    });
  } catch (e) {
    throw failure(`GET ${url} failed: ${(e as Error)?.message ?? String(e)}`, url, undefined, undefined, e);
  }
}

function revalidated<V>(stored: ResolvedAgentCard<V>, headers: Headers): ResolvedAgentCard<V> {
  return {
    ...stored,
    source: "revalidated",
    etag: headers.get("etag") ?? stored.etag,
    lastModified: headers.get("last-modified") ?? stored.lastModified,
  };
}

async function accept<V>(
  url: string,
  res: Response,
  verify: AgentCardResolverOptions<V>["verify"],
): Promise<{ readonly resolved: ResolvedAgentCard<V>; readonly bytes: number }> {
  const text = await readBody(url, res);
  if (res.status !== 200) {
    throw failure(`GET ${url} answered ${res.status} ${res.statusText}`.trimEnd(), url, res, text);
  }
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch (e) {
    throw failure(`the card at ${url} is not JSON: ${(e as Error).message}`, url, res, text, e);
  }
  if (typeof card !== "object" || card === null || Array.isArray(card)) {
    throw failure(`the card at ${url} is not a JSON object`, url, res, text);
  }
  const body = card as Readonly<Record<string, unknown>>;
  let verification: V | undefined;
  if (verify) {
    try {
      verification = await verify(body);
    } catch (e) {
      throw new AgentCardVerificationError(url, e);
    }
  }
  const etag = res.headers.get("etag") ?? undefined;
  const lastModified = res.headers.get("last-modified") ?? undefined;
  const covered = coveredCard(verification) ?? body;
  const resolved: ResolvedAgentCard<V> = {
    card: covered,
    fetched: body,
    url,
    source: "network",
    etag,
    lastModified,
    verification,
  };
  return { resolved, bytes: utf8.encode(text).length };
}

/** The `card` object a verification holds (agentCardVerifier's covered card), if it holds one. */
function coveredCard(verification: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof verification !== "object" || verification === null || !Object.hasOwn(verification, "card")) return;
  const card = (verification as { readonly card: unknown }).card;
  return typeof card === "object" && card !== null && !Array.isArray(card)
    ? (card as Readonly<Record<string, unknown>>)
    : undefined;
}

/** The body as text, refused past DEFAULT_MAX_BODY bytes without reading further. */
async function readBody(url: string, res: Response): Promise<string> {
  try {
    return await boundedText(res, DEFAULT_MAX_BODY, () =>
      failure(`the card at ${url} is over ${DEFAULT_MAX_BODY} bytes`, url, res),
    );
  } catch (e) {
    if (e instanceof A2ATransportError) throw e;
    throw failure(`reading the card at ${url} failed: ${(e as Error)?.message}`, url, res, undefined, e);
  }
}

/** A transport error naming the card URL, with the answer's status (none for an opaque redirect) and headers. */
function failure(message: string, url: string, res?: Response, body?: string, cause?: unknown): A2ATransportError {
  return new A2ATransportError(`${OPERATION}: ${message}`, res?.status || undefined, body?.slice(0, 1000), {
    operation: OPERATION,
    url,
    ...(res !== undefined ? { headers: res.headers } : {}),
    ...(cause !== undefined ? { cause } : {}),
  });
}
