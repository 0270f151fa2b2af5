/**
 * Authentication from the agent card: an interceptor (interceptor.ts) that
 * admits a call only when it meets one of the card's security requirements
 * (card-security.ts, which clients read too), with one verifier per declared scheme
 * (auth/verifiers.ts). Spec v1.0 §7.4, §3.3.2, §13.1.
 *
 *   start     every scheme the card declares needs a verifier with the member
 *             its type reads, every scheme a requirement names must be
 *             declared, and of a type this runtime reads; else authenticate
 *             throws AuthSetupError, one line naming the scheme, so the
 *             server does not start
 *   each call requirements are tried in card order (an OR of ANDs); a scheme
 *             is verified once per call; a requirement holds when every scheme
 *             in it presents a valid credential granting the scopes it lists.
 *             An empty requirement (authentication optional) comes last,
 *             wherever the card lists it, and admits only a call that presents
 *             no credential for any scheme the requirements name: a caller
 *             who presents one is who it says or is refused, never admitted
 *             anonymous (where all callers without a principal share one
 *             owner). A card without requirements authenticates nothing
 *   admitted  the principal (the first scheme's identity, the scopes of all)
 *             is set in the call's values (principalKey): HandlerContext and
 *             the executor's RequestContext read it
 *   refused   valid credentials lacking a requirement's scopes:
 *             PermissionDeniedError naming the missing scopes (403,
 *             PERMISSION_DENIED); anything else: UnauthenticatedError (401,
 *             UNAUTHENTICATED) saying which schemes the card accepts, with a
 *             WWW-Authenticate challenge per scheme (RFC 9110 §11.6.1; Bearer
 *             with error="invalid_token" or "insufficient_scope", RFC 6750 §3)
 *
 * The agent card itself is served before any interceptor runs, so card
 * requests are never authenticated. Errors: override entry access-errors.
 */
import { A2AError } from "../core/a2a-error.js";
import type { A2aCall, A2aResult, Interceptor } from "../core/interceptor.js";
import { principalKey, type Principal } from "../core/principal.js";
import { presentedFor, type Presented } from "./presented.js";
import { type CardRequirement, type CardScheme, readCardSecurity } from "../card/card-security.js";
import type { Identity, SchemeVerifier } from "./verifiers.js";

export interface AuthenticateOptions {
  /** The agent card: the JSON it is served as (v1.0 ProtoJSON or v0.3 a2a.json), or the v1.0 message. */
  readonly card: unknown;
  /** One verifier per scheme the card declares, by scheme name. */
  readonly verifiers: Readonly<Record<string, SchemeVerifier>>;
  /** The realm of the challenges. Default "a2a". */
  readonly realm?: string;
}

/** A card and verifiers that do not fit: the server must not start. */
export class AuthSetupError extends Error {
  override name = "AuthSetupError";
}

/** A declared scheme this runtime reads, with its name. */
type SecurityScheme = Exclude<CardScheme, { type: "unknown" }> & { readonly name: string };
type SecurityRequirement = CardRequirement;

/** The card's schemes and requirements, or AuthSetupError naming what the server cannot enforce. */
function serverSecurity(card: unknown): {
  schemes: ReadonlyMap<string, SecurityScheme>;
  requirements: readonly SecurityRequirement[];
} {
  const read = readCardSecurity(card, { trusted: true });
  const schemes = new Map<string, SecurityScheme>();
  for (const [name, scheme] of read.schemes) {
    if (scheme.type === "unknown") {
      throw new AuthSetupError(`authenticate: agent card securitySchemes.${name}: ${scheme.why}`);
    }
    schemes.set(name, { ...scheme, name });
  }
  for (const [i, requirement] of read.requirements.entries()) {
    for (const name of requirement.keys()) {
      if (!schemes.has(name)) {
        throw new AuthSetupError(
          `authenticate: agent card security requirement ${i} names scheme "${name}", which securitySchemes lacks`,
        );
      }
    }
  }
  return { schemes, requirements: read.requirements };
}

type Outcome =
  | { readonly kind: "absent" }
  | { readonly kind: "invalid"; readonly why: string }
  | { readonly kind: "valid"; readonly identity: Identity };

/** The member a verifier of `scheme` must have. */
function memberFor(scheme: SecurityScheme): "apiKey" | "bearer" | "basic" | "authorization" | "certificate" {
  if (scheme.type === "apiKey") return "apiKey";
  if (scheme.type === "mutualTLS") return "certificate";
  if (scheme.type !== "http") return "bearer";
  const lower = scheme.scheme.toLowerCase();
  return lower === "bearer" ? "bearer" : lower === "basic" ? "basic" : "authorization";
}

/** The interceptor that authenticates every call against the card; throws AuthSetupError at once on a misfit. */
export function authenticate(options: AuthenticateOptions): Interceptor {
  const security = serverSecurity(options.card);
  for (const scheme of security.schemes.values()) {
    const verifier = options.verifiers[scheme.name] as Record<string, unknown> | undefined;
    const member = memberFor(scheme);
    if (typeof verifier?.[member] !== "function") {
      throw new AuthSetupError(
        `authenticate: the agent card declares security scheme "${scheme.name}" (${describe(scheme)}) ` +
          `but no verifier with ${member}() is given for it`,
      );
    }
  }
  const requirements = security.requirements;
  if (requirements.length === 0) return (next) => next;
  const challenges = challengeSet(security.schemes, requirements, options.realm ?? "a2a");
  const accepted = requirements.map((r) => [...r.keys()].join(" + ") || "(none)").join(" or ");
  const names = [...security.schemes.keys()];
  const compiled: Requirement[] = requirements.map((r) =>
    [...r].map(([name, scopes]) => ({ name, index: names.indexOf(name), scopes })),
  );
  const required = [...new Set(requirements.flatMap((r) => [...r.keys()]))].map((n) => security.schemes.get(n)!);
  return (next) => (call) => {
    const outcomes: (Maybe<Outcome> | undefined)[] = new Array(names.length);
    const outcomeOf = (entry: RequirementEntry): Maybe<Outcome> =>
      (outcomes[entry.index] ??= verify(security.schemes.get(entry.name)!, options.verifiers[entry.name]!, call));
    const admit = (verdict: Verdict): Promise<A2aResult> => {
      if (verdict.kind !== "met") return Promise.reject(refusal(verdict));
      if (verdict.principal) call.context.values.set(principalKey, verdict.principal);
      return next(call);
    };
    const presentedSchemes = () =>
      required.filter((scheme) => presentedFor(scheme, call.context) !== undefined).map((scheme) => scheme.name);
    const verdict = firstMet(compiled, outcomeOf, presentedSchemes);
    return verdict instanceof Promise ? verdict.then(admit) : admit(verdict);
  };

  /** The error refusing a call no requirement admits. */
  function refusal(verdict: Exclude<Verdict, { kind: "met" }>): A2AError {
    if (verdict.kind === "scopes") {
      return new A2AError("PermissionDeniedError", `Permission denied: missing scope ${verdict.missing.join(", ")}`, {
        headers: { "www-authenticate": challenges(new Map(), verdict.missing) },
      });
    }
    const invalid = verdict.invalid;
    const why =
      invalid.length > 0
        ? `invalid credentials for ${invalid.join(", ")}`
        : verdict.presented.length > 0
          ? `credentials for ${verdict.presented.join(", ")} that meet no requirement`
          : "no credentials";
    return new A2AError("UnauthenticatedError", `Authentication required: ${why}; the agent card accepts ${accepted}`, {
      headers: { "www-authenticate": challenges(new Map(invalid.map((n) => [n, true])), []) },
    });
  }
}

/**
 * A value now or later. A call whose verifiers answer at once (an API key table, a remembered token) is decided
 * without a promise per step; one that waits continues from where it waited.
 */
type Maybe<T> = T | Promise<T>;
const settle = <T, U>(value: Maybe<T>, then: (t: T) => Maybe<U>): Maybe<U> =>
  value instanceof Promise ? value.then(then) : then(value);

interface RequirementEntry {
  readonly name: string;
  /** The scheme's place in the card's securitySchemes, for the per-call outcomes. */
  readonly index: number;
  readonly scopes: readonly string[];
}
type Requirement = readonly RequirementEntry[];

type Verdict =
  | { readonly kind: "met"; readonly principal: Principal | undefined }
  | { readonly kind: "scopes"; readonly missing: readonly string[] }
  | { readonly kind: "refused"; readonly invalid: readonly string[]; readonly presented: readonly string[] };

/** Why requirements failed, so far: schemes with invalid credentials, the first missing scopes. */
interface Tally {
  readonly invalid: string[];
  missing: readonly string[] | undefined;
}

/**
 * The first non-empty requirement every scheme of which holds; else, when the card has an empty requirement and
 * the call presents no credential (`presentedSchemes`), admission without a principal; else why none held.
 */
function firstMet(
  requirements: readonly Requirement[],
  outcomeOf: (e: RequirementEntry) => Maybe<Outcome>,
  presentedSchemes: () => readonly string[],
) {
  const tally: Tally = { invalid: [], missing: undefined };
  const guarded = requirements.filter((r) => r.length > 0);
  const optional = guarded.length < requirements.length;
  const from = (r: number): Maybe<Verdict> => {
    for (; r < guarded.length; r++) {
      const held = holds(guarded[r]!, outcomeOf, tally);
      if (held instanceof Promise) {
        const next = r + 1;
        return held.then((h) => (h === false ? from(next) : { kind: "met", principal: h }));
      }
      if (held !== false) return { kind: "met", principal: held };
    }
    const presented = presentedSchemes();
    if (optional && presented.length === 0) return { kind: "met", principal: undefined };
    if (tally.missing) return { kind: "scopes", missing: tally.missing };
    return { kind: "refused", invalid: [...new Set(tally.invalid)], presented };
  };
  return from(0);
}

/** The principal when every scheme of the requirement holds (undefined: an empty one), else false. */
function holds(
  requirement: Requirement,
  outcomeOf: (e: RequirementEntry) => Maybe<Outcome>,
  tally: Tally,
): Maybe<Principal | undefined | false> {
  const held: [string, Identity][] = [];
  const take = (entry: RequirementEntry, outcome: Outcome): boolean => {
    if (outcome.kind !== "valid") {
      if (outcome.kind === "invalid") tally.invalid.push(entry.name);
      return false;
    }
    const lacking = entry.scopes.filter((s) => !outcome.identity.scopes?.includes(s));
    if (lacking.length > 0) {
      tally.missing ??= lacking;
      return false;
    }
    held.push([entry.name, outcome.identity]);
    return true;
  };
  const from = (i: number): Maybe<Principal | undefined | false> => {
    for (; i < requirement.length; i++) {
      const entry = requirement[i]!;
      const outcome = outcomeOf(entry);
      if (outcome instanceof Promise) {
        const next = i + 1;
        return outcome.then((o) => (take(entry, o) ? from(next) : false));
      }
      if (!take(entry, outcome)) return false;
    }
    return principalOf(held);
  };
  return from(0);
}

function principalOf(held: readonly [string, Identity][]): Principal | undefined {
  const first = held[0];
  if (!first) return undefined;
  const scopes = held.length === 1 ? (first[1].scopes ?? []) : [...new Set(held.flatMap(([, i]) => i.scopes ?? []))];
  return { id: first[1].id, scheme: first[0], scopes, claims: first[1].claims ?? {} };
}

const ABSENT: Outcome = { kind: "absent" };

function verify(scheme: SecurityScheme, verifier: SchemeVerifier, call: A2aCall): Maybe<Outcome> {
  const presented = presentedFor(scheme, call.context);
  if (!presented) return ABSENT;
  if (presented.kind === "malformed") return { kind: "invalid", why: presented.why };
  return settle(check(verifier, presented, call), (identity): Outcome => {
    if (!identity) return { kind: "invalid", why: `${scheme.name}: not a valid credential` };
    if (typeof identity.id !== "string" || identity.id === "") {
      throw new Error(`authenticate: the verifier of scheme "${scheme.name}" returned an identity without an id`);
    }
    return { kind: "valid", identity };
  });
}

/** Calls the verifier's member for what was presented (the start check made sure it has it). */
function check(
  verifier: SchemeVerifier,
  presented: Exclude<Presented, { kind: "malformed" }>,
  call: A2aCall,
): Identity | undefined | Promise<Identity | undefined> {
  if (presented.kind === "apiKey" && "apiKey" in verifier) return verifier.apiKey(presented.key, call);
  if (presented.kind === "bearer" && "bearer" in verifier) return verifier.bearer(presented.token, call);
  if (presented.kind === "basic" && "basic" in verifier) return verifier.basic(presented, call);
  if (presented.kind === "authorization" && "authorization" in verifier) {
    return verifier.authorization(presented.credentials, call);
  }
  if (presented.kind === "certificate" && "certificate" in verifier) {
    return verifier.certificate(presented.certificate, call);
  }
  return undefined;
}

function describe(scheme: SecurityScheme): string {
  if (scheme.type === "apiKey") return `API key in ${scheme.location} ${scheme.key}`;
  if (scheme.type === "http") return `HTTP ${scheme.scheme}`;
  return scheme.type === "mutualTLS" ? "mutual TLS" : scheme.type === "oauth2" ? "OAuth 2.0" : "OpenID Connect";
}

const quoted = (v: string) => `"${v.replace(/["\\]/g, "\\$&")}"`;

/**
 * The WWW-Authenticate value: one challenge per scheme the requirements name, in card order, each once. Given the
 * schemes whose credentials were invalid, and the missing scopes of a 403.
 */
function challengeSet(
  schemes: ReadonlyMap<string, SecurityScheme>,
  requirements: readonly SecurityRequirement[],
  realm: string,
): (invalid: ReadonlyMap<string, true>, missingScopes: readonly string[]) => string {
  const names = [...new Set(requirements.flatMap((r) => [...r.keys()]))];
  const r = `realm=${quoted(realm)}`;
  return (invalid, missingScopes) => {
    const out = new Set<string>();
    for (const name of names) {
      const scheme = schemes.get(name)!;
      const member = memberFor(scheme);
      if (member === "bearer") {
        const error = missingScopes.length
          ? `, error="insufficient_scope", scope=${quoted(missingScopes.join(" "))}`
          : invalid.has(name)
            ? ', error="invalid_token"'
            : "";
        out.add(`Bearer ${r}${error}`);
      } else if (member === "basic") out.add(`Basic ${r}, charset="UTF-8"`);
      else if (member === "authorization" && scheme.type === "http") out.add(`${scheme.scheme} ${r}`);
      else if (scheme.type === "apiKey")
        out.add(`ApiKey ${r}, in=${quoted(scheme.location)}, name=${quoted(scheme.key)}`);
      else out.add(`MutualTLS ${r}`);
    }
    return [...out].join(", ");
  };
}
