/**
 * The verifier of OAuth 2.0 and OpenID Connect bearer tokens that are JWT
 * access tokens (RFC 9068), with `jose`:
 *
 *   keys       the issuer's JWKS, found through its discovery document
 *              (`<issuer>/.well-known/openid-configuration`, or
 *              `discoveryUrl`, or `jwksUri` given outright); the document
 *              must name the same issuer. Read when a token first needs them,
 *              after it was parsed (text that is no JWS costs no fetch); jose
 *              refetches the JWKS when a token names a key id it does not hold
 *              (key rotation), at most every `jwksCooldownMs` (default 30 s, so
 *              tokens naming made-up key ids cannot make it fetch the JWKS on
 *              every call). A read that failed (discovery document or JWKS) is
 *              remembered for `keyRetryMs` (default 5 s): calls meanwhile make
 *              no fetch, so callers cannot make the server fetch once per call
 *              while the issuer is down. They fail with it, except while a key
 *              set read before is still fresh (jose's 10 minutes): that set
 *              answers the key ids it holds; one it lacks is the token's fault
 *              while jose would not refetch either (jwksCooldownMs), else the
 *              failure stands (a key just rotated in is no token's fault)
 *   checks     signature with one of `algorithms` (never `none`), `iss`,
 *              `aud` (one of `audience`), `exp` (required: RFC 9068 §2.2 makes
 *              it REQUIRED in access tokens) and `nbf` with `clockToleranceSec`
 *              of skew (default 30), and `typ` when `requireTyp` is set
 *   identity   id: the `sub` claim (else, when the token has no `sub`,
 *              `client_id`; a `sub` that is no string, null included, makes
 *              the token invalid); scopes: the `scope` claim split on spaces (else the
 *              `scp` array); claims: the payload
 *   crit       a token whose header names extensions (`crit`) is not valid:
 *              this verifier understands none (RFC 7515 §4.1.11)
 *   cache      a token that passed is remembered (by its text, at most
 *              `cache.maxEntries`, default 1000, the oldest dropped first) for
 *              `cache.maxAgeMs` (default 60 s) or until its `exp`, whichever
 *              comes first, so a client sending one token per call costs one
 *              signature check a minute. A key removed from the JWKS so stops
 *              admitting its tokens within maxAgeMs. `cache: false`: none
 *
 * A token that fails a check is not valid (UnauthenticatedError). A discovery
 * document or JWKS that cannot be read (a refused connection, a timeout, an
 * answer other than 200, a key set or key jose cannot read) is a server
 * fault: the call is InternalError and onError hears which URL failed.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { FifoMap } from "../core/fifo-map.js";
import type { BearerVerifier, Identity } from "./verifiers.js";

export interface JwtBearerOptions {
  /** The issuer, exactly as tokens name it in `iss`. */
  readonly issuer: string;
  /** The audience (or audiences) a token must name in `aud`. */
  readonly audience: string | readonly string[];
  /** The discovery document. Default: `<issuer>/.well-known/openid-configuration`. */
  readonly discoveryUrl?: string;
  /** The JWKS, when it is not to be found through discovery. */
  readonly jwksUri?: string;
  /** Accepted signature algorithms. Default: RS256, PS256, ES256, EdDSA. */
  readonly algorithms?: readonly string[];
  /** Seconds of clock skew allowed on exp and nbf. Default 30. */
  readonly clockToleranceSec?: number;
  /** The `typ` header a token must carry, e.g. "at+jwt" (RFC 9068). Default: not checked. */
  readonly requireTyp?: string;
  /** The least time between two JWKS fetches for an unknown key id, in milliseconds. Default 30000. */
  readonly jwksCooldownMs?: number;
  /** How long a failed read of the discovery document or JWKS is remembered, in milliseconds. Default 5000. */
  readonly keyRetryMs?: number;
  /** How tokens that passed are remembered (see the header); false: every call checks its token. */
  readonly cache?: false | { readonly maxEntries?: number; readonly maxAgeMs?: number };
}

const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"];
const DEFAULT_KEY_RETRY_MS = 5000;

/** A verifier for the card's oauth2 or openIdConnect scheme (or HTTP Bearer) that reads JWT access tokens. */
export function jwtBearer(options: JwtBearerOptions): BearerVerifier {
  const keys = issuerKeys(options);
  const cache = options.cache === false ? undefined : new TokenCache(options.cache ?? {});
  return {
    async bearer(token) {
      const remembered = cache?.get(token);
      if (remembered) return remembered;
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: typeof options.audience === "string" ? options.audience : [...options.audience],
          algorithms: [...(options.algorithms ?? DEFAULT_ALGORITHMS)],
          clockTolerance: options.clockToleranceSec ?? 30,
          requiredClaims: ["exp"],
          ...(options.requireTyp ? { typ: options.requireTyp } : {}),
        });
        const identity = identityOf(payload);
        if (identity && cache) cache.set(token, identity, payload.exp);
        return identity;
      } catch (e) {
        if (tokenFault(e, token)) return undefined;
        throw e;
      }
    },
  };
}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>;

/** A failed read of the keys, until when it stands, and the key set read before it, if any. */
interface FailedRead {
  readonly error: unknown;
  readonly untilMs: number;
  readonly remote: RemoteKeys | undefined;
  readonly held: JWTVerifyGetKey | undefined;
}

/**
 * A call while a failed read stands: the set read before answers while jose still counts it fresh; a key id it
 * lacks is the token's fault only while jose would not refetch either (cooling down), else the failure stands.
 */
async function whileFailed(failed: FailedRead, ...args: Parameters<JWTVerifyGetKey>) {
  const { remote, held } = failed;
  if (!remote?.fresh || !held) throw failed.error;
  try {
    return await held(...args);
  } catch (e) {
    if (e instanceof errors.JWKSNoMatchingKey && !remote.coolingDown) throw failed.error;
    throw e;
  }
}

/**
 * The issuer's keys as jwtVerify asks for them, once it has parsed a token (see the header): the key set is
 * made on first use; a read that fails is remembered for keyRetryMs, a key id the set lacks is the token's.
 */
function issuerKeys(options: JwtBearerOptions): JWTVerifyGetKey {
  const cooldown = options.jwksCooldownMs === undefined ? {} : { cooldownDuration: options.jwksCooldownMs };
  const retryMs = options.keyRetryMs ?? DEFAULT_KEY_RETRY_MS;
  let set: Promise<RemoteKeys> | undefined;
  let failed: FailedRead | undefined;
  const fail = (error: unknown, remote?: RemoteKeys) => {
    // A set read before and still fresh keeps answering the key ids it holds; a refetch for one that it
    // lacks (an unknown kid: any caller can name one) failed, and must not fail the others.
    const jwks = remote?.fresh ? remote.jwks() : undefined;
    failed = { error, untilMs: Date.now() + retryMs, remote, held: jwks ? createLocalJWKSet(jwks) : undefined };
    return error;
  };
  return async (header, token) => {
    if (failed && Date.now() < failed.untilMs) return whileFailed(failed, header, token);
    failed = undefined;
    if (set === undefined) set = jwksUrl(options).then((url) => createRemoteJWKSet(url, cooldown));
    const made = set;
    let keys: RemoteKeys;
    try {
      keys = await made;
    } catch (e) {
      // The discovery document is read again once keyRetryMs has passed.
      if (set === made) set = undefined;
      throw fail(e);
    }
    try {
      return await keys(header, token);
    } catch (e) {
      if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) throw e;
      throw fail(e, keys);
    }
  };
}

/** Tokens that passed, until min(exp, maxAgeMs after the check); the oldest dropped past maxEntries. */
class TokenCache {
  readonly #entries = new FifoMap<string, { readonly identity: Identity; readonly untilMs: number }>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;

  constructor(options: { readonly maxEntries?: number; readonly maxAgeMs?: number }) {
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#maxAgeMs = options.maxAgeMs ?? 60_000;
  }

  get(token: string): Identity | undefined {
    const entry = this.#entries.get(token);
    if (!entry) return undefined;
    if (Date.now() < entry.untilMs) return entry.identity;
    this.#entries.delete(token);
    return undefined;
  }

  set(token: string, identity: Identity, expSec: number | undefined): void {
    if (this.#maxEntries <= 0) return;
    const untilMs = Math.min(Date.now() + this.#maxAgeMs, expSec === undefined ? Infinity : expSec * 1000);
    if (!this.#entries.has(token) && this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.oldest();
      if (oldest !== undefined) this.#entries.delete(oldest.key);
    }
    this.#entries.set(token, { identity, untilMs });
  }
}

/** The failures a token causes; any other (the JWKS cannot be read or used) is the server's. */
const TOKEN_FAULTS = [
  errors.JWTClaimValidationFailed,
  errors.JWTExpired,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JOSEAlgNotAllowed,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
];

/** Whether the failure is the token's: a failed check, or a `crit` extension no verifier here understands. */
function tokenFault(e: unknown, token: string): boolean {
  if (TOKEN_FAULTS.some((fault) => e instanceof fault)) return true;
  if (!(e instanceof errors.JOSENotSupported)) return false;
  try {
    return decodeProtectedHeader(token).crit !== undefined;
  } catch {
    return true;
  }
}

function identityOf(payload: JWTPayload): Identity | undefined {
  // client_id only for a token without sub: a sub that is no string makes the token no one's.
  const id = "sub" in payload ? payload.sub : payload["client_id"];
  if (typeof id !== "string" || id === "") return undefined;
  const scope = payload["scope"];
  const scp = payload["scp"];
  const scopes =
    typeof scope === "string"
      ? scope.split(" ").filter((s) => s !== "")
      : Array.isArray(scp)
        ? scp.filter((s): s is string => typeof s === "string")
        : [];
  return { id, scopes, claims: payload };
}

/** The JWKS URL: given, or from the discovery document, which must name the issuer. */
async function jwksUrl(options: JwtBearerOptions): Promise<URL> {
  if (options.jwksUri) return new URL(options.jwksUri);
  const url = options.discoveryUrl ?? `${options.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  let doc: unknown;
  try {
    const res = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    doc = await res.json();
  } catch (e) {
    throw new Error(`jwtBearer: reading the discovery document ${url} failed: ${(e as Error).message}`);
  }
  const fields = (typeof doc === "object" && doc !== null ? doc : {}) as Record<string, unknown>;
  if (fields["issuer"] !== options.issuer) {
    throw new Error(
      `jwtBearer: the discovery document ${url} names issuer ${String(fields["issuer"])}, not ${options.issuer}`,
    );
  }
  if (typeof fields["jwks_uri"] !== "string")
    throw new Error(`jwtBearer: the discovery document ${url} has no jwks_uri`);
  return new URL(fields["jwks_uri"]);
}
