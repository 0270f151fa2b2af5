/**
 * Screens a webhook URL against server-side request forgery (S10 §13.2, specification.md lines 3114-3117:
 * agents SHOULD validate webhook URLs, rejecting private, localhost and link-local addresses, and implement URL
 * allowlists where appropriate). Used when a push config is created (checkUrl) and again before every delivery
 * attempt, so that a host whose DNS answer changed is judged by its new answer.
 *
 * A URL passes when, in this order:
 *   1. it parses, its scheme is http: or https:, and it carries no user name or password;
 *   2. its host is in allowHosts (allow-list.ts; then no address check follows and the connection resolves as
 *      usual), or
 *   3. its host name is not a reserved one (localhost, *.localhost: loopback, lifted by allowPrivateNetworks or
 *      a non-empty allowNetworks, its addresses then decide; metadata.google.internal, metadata.goog: cloud
 *      metadata, lifted only by naming it in allowHosts), and EVERY address it resolves to (node:dns lookup,
 *      all addresses; an IP literal is its own address) is public by ip-ranges.ts, or lies in a range
 *      allowPrivateNetworks lifts (loopback, private, link-local, CGNAT and the special-purpose ranges of
 *      ip-ranges.ts; never cloud metadata, unspecified, discard-only, multicast), or lies in a network of
 *      allowNetworks (allow-list.ts: a cloud metadata address only through an entry that is exactly it).
 * A refusal is an A2AError InvalidParamsError naming the URL (credentials and query values hidden: displayUrl)
 * and the reason. A lookup that
 * takes longer than lookupTimeoutMs (default 5 s) counts as unresolved, below; at most two run at once, a
 * host's callers sharing one (host-lookups.ts).
 *
 * A host that does not resolve (UnresolvedHostError) is ACCEPTED when a config is created, and retried by
 * delivery (push.ts), which screens every attempt anew and reports the delivery to onError when no attempt
 * resolved. Decision (issue 24): refusing it at creation protects nothing, since no request goes out before
 * an attempt has resolved the host and checked every address; but it turned a DNS outage, a name published
 * later, or a machine without DNS (issue 24: the a2a-tck push tests could not create their configs there) into
 * an InvalidParamsError for parameters that are not invalid. A host that resolves is judged at creation as at
 * delivery, so a private or metadata address is still refused at once.
 *
 * DNS rebinding: the screened addresses are handed to the HTTP request as its `lookup` (pinnedLookup in
 * push-attempt-node.ts), so the connection goes to an address that was checked, not to a second DNS answer.
 * TLS still verifies the name.
 *
 * Runtimes: node:dns is imported on first use where node:http exists (Node, Bun, Deno). Where it does not
 * (Cloudflare Workers, browsers) a host name passes steps 1-3 by its name only and the connection resolves
 * it: such a platform's fetch is the one to keep requests off private networks (Workers' does).
 */
import { A2AError } from "../core/a2a-error.js";
import { ipFamily } from "./ip-literal.js";
import { HostLookups } from "./host-lookups.js";
import { type AllowList, allowingNetwork, normalizeHost, readAllowList } from "./allow-list.js";
import { blockedRange } from "./ip-ranges.js";

export interface UrlScreenOptions {
  /**
   * Lets webhooks reach loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local and CGNAT
   * addresses, e.g. for an agent and its clients inside one network. Cloud metadata, unspecified, multicast
   * and broadcast addresses stay refused. Default false.
   */
  readonly allowPrivateNetworks?: boolean;
  /**
   * Host names or IP literals (exact, case-insensitive; IPv6 with or without brackets) exempt from the address
   * checks, e.g. ["127.0.0.1"] for tests or ["hooks.internal.example"]. Scheme and credential checks still apply.
   * An entry that is no host is a RangeError when the sender is created.
   */
  readonly allowHosts?: readonly string[];
  /**
   * Networks in CIDR notation (IPv4 or IPv6, e.g. ["10.0.0.0/8", "fd00::/8"], or single addresses) that the
   * addresses of a webhook host may lie in, whatever range the screening puts them in; a cloud metadata address
   * passes only when listed exactly (its /32 or /128). An entry that is no network is a RangeError when the
   * sender is created.
   */
  readonly allowNetworks?: readonly string[];
  /**
   * Time a host name may take to resolve, in ms. Default 5 000. Past it the name counts as unresolved (a new
   * config is accepted, a delivery attempt retried), so a name whose DNS never answers holds nothing up.
   */
  readonly lookupTimeoutMs?: number;
}

/** A URL that passed screening, with the addresses a delivery may connect to (empty: resolve as usual). */
export interface ScreenedUrl {
  readonly url: URL;
  readonly addresses: readonly ScreenedAddress[];
}

/** An address a host resolved to, as node:dns gives it. */
export interface ScreenedAddress {
  readonly address: string;
  readonly family: number;
}

export { UnresolvedHostError } from "./host-lookups.js";

const LOOPBACK_NAMES = /^(?:.+\.)?localhost$/;
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog"]);

/**
 * The URL as shown in messages, logs and spans: a user name, a password, each query value (a webhook's
 * signature or key) and the fragment are REDACTED, as OpenTelemetry asks of url.full; the query's names stay.
 * A query part without "=" (`?s3cret`) may itself be the secret: it is REDACTED whole.
 * Text that does not parse as an http: or https: URL (another scheme keeps credentials in its path) is shown only
 * when it has no "@", "?" or "#", where those could be.
 */
export function displayUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return unparsed(url);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return unparsed(url);
  if (u.username !== "") u.username = "REDACTED";
  if (u.password !== "") u.password = "REDACTED";
  if (u.search !== "") u.search = u.search.slice(1).split("&").map(redactedQueryPart).join("&");
  if (u.hash !== "") u.hash = "REDACTED";
  return u.href;
}

/** `name=value` as `name=REDACTED` (the name as written), a part without "=" as `REDACTED`, an empty one kept. */
function redactedQueryPart(part: string): string {
  const eq = part.indexOf("=");
  if (eq >= 0) return `${part.slice(0, eq)}=REDACTED`;
  return part === "" ? "" : "REDACTED";
}

const unparsed = (text: string) => (/[@?#]/.test(text) ? `(not a URL: ${text.length} characters)` : text);

/** The refusal of a webhook URL: InvalidParamsError naming the URL and the reason. */
export function refuseUrl(url: string, reason: string): A2AError {
  return new A2AError("InvalidParamsError", `push notification URL ${displayUrl(url)} refused: ${reason}`);
}

function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuseUrl(text, "not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw refuseUrl(text, `scheme ${url.protocol} is not http: or https:`);
  }
  if (url.username !== "" || url.password !== "") throw refuseUrl(text, "credentials in the URL are not allowed");
  if (url.hostname === "") throw refuseUrl(text, "no host");
  return url;
}

const DEFAULT_LOOKUP_TIMEOUT_MS = 5_000;

interface Allowed {
  readonly list: AllowList;
  readonly privateNetworks: boolean;
  /** Whether a loopback name is judged by its addresses rather than refused by its name. */
  readonly loopbackNames: boolean;
}

function judgeAddresses(text: string, host: string, addresses: readonly ScreenedAddress[], allowed: Allowed) {
  if (addresses.length === 0) throw refuseUrl(text, `host ${host} resolved to no address`);
  for (const { address } of addresses) {
    const blocked = blockedRange(address);
    if (!blocked || (blocked.privateNetwork && allowed.privateNetworks)) continue;
    if (allowingNetwork(allowed.list, address, blocked) !== undefined) continue;
    const via = address === host ? "" : ` (${host} resolves to ${address})`;
    throw refuseUrl(text, `${blocked.range} address${via}`);
  }
}

/**
 * Returns the screening function of a sender: it resolves the URL's host and resolves to the URL and its
 * checked addresses, or rejects with an A2AError InvalidParamsError or an UnresolvedHostError. Reads the allow
 * list first: a bad entry throws a RangeError naming it (allow-list.ts).
 */
export function createUrlScreen(options: UrlScreenOptions = {}): (text: string) => Promise<ScreenedUrl> {
  const list = readAllowList(options);
  const privateNetworks = options.allowPrivateNetworks === true;
  const allowed: Allowed = { list, privateNetworks, loopbackNames: privateNetworks || list.networks.length > 0 };
  const lookupTimeoutMs = options.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS;
  const lookups = new HostLookups();
  if (!(lookupTimeoutMs >= 1 && Number.isFinite(lookupTimeoutMs))) {
    throw new RangeError(`createPushSender: option lookupTimeoutMs must be a number >= 1; got ${lookupTimeoutMs}`);
  }
  return async (text) => {
    const url = parseWebhookUrl(text);
    const host = normalizeHost(url.hostname);
    if (allowed.list.hosts.has(host)) return { url, addresses: [] };
    if (LOOPBACK_NAMES.test(host) && !allowed.loopbackNames) {
      throw refuseUrl(text, `host ${host} is a loopback name`);
    }
    if (METADATA_NAMES.has(host)) throw refuseUrl(text, `host ${host} is a cloud metadata name`);
    const family = ipFamily(host);
    const addresses = family !== 0 ? [{ address: host, family }] : await lookups.addresses(host, lookupTimeoutMs);
    // No DNS on this runtime: the name was screened, its addresses cannot be; the connection resolves it.
    if (addresses === undefined) return { url, addresses: [] };
    judgeAddresses(text, host, addresses, allowed);
    return { url, addresses };
  };
}
