/**
 * A client's credentials, chosen by the agent card (spec §4.5,
 * securitySchemes and securityRequirements; card-security.ts reads every
 * form of card):
 *
 *   given     credentials by the card's scheme NAME (credential-senders.ts
 *             says which shape fits which scheme type); an empty string is
 *             no credential (as `apiKey: process.env.KEY ?? ""` gives)
 *   choice    the first of the card's requirements (an OR of ANDs) for whose
 *             every scheme the client holds a credential; an empty
 *             requirement (authentication optional) needs none and comes
 *             last, wherever the card lists it: a client given credentials
 *             the card accepts sends them, else nothing. A card that lists no requirements
 *             requires nothing: the first declared scheme the client holds a
 *             credential for is sent, else nothing
 *   none met  NoCredentialsError, before any request, naming the sets the
 *             card accepts and the schemes credentials were given for
 *   sending   an interceptor sets every chosen scheme's credential on every
 *             request (on every attempt: a retry gets a fresh token); a
 *             mutualTLS scheme's certificate is returned as `tls`, for the
 *             client's fetch or gRPC transport (mtls-fetch.ts)
 *   refused   after an answer of HTTP 401, gRPC UNAUTHENTICATED or
 *             UnauthenticatedError, a request whose credentials include a
 *             fetched token (client credentials) is sent once more with a new
 *             token; other refusals reach the caller
 *
 * Without a card, credentialsInterceptor sends the credentials of the given
 * schemes (all of them) on a client made by createJsonRpcClient,
 * createRestClient or createGrpcClient.
 */
import { A2AError, A2ATransportError } from "../core/a2a-error.js";
import { readCardSecurity, readSchemes, type CardRequirement, type CardScheme } from "../card/card-security.js";
import type { ClientInterceptor } from "../core/client-interceptor.js";
import { credentialSender, type CredentialSender, type SchemeCredential } from "./credential-senders.js";
import type { MutualTlsCredential } from "./mtls-fetch.js";
import { OriginList } from "../card/origin-list.js";

/** Credentials by the name of the card's security scheme. */
export type Credentials = Readonly<Record<string, SchemeCredential>>;

/** The credentials chosen for a card. */
export interface CardCredentials {
  /**
   * Sets them on every request; put it last (innermost) among a client's interceptors. Undefined when nothing
   * goes on requests (no scheme chosen, or mutual TLS only).
   */
  readonly interceptor: ClientInterceptor | undefined;
  /** The schemes of the requirement chosen, in the card's order; empty when nothing is sent. */
  readonly schemes: readonly string[];
  /** The client certificate, when a mutualTLS scheme was chosen. */
  readonly tls: MutualTlsCredential | undefined;
}

/** The card's requirements cannot be met with the credentials given. */
export class NoCredentialsError extends Error {
  override name = "NoCredentialsError";
  constructor(
    /** The sets of schemes the card accepts, in its order. */
    readonly accepted: readonly (readonly string[])[],
    /** The schemes credentials were given for. */
    readonly given: readonly string[],
    notes: readonly string[] = [],
  ) {
    const sets = accepted.map((s) => `[${s.join(", ")}]`).join(" or ");
    const held = given.length > 0 ? `credentials were given for [${given.join(", ")}]` : "no credentials were given";
    super(`the card accepts ${sets}; ${held}${notes.map((n) => `; ${n}`).join("")}`);
  }
}

/** Where credentials may go; the client's option credentialOrigins (client-for-card.ts). */
export interface CredentialPlaces {
  /**
   * The only origins (http: or https:, e.g. "https://id.example") a client secret goes to when a card names its
   * token endpoint. Default: any. A TypeError names an entry that is no origin.
   */
  readonly origins?: readonly string[] | undefined;
}

/** The credentials to send to the agent of `card`, or NoCredentialsError. */
export function credentialsForCard(
  card: unknown,
  credentials: Credentials = {},
  places: CredentialPlaces = {},
): CardCredentials {
  const { schemes, requirements } = readCardSecurity(card);
  const holding = held(credentials);
  const origins = places.origins === undefined ? undefined : new OriginList(places.origins);
  // Own names only: a card's scheme named "__proto__" or "toString" is none the caller holds.
  const usable = (name: string) => Object.hasOwn(holding, name) && (schemes.get(name)?.type ?? "unknown") !== "unknown";
  const candidates: CardRequirement[] =
    requirements.length > 0 ? [...requirements] : [...schemes.keys()].map((n) => new Map([[n, []]]));
  // An empty requirement last: a client holding credentials is who it is, not anonymous (auth/authenticate.ts).
  const ordered = [...candidates.filter((r) => r.size > 0), ...candidates.filter((r) => r.size === 0)];
  const chosen = ordered.find((r) => [...r.keys()].every(usable));
  if (!chosen) {
    if (requirements.length === 0) return sending([]);
    throw new NoCredentialsError(
      requirements.map((r) => [...r.keys()]),
      Object.keys(holding),
      unreadable(requirements, schemes),
    );
  }
  return sending(
    [...chosen].map(([name, scopes]) =>
      credentialSender(name, schemes.get(name)!, holding[name]!, scopes, { origins }),
    ),
  );
}

/**
 * An interceptor sending `credentials` for the schemes of `securitySchemes` (a card's map, in any card form,
 * e.g. `{ key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } } }`): every scheme named in
 * both. A mutualTLS scheme is not sent this way: give the client mtlsFetch(tls) or a transport with the
 * certificate. It trusts the schemes it is given: a token URL in them gets a client secret, wherever it is.
 */
export function credentialsInterceptor(securitySchemes: unknown, credentials: Credentials): ClientInterceptor {
  const schemes = readSchemes(securitySchemes, { trusted: true });
  const senders = Object.entries(held(credentials)).map(([name, credential]) => {
    const scheme = schemes.get(name);
    if (!scheme) throw new TypeError(`credentials name security scheme "${name}", which securitySchemes lacks`);
    return credentialSender(name, scheme, credential, []);
  });
  return sending(senders).interceptor ?? ((next) => next);
}

/** The credentials actually held: without the schemes given an empty string (or undefined). */
function held(credentials: Credentials): Credentials {
  return Object.fromEntries(Object.entries(credentials).filter(([, c]) => c !== undefined && c !== ""));
}

/** The interceptor setting what `senders` send, with one retry after a refused fetched token. */
function sending(senders: readonly CredentialSender[]): CardCredentials {
  const authorizing = senders.filter((s) => s.authorization).map((s) => s.scheme);
  if (authorizing.length > 1)
    throw new TypeError(`security schemes ${authorizing.join(" and ")} would all need the Authorization header`);
  const interceptor: ClientInterceptor = (next) => async (call) => {
    const attempt = async () => {
      const sent = { ...call, headers: new Headers(call.headers), query: new URLSearchParams(call.query) };
      const forget: (() => void)[] = [];
      for (const s of senders) {
        const f = await s.apply(sent);
        if (f) forget.push(f);
      }
      return { forget, result: next(sent) };
    };
    const first = await attempt();
    try {
      return await first.result;
    } catch (e) {
      if (first.forget.length === 0 || !refusesCredentials(e)) throw e;
      for (const f of first.forget) f();
      return await (await attempt()).result;
    }
  };
  return {
    interceptor: senders.some((s) => !s.tls) ? interceptor : undefined,
    schemes: senders.map((s) => s.scheme),
    tls: senders.find((s) => s.tls)?.tls,
  };
}

/** Whether an error says the request's credentials were not accepted (HTTP 401, gRPC UNAUTHENTICATED). */
export function refusesCredentials(e: unknown): boolean {
  if (e instanceof A2AError) return e.type === "UnauthenticatedError";
  return e instanceof A2ATransportError && (e.status === 401 || e.grpcStatus === "UNAUTHENTICATED");
}

/** Why schemes the requirements name cannot be used: undeclared, or of a kind this client cannot read. */
function unreadable(requirements: readonly CardRequirement[], schemes: ReadonlyMap<string, CardScheme>): string[] {
  const names = new Set(requirements.flatMap((r) => [...r.keys()]));
  return [...names].flatMap((n) => {
    const s = schemes.get(n);
    if (!s) return [`scheme "${n}" is not in securitySchemes`];
    return s.type === "unknown" ? [`scheme "${n}": ${s.why}`] : [];
  });
}
