/**
 * How one security scheme's credential goes on a request (the server reads
 * them the same way, auth/presented.ts):
 *
 *   apiKey          a string, or a function (sync or async) called for every
 *                   request: the header, query parameter or cookie the scheme
 *                   names (a cookie's value URI-encoded, added to the request's
 *                   `cookie` header). gRPC has no query: a query key goes as
 *                   the metadata entry of its name, lowercased
 *   http            Basic: {username, password} as `Authorization: Basic
 *                   base64(user:password)` (RFC 7617, UTF-8); any other
 *                   scheme (Bearer): a token, string or function, as
 *                   `Authorization: <scheme> <token>`
 *   oauth2, openIdConnect   an access token (string or function) or client
 *                   credentials ({clientId, clientSecret}, fetched and cached
 *                   by oauth-client-credentials.ts), as `Authorization: Bearer`
 *   mutualTLS       {cert, key, ca?}: on the connection (mtls-fetch.ts); nothing
 *                   on the request
 *
 * A credential of the wrong shape for its scheme, a Basic user name with a
 * colon, an http scheme name that is no token (RFC 9110 §11.1), or an oauth2
 * scheme with neither a token URL nor a metadata URL is a TypeError naming the
 * scheme, thrown when the sender is made. A credential no header can carry (a
 * line break in it) is a TypeError naming the header, never the value.
 */
import type { A2aClientCall } from "../core/client-interceptor.js";
import type { CardScheme } from "../card/card-security.js";
import {
  ClientCredentialsTokens,
  type ClientCredentialsGrant,
  type TokenEndpoint,
} from "./oauth-client-credentials.js";
import type { MutualTlsCredential } from "./mtls-fetch.js";
import { untilAborted } from "../core/until-aborted.js";
import type { OriginList } from "../card/origin-list.js";

/** A secret sent as it is: a string, or a function returning one, called for every request. */
export type Secret = string | (() => string | Promise<string>);

/** The credentials of an http Basic scheme. */
export interface BasicCredential {
  readonly username: string;
  readonly password: string;
}

/** What a client holds for one scheme of the card; which one fits depends on the scheme's type. */
export type SchemeCredential = Secret | BasicCredential | ClientCredentialsGrant | MutualTlsCredential;

/** Sets one scheme's credential on a call; returns what forgets it when a server refuses it, if anything can. */
export interface CredentialSender {
  readonly scheme: string;
  /** Whether the credential goes in the Authorization header (two such schemes cannot go together). */
  readonly authorization: boolean;
  /** The client certificate, for a mutualTLS scheme. */
  readonly tls: MutualTlsCredential | undefined;
  apply(call: A2aClientCall): Promise<(() => void) | undefined>;
}

const isObject = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null;
const isSecret = (v: unknown): v is Secret => typeof v === "string" || typeof v === "function";
const has = (v: unknown, ...keys: string[]) => isObject(v) && keys.every((k) => typeof v[k] === "string");

/** The sender of `credential` for the scheme `name`, with the scopes the card's requirement asks for. */
export function credentialSender(
  name: string,
  scheme: CardScheme,
  credential: SchemeCredential,
  scopes: readonly string[],
  places: { readonly origins?: OriginList | undefined } = {},
): CredentialSender {
  const wrong = (shape: string) =>
    new TypeError(`credentials for security scheme "${name}" (${scheme.type}) must be ${shape}`);
  const sender = (apply: CredentialSender["apply"], authorization = true) => ({
    scheme: name,
    authorization,
    tls: undefined,
    apply,
  });
  switch (scheme.type) {
    case "apiKey":
      if (!isSecret(credential)) throw wrong("a string or a function returning one");
      return sender(async (call) => setApiKey(call, scheme, await secretOf(name, credential)), false);
    case "http":
      if (scheme.scheme.toLowerCase() === "basic") {
        if (!has(credential, "username", "password")) throw wrong("{username, password}");
        return sender(async (call) => setBasic(call, name, credential as BasicCredential));
      }
      if (!isSecret(credential)) throw wrong("a token: a string or a function returning one");
      if (!HTTP_TOKEN.test(scheme.scheme)) {
        throw new TypeError(`security scheme "${name}" names HTTP scheme ${JSON.stringify(scheme.scheme)}, no token`);
      }
      return sender(async (call) => authorize(call, httpScheme(scheme.scheme), await secretOf(name, credential)));
    case "oauth2":
    case "openIdConnect":
      if (isSecret(credential))
        return sender(async (call) => authorize(call, "Bearer", await secretOf(name, credential)));
      if (!has(credential, "clientId", "clientSecret"))
        throw wrong("an access token (a string or a function returning one) or {clientId, clientSecret}");
      return oauthSender(name, scheme, credential as ClientCredentialsGrant, scopes, places.origins);
    case "mutualTLS":
      if (!has(credential, "cert", "key")) throw wrong("{cert, key, ca?} in PEM");
      return { ...sender(async () => undefined, false), tls: credential as MutualTlsCredential };
    case "unknown":
      throw new TypeError(`security scheme "${name}" cannot be used: ${scheme.why}`);
  }
}

function oauthSender(
  name: string,
  scheme: CardScheme & { type: "oauth2" | "openIdConnect" },
  grant: ClientCredentialsGrant,
  scopes: readonly string[],
  origins: OriginList | undefined,
): CredentialSender {
  const endpoint = endpointOf(scheme, grant);
  if (!endpoint || ("metadataUrl" in endpoint && endpoint.metadataUrl === ""))
    throw new TypeError(
      `security scheme "${name}" (${scheme.type}) names no token URL (flows.clientCredentials.tokenUrl) ` +
        "nor metadata URL, so client credentials cannot be used",
    );
  const tokens = new ClientCredentialsTokens(name, endpoint, grant, scopes, origins);
  return {
    scheme: name,
    authorization: true,
    tls: undefined,
    async apply(call) {
      // The fetch is shared by the calls waiting for it: each stops waiting when its own signal aborts.
      const token = await untilAborted(tokens.token(), call.signal);
      authorize(call, "Bearer", token);
      return () => tokens.refused(token);
    },
  };
}

/** Where the tokens come from: the grant's own tokenUrl, else the card's token URL or metadata. */
function endpointOf(
  scheme: CardScheme & { type: "oauth2" | "openIdConnect" },
  grant: ClientCredentialsGrant,
): TokenEndpoint | undefined {
  if (grant.tokenUrl) return { tokenUrl: grant.tokenUrl };
  if (scheme.type === "openIdConnect") return { metadataUrl: scheme.openIdConnectUrl, kind: "openIdConnect" };
  if (scheme.tokenUrl) return { tokenUrl: scheme.tokenUrl };
  return scheme.metadataUrl ? { metadataUrl: scheme.metadataUrl, kind: "oauth2" } : undefined;
}

async function secretOf(name: string, secret: Secret): Promise<string> {
  if (secret === "") throw new TypeError(`the credential of security scheme "${name}" is an empty string`);
  const value = typeof secret === "string" ? secret : await secret();
  if (typeof value !== "string" || value === "") {
    const got = value === "" ? "an empty string" : "no string";
    throw new TypeError(`the credential function of security scheme "${name}" returned ${got}`);
  }
  return value;
}

/** An HTTP authentication scheme name (RFC 9110 §11.1: a token). */
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The Authorization scheme as registered for the common ones (RFC 6750, RFC 7617), else as the card spells it. */
const httpScheme = (scheme: string) => (scheme.toLowerCase() === "bearer" ? "Bearer" : scheme);

function authorize(call: A2aClientCall, scheme: string, token: string): undefined {
  setHeader(call, "authorization", `${scheme} ${token}`);
  return undefined;
}

/**
 * Sets a header that carries a credential. A value fetch refuses (a line break in a token) is reported by the
 * header's name only: fetch's own message quotes the value, and with it the secret.
 */
function setHeader(call: A2aClientCall, header: string, value: string): void {
  try {
    call.headers.set(header, value);
  } catch {
    throw new TypeError(`the credential cannot be sent in header ${JSON.stringify(header)}: not a valid header value`);
  }
}

function setBasic(call: A2aClientCall, name: string, c: BasicCredential): undefined {
  if (c.username.includes(":"))
    throw new TypeError(`the Basic user name of security scheme "${name}" contains a colon (RFC 7617 §2)`);
  const bytes = new TextEncoder().encode(`${c.username}:${c.password}`);
  return authorize(call, "Basic", btoa(String.fromCharCode(...bytes)));
}

function setApiKey(call: A2aClientCall, scheme: CardScheme & { type: "apiKey" }, value: string): undefined {
  if (scheme.location === "header") setHeader(call, scheme.key, value);
  else if (scheme.location === "query" && call.binding !== "GRPC") call.query.set(scheme.key, value);
  else if (scheme.location === "query") setHeader(call, scheme.key.toLowerCase(), value);
  else {
    const cookie = `${scheme.key}=${encodeURIComponent(value)}`;
    const before = call.headers.get("cookie");
    setHeader(call, "cookie", before ? `${before}; ${cookie}` : cookie);
  }
  return undefined;
}
