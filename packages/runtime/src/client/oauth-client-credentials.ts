/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) for a client's requests,
 * through oauth4webapi:
 *
 *   endpoint  the grant's own tokenUrl when given (the card is then not
 *             asked: a card can name any endpoint, and the client secret
 *             goes where it says), else the card's token URL (oauth2SecurityScheme
 *             flows.clientCredentials.tokenUrl), else the token_endpoint of
 *             the authorization server metadata at oauth2MetadataUrl
 *             (RFC 8414: https://host/.well-known/oauth-authorization-server
 *             /path) or of the OpenID Connect discovery document at
 *             openIdConnectUrl (https://issuer/.well-known/openid-configuration),
 *             the issuer the URL names checked against the document's;
 *             metadata is read once
 *   request   grant_type=client_credentials with the scopes asked for (the
 *             credential's, else the card requirement's for the scheme),
 *             `audience` and `resource` (RFC 8707) when given; the client
 *             authenticates with client_secret_basic, or client_secret_post
 *             when the server's metadata lists only that (or the credential
 *             says so)
 *   cache     one token per source, shared by concurrent calls (one request
 *             in flight); reused until `refreshBeforeMs` (30 s, at most half
 *             the token's lifetime) before it expires; kept until refused
 *             when the answer has no expires_in
 *   refused   refused(token) forgets the token a server refused (HTTP 401,
 *             gRPC UNAUTHENTICATED), so the next call fetches a new one
 *   bounds    each token or metadata request may take `timeoutMs` (30 s),
 *             and its answer is read to MAX_TOKEN_ANSWER_BYTES (1 MiB) at
 *             most: an endpoint that hangs or answers without end fails the
 *             fetch, and the calls waiting for it, instead of holding them
 *
 * Endpoints must be https unless `allowInsecureRequests` is set. With a
 * client's credentialOrigins (origin-list.ts), the secret goes to a token
 * endpoint the card names (its token URL, or its metadata's) only at one of
 * them; the grant's own tokenUrl is used wherever it is. Failures name the
 * scheme and the URL asked.
 */
import * as oauth from "oauth4webapi";
import { plainErrorChain } from "../core/error-copy.js";
import { boundedText } from "../core/response-body.js";
import type { OriginList } from "../card/origin-list.js";

/** The client credentials of one oauth2 or openIdConnect scheme. */
export interface ClientCredentialsGrant {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes to ask for; default: those the card's chosen requirement lists for the scheme. */
  readonly scopes?: readonly string[];
  /** The `audience` parameter some servers want (Auth0, Okta). */
  readonly audience?: string;
  /** The RFC 8707 resource indicator. */
  readonly resource?: string;
  /** How the client authenticates at the token endpoint. Default: from the server's metadata, else basic. */
  readonly authMethod?: "client_secret_basic" | "client_secret_post";
  /** Fetch a new token this long before the current one expires; at most half its lifetime. Default 30 000. */
  readonly refreshBeforeMs?: number;
  /** Allow http:// token and metadata URLs (local development and tests). */
  readonly allowInsecureRequests?: boolean;
  /**
   * The token endpoint to use whatever the card names. Without it the client secret goes to the endpoint the
   * card names (its token URL or metadata): set it for a card you do not trust as you trust its authorization
   * server.
   */
  readonly tokenUrl?: string;
  /** The fetch for the token endpoint and metadata. Default: globalThis.fetch. */
  readonly fetch?: typeof globalThis.fetch;
  /** The time one token or metadata request may take, answer included. Default 30 000. */
  readonly timeoutMs?: number;
}

/** Where the token endpoint comes from. */
export type TokenEndpoint =
  | { readonly tokenUrl: string }
  | { readonly metadataUrl: string; readonly kind: "oauth2" | "openIdConnect" };

const DEFAULT_REFRESH_BEFORE_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 30_000;
/** The most bytes of a token or metadata answer read. */
export const MAX_TOKEN_ANSWER_BYTES = 1 << 20;
const OIDC_SUFFIX = "/.well-known/openid-configuration";
const OAUTH_PREFIX = "/.well-known/oauth-authorization-server";

interface Cached {
  readonly token: string;
  /** Date.now() after which a new token is fetched; Infinity when the answer gave no lifetime. */
  readonly refreshAt: number;
}

/** The access tokens of one scheme, fetched with client credentials and cached. */
export class ClientCredentialsTokens {
  #cached: Cached | undefined;
  #pending: Promise<Cached> | undefined;
  #server: Promise<oauth.AuthorizationServer> | undefined;

  constructor(
    /** The card's scheme name, for errors. */
    readonly scheme: string,
    private readonly endpoint: TokenEndpoint,
    private readonly grant: ClientCredentialsGrant,
    private readonly scopes: readonly string[],
    /** Where the secret may go when the card names the endpoint (see the header); undefined: anywhere. */
    private readonly origins?: OriginList,
  ) {}

  /** A token valid for a while yet: the cached one, or a new one. */
  async token(): Promise<string> {
    const cached = this.#cached;
    if (cached && Date.now() < cached.refreshAt) return cached.token;
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = undefined;
    });
    return (await this.#pending).token;
  }

  /** Forgets `token` after a server refused it, unless a newer one replaced it already. */
  refused(token: string): void {
    if (this.#cached?.token === token) this.#cached = undefined;
  }

  async #fetch(): Promise<Cached> {
    const as = await this.#authorizationServer();
    const g = this.grant;
    const client: oauth.Client = { client_id: g.clientId };
    const method = g.authMethod ?? authMethodOf(as);
    const auth =
      method === "client_secret_post"
        ? oauth.ClientSecretPost(g.clientSecret)
        : oauth.ClientSecretBasic(g.clientSecret);
    const params = new URLSearchParams();
    const scopes = g.scopes ?? this.scopes;
    if (scopes.length > 0) params.set("scope", scopes.join(" "));
    if (g.audience) params.set("audience", g.audience);
    if (g.resource) params.set("resource", g.resource);
    const url = as.token_endpoint ?? "";
    const origins = this.grant.tokenUrl ? undefined : this.origins;
    if (origins !== undefined && !origins.allows(url, "https")) {
      const why = `the token endpoint is not at one of credentialOrigins (${origins}); the secret was not sent`;
      throw this.#failure(`client credentials token from ${url}`, new Error(why));
    }
    try {
      const response = await oauth.clientCredentialsGrantRequest(as, client, auth, params, this.#httpOptions());
      const answer = await oauth.processClientCredentialsResponse(as, client, response);
      if (answer.token_type !== "bearer") throw new Error(`token type "${answer.token_type}" is not bearer`);
      return this.#keep(answer);
    } catch (e) {
      throw this.#failure(`client credentials token from ${url}`, e);
    }
  }

  #keep(answer: oauth.TokenEndpointResponse): Cached {
    const now = Date.now();
    const lifetime = typeof answer.expires_in === "number" ? answer.expires_in * 1000 : undefined;
    const early = Math.min(this.grant.refreshBeforeMs ?? DEFAULT_REFRESH_BEFORE_MS, (lifetime ?? 0) / 2);
    const cached = {
      token: answer.access_token,
      refreshAt: lifetime === undefined ? Infinity : now + lifetime - early,
    };
    this.#cached = cached;
    return cached;
  }

  /** The token endpoint's server: from the card's token URL, else its metadata, read once (again after a failure). */
  #authorizationServer(): Promise<oauth.AuthorizationServer> {
    const e = this.endpoint;
    if ("tokenUrl" in e) return Promise.resolve({ issuer: new URL(e.tokenUrl).origin, token_endpoint: e.tokenUrl });
    this.#server ??= this.#discover(e.metadataUrl, e.kind).catch((err: unknown) => {
      this.#server = undefined;
      throw err;
    });
    return this.#server;
  }

  async #discover(metadataUrl: string, kind: "oauth2" | "openIdConnect"): Promise<oauth.AuthorizationServer> {
    try {
      const { issuer, algorithm } = issuerOf(metadataUrl, kind);
      const response = await oauth.discoveryRequest(issuer, { algorithm, ...this.#httpOptions() });
      const as = await oauth.processDiscoveryResponse(issuer, response);
      if (!as.token_endpoint) throw new Error("the metadata names no token_endpoint");
      return as;
    } catch (e) {
      throw this.#failure(`metadata from ${metadataUrl}`, e);
    }
  }

  #httpOptions() {
    const f = this.grant.fetch ?? globalThis.fetch;
    const timeoutMs = this.grant.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return {
      [oauth.allowInsecureRequests]: this.grant.allowInsecureRequests === true,
      signal: () => AbortSignal.timeout(timeoutMs),
      [oauth.customFetch]: async (url: string, init: FetchOptions) => boundedAnswer(await f(url, fetchInit(init))),
    };
  }

  #failure(what: string, e: unknown): Error {
    const why = e instanceof Error ? e.message : String(e);
    const said = `security scheme "${this.scheme}": ${what} failed: ${why}${endpointSaid(e)}`;
    return new Error(said, { cause: plainErrorChain(e) });
  }
}

/**
 * What a token endpoint's error answer said (RFC 6749 §5.2: its status, `error` and `error_description`, which
 * are no secrets), as oauth4webapi's ResponseBodyError carries it; "" for any other failure.
 */
function endpointSaid(e: unknown): string {
  if (!(e instanceof oauth.ResponseBodyError)) return "";
  const description = e.error_description ? `: ${e.error_description.slice(0, 200)}` : "";
  return ` (HTTP ${e.status}, ${e.error.slice(0, 100)}${description})`;
}

type FetchOptions = oauth.CustomFetchOptions<string, URLSearchParams | undefined>;

/** The answer with its body read to MAX_TOKEN_ANSWER_BYTES at most (past it, an error), for oauth4webapi to parse. */
async function boundedAnswer(res: Response): Promise<Response> {
  const tooLarge = () => new Error(`the answer's body is over ${MAX_TOKEN_ANSWER_BYTES} bytes`);
  const text = await boundedText(res, MAX_TOKEN_ANSWER_BYTES, tooLarge);
  const init = { status: res.status, statusText: res.statusText, headers: res.headers };
  return new Response([101, 204, 205, 304].includes(res.status) ? null : text, init);
}

/** oauth4webapi's request as fetch's init (its body undefined on a GET). */
const fetchInit = ({ body, signal, ...rest }: FetchOptions): RequestInit => ({
  ...rest,
  ...(body !== undefined ? { body } : {}),
  ...(signal ? { signal } : {}),
});

/** client_secret_post when the server lists it and not basic; else basic (RFC 8414's default). */
function authMethodOf(as: oauth.AuthorizationServer): "client_secret_basic" | "client_secret_post" {
  const listed = as.token_endpoint_auth_methods_supported;
  return listed && !listed.includes("client_secret_basic") && listed.includes("client_secret_post")
    ? "client_secret_post"
    : "client_secret_basic";
}

/** The issuer a metadata URL names, and how its well-known path is formed (OpenID Connect or RFC 8414). */
function issuerOf(
  metadataUrl: string,
  kind: "oauth2" | "openIdConnect",
): { issuer: URL; algorithm: "oidc" | "oauth2" } {
  const u = new URL(metadataUrl);
  if (u.pathname.endsWith(OIDC_SUFFIX))
    return { issuer: new URL(u.origin + u.pathname.slice(0, -OIDC_SUFFIX.length)), algorithm: "oidc" };
  if (kind === "oauth2" && (u.pathname === OAUTH_PREFIX || u.pathname.startsWith(`${OAUTH_PREFIX}/`)))
    return { issuer: new URL(u.origin + u.pathname.slice(OAUTH_PREFIX.length)), algorithm: "oauth2" };
  const expected = kind === "oauth2" ? `${OAUTH_PREFIX}[/path] or [/path]${OIDC_SUFFIX}` : `[/path]${OIDC_SUFFIX}`;
  throw new Error(`the URL's path is not ${expected}`);
}
