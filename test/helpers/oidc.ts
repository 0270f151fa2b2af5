/**
 * A real OpenID Connect provider for auth tests: `oidc-provider` (the certified
 * Node implementation) runs in-process on 127.0.0.1 with a free port, and the
 * tests talk to it over HTTP as a client or a resource server would.
 *
 *   grant      client credentials only (no interactions, no users); each client
 *              is one principal, registered with client_secret_basic or
 *              client_secret_post (oidc-provider takes either from both)
 *   tokens     JWT access tokens (`typ: at+jwt`), for one resource indicator
 *              (RFC 8707): `resource` picks the audience, "https://agent.test/a2a"
 *              unless asked; the `scope` claim holds the requested scopes the
 *              client may have on that resource (all of them when none asked)
 *   keys       one signing key, generated here; rotateKeys() switches to a new
 *              one (new kid), the JWKS serving the new and the previous key, or
 *              only the new one, so a verifier's JWKS refresh can be tested.
 *              The provider is rebuilt behind the same server, issuer and port
 *   hostile    hostileToken(kind) makes the tokens a verifier must refuse:
 *              expired, not yet valid, wrong audience, wrong issuer, `alg: none`,
 *              signature stripped, tampered payload, unknown key, same kid but
 *              another key, HS256 keyed with the public key, no `exp`, a
 *              header naming an extension (`crit`) no verifier understands
 *   signing    signingKey() gives the private JWK the provider signs with, and
 *              sign(claims) signs any payload with it, for tokens the provider
 *              itself will not issue
 *   close      stops the server and drops its connections
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createPublicKey, type JsonWebKey, randomBytes, randomUUID } from "node:crypto";
import {
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type JWK,
  type JWTHeaderParameters,
  type JWTPayload,
} from "jose";
import Provider, { errors, type Adapter, type AdapterPayload, type ClientMetadata } from "oidc-provider";

/** The resource indicator (and audience) tokens are for unless a test asks for another. */
export const DEFAULT_AUDIENCE = "https://agent.test/a2a";
/** A second resource server the provider knows, with the same scopes: a real token for the wrong audience. */
export const OTHER_AUDIENCE = "https://other.test/a2a";
/** The scopes both resource servers define. */
export const RESOURCE_SCOPES = ["a2a:read", "a2a:write", "admin"] as const;

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post";
export type SigningAlg = "RS256" | "ES256";

export interface OidcClientSpec {
  id: string;
  /** Scopes this client may get, on any resource. */
  scopes: readonly string[];
  authMethod: ClientAuthMethod;
  /** Random when not given. */
  secret?: string;
}

export interface OidcClient {
  id: string;
  secret: string;
  scopes: readonly string[];
  authMethod: ClientAuthMethod;
}

/** alice-agent may do everything, bob-agent may not administer. */
export const DEFAULT_CLIENTS: readonly OidcClientSpec[] = [
  { id: "alice-agent", scopes: ["a2a:read", "a2a:write", "admin"], authMethod: "client_secret_basic" },
  { id: "bob-agent", scopes: ["a2a:read", "a2a:write"], authMethod: "client_secret_post" },
];

export interface StartOidcOptions {
  clients?: readonly OidcClientSpec[];
  /** Resource indicator → the scopes it defines; default DEFAULT_AUDIENCE and OTHER_AUDIENCE with RESOURCE_SCOPES. */
  resources?: Readonly<Record<string, readonly string[]>>;
  /** Resource used when a token request names none; default DEFAULT_AUDIENCE. */
  defaultAudience?: string;
  alg?: SigningAlg;
  /** Access token lifetime in seconds; default 600. */
  accessTokenTtl?: number;
}

export interface TokenOptions {
  /** Space-separated; default: every scope the client may have on the resource. */
  scope?: string;
  /** The `resource` parameter; default: none sent, the provider uses its default audience. */
  audience?: string;
  /** Default: the client's own method. */
  authMethod?: ClientAuthMethod;
  /** Default: the client's secret. */
  secret?: string;
}

export interface TokenResponse {
  status: number;
  /** The JSON body: access_token, token_type, expires_in, scope on success; error, error_description otherwise. */
  body: Record<string, unknown>;
}

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  /** What the provider was configured with (kid, alg and use set). */
  privateJwk: JWK;
  publicJwk: JWK;
}

export const HOSTILE_TOKEN_KINDS = [
  "expired",
  "not-yet-valid",
  "wrong-audience",
  "wrong-issuer",
  "alg-none",
  "unsigned",
  "tampered",
  "unknown-key",
  "same-kid-other-key",
  "hs256-public-key",
  "no-expiry",
  "unknown-crit",
] as const;
export type HostileTokenKind = (typeof HOSTILE_TOKEN_KINDS)[number];

export interface OidcProviderHandle {
  /** http://127.0.0.1:<port> */
  issuer: string;
  discoveryUrl: string;
  jwksUri: string;
  tokenEndpoint: string;
  /** The default audience (resource indicator). */
  audience: string;
  clients: ReadonlyMap<string, OidcClient>;
  /** POSTs a client credentials request to the token endpoint; whatever the answer, returns it. */
  requestToken(clientId: string, options?: TokenOptions): Promise<TokenResponse>;
  /** As requestToken, but returns the access token and throws unless the provider issued one. */
  token(clientId: string, options?: TokenOptions): Promise<string>;
  /** The key tokens are signed with now. */
  signingKey(): SigningKey;
  /** Switches to a new signing key (new kid); the JWKS keeps the previous key unless keepPrevious is false. */
  rotateKeys(options?: { keepPrevious?: boolean }): Promise<SigningKey>;
  /** The claims of a valid access token for the client (default audience, all its scopes, 10 minutes). */
  claimsFor(clientId: string): JWTPayload;
  /** Signs the payload with the current signing key, header alg, kid and typ at+jwt unless overridden. */
  sign(payload: JWTPayload, header?: Partial<JWTHeaderParameters>): Promise<string>;
  /** A token a verifier must refuse; see HOSTILE_TOKEN_KINDS and the header of this file. */
  hostileToken(kind: HostileTokenKind, clientId?: string): Promise<string>;
  close(): Promise<void>;
}

/** A Map-backed adapter (the provider's own warns on every start); one store lives across key rotations. */
function mapAdapter(store: Map<string, AdapterPayload>): (name: string) => Adapter {
  return (name) => {
    const key = (id: string) => `${name}:${id}`;
    const findBy = async (field: "userCode" | "uid", value: string) =>
      [...store.entries()].find(([k, p]) => k.startsWith(`${name}:`) && p[field] === value)?.[1];
    return {
      upsert: async (id, payload) => void store.set(key(id), payload),
      find: async (id) => store.get(key(id)),
      findByUserCode: (userCode) => findBy("userCode", userCode),
      findByUid: (uid) => findBy("uid", uid),
      consume: async (id) => {
        const p = store.get(key(id));
        if (p !== undefined) p.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => void store.delete(key(id)),
      revokeByGrantId: async (grantId) => {
        for (const [k, p] of store) if (p.grantId === grantId) store.delete(k);
      },
    };
  };
}

async function newSigningKey(alg: SigningAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const meta = { kid, alg, use: "sig" };
  return { kid, alg, privateJwk: { ...(await exportJWK(privateKey)), ...meta }, publicJwk: { ...publicJwk, ...meta } };
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

export async function startOidcProvider(options: StartOidcOptions = {}): Promise<OidcProviderHandle> {
  const alg = options.alg ?? "RS256";
  const ttl = options.accessTokenTtl ?? 600;
  const audience = options.defaultAudience ?? DEFAULT_AUDIENCE;
  const resources = options.resources ?? { [DEFAULT_AUDIENCE]: RESOURCE_SCOPES, [OTHER_AUDIENCE]: RESOURCE_SCOPES };
  if (resources[audience] === undefined) throw new Error(`the default audience ${audience} is not among the resources`);
  const clients = new Map<string, OidcClient>();
  for (const c of options.clients ?? DEFAULT_CLIENTS) {
    clients.set(c.id, { ...c, secret: c.secret ?? randomBytes(24).toString("base64url") });
  }
  const clientOf = (id: string): OidcClient => {
    const c = clients.get(id);
    if (c === undefined) throw new Error(`no client ${id}; clients: ${[...clients.keys()].join(", ")}`);
    return c;
  };

  const store = new Map<string, AdapterPayload>();
  let keys: SigningKey[] = [await newSigningKey(alg)];
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (handler === undefined) res.writeHead(503).end();
    else handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const build = () => {
    const current = keys[0]!;
    const metadata: ClientMetadata[] = [...clients.values()].map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: c.authMethod,
    }));
    const provider = new Provider(issuer, {
      adapter: mapAdapter(store),
      clients: metadata,
      jwks: { keys: keys.map((k) => k.privateJwk) },
      clientDefaults: { id_token_signed_response_alg: alg },
      cookies: { keys: [randomBytes(32).toString("base64url")] },
      ttl: { ClientCredentials: ttl },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => audience,
          getResourceServerInfo: (_ctx, indicator, client) => {
            const defined = resources[indicator];
            if (defined === undefined) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
            const allowed = new Set(clients.get(client.clientId)?.scopes ?? []);
            return {
              scope: defined.filter((s) => allowed.has(s)).join(" "),
              audience: indicator,
              accessTokenTTL: ttl,
              accessTokenFormat: "jwt",
              jwt: { sign: { alg, kid: current.kid } },
            };
          },
        },
      },
    });
    handler = provider.callback();
  };
  try {
    build();
  } catch (e) {
    server.close();
    throw e;
  }

  const requestToken = async (clientId: string, opts: TokenOptions = {}): Promise<TokenResponse> => {
    const client = clientOf(clientId);
    const resource = opts.audience ?? audience;
    const scopes = resources[resource]?.filter((s) => client.scopes.includes(s)) ?? client.scopes;
    const form = new URLSearchParams({ grant_type: "client_credentials", scope: opts.scope ?? scopes.join(" ") });
    if (opts.audience !== undefined) form.set("resource", opts.audience);
    const secret = opts.secret ?? client.secret;
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    if ((opts.authMethod ?? client.authMethod) === "client_secret_basic") {
      const pair = `${encodeURIComponent(client.id)}:${encodeURIComponent(secret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
    } else {
      form.set("client_id", client.id);
      form.set("client_secret", secret);
    }
    const res = await fetch(`${issuer}/token`, { method: "POST", headers, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const token = async (clientId: string, opts?: TokenOptions): Promise<string> => {
    const r = await requestToken(clientId, opts);
    const value = r.body.access_token;
    if (r.status !== 200 || typeof value !== "string") {
      throw new Error(`token request for ${clientId} failed: ${r.status} ${JSON.stringify(r.body)}`);
    }
    return value;
  };

  const claimsFor = (clientId: string): JWTPayload => {
    const client = clientOf(clientId);
    const scopes = resources[audience]!.filter((s) => client.scopes.includes(s));
    const iat = now();
    const claims: JWTPayload = { iss: issuer, sub: client.id, aud: audience, iat, exp: iat + ttl, jti: randomUUID() };
    return { ...claims, client_id: client.id, scope: scopes.join(" ") };
  };

  const signWith = async (key: JWK, payload: JWTPayload, header: Partial<JWTHeaderParameters> = {}) => {
    const k = keys[0]!;
    const full: JWTHeaderParameters = { alg: k.alg, kid: k.kid, typ: "at+jwt", ...header };
    return new SignJWT(payload).setProtectedHeader(full).sign(await importJWK(key, full.alg));
  };
  const sign = (payload: JWTPayload, header?: Partial<JWTHeaderParameters>) =>
    signWith(keys[0]!.privateJwk, payload, header);

  const hostileToken = async (kind: HostileTokenKind, clientId?: string): Promise<string> => {
    const id = clientId ?? [...clients.keys()][0]!;
    const valid = claimsFor(id);
    const current = keys[0]!;
    const header = { alg: current.alg, kid: current.kid, typ: "at+jwt" };
    switch (kind) {
      case "expired":
        return sign({ ...valid, iat: now() - 2 * 3600, exp: now() - 3600 });
      case "not-yet-valid":
        return sign({ ...valid, nbf: now() + 3600, exp: now() + 2 * 3600 });
      case "wrong-audience":
        return token(id, { audience: Object.keys(resources).find((r) => r !== audience) ?? OTHER_AUDIENCE });
      case "wrong-issuer":
        return sign({ ...valid, iss: `${issuer}/not-the-issuer` });
      case "alg-none":
        return `${b64url({ alg: "none", typ: "at+jwt" })}.${b64url(valid)}.`;
      case "unsigned":
        return `${b64url(header)}.${b64url(valid)}.`;
      case "tampered": {
        const real = await token(id);
        const [h, , s] = real.split(".");
        const forged = { ...decodeJwt(real), sub: "mallory-agent", client_id: "mallory-agent", scope: "admin" };
        return `${h}.${b64url(forged)}.${s}`;
      }
      case "unknown-key": {
        const stranger = await newSigningKey(current.alg);
        return signWith(stranger.privateJwk, valid, { kid: stranger.kid });
      }
      case "same-kid-other-key":
        return signWith((await newSigningKey(current.alg)).privateJwk, valid);
      case "hs256-public-key": {
        const publicKey = createPublicKey({ key: current.publicJwk as JsonWebKey, format: "jwk" });
        const pem = String(publicKey.export({ type: "spki", format: "pem" }));
        return new SignJWT(valid).setProtectedHeader({ ...header, alg: "HS256" }).sign(new TextEncoder().encode(pem));
      }
      case "no-expiry": {
        const { exp: _exp, ...rest } = valid;
        return sign(rest);
      }
      case "unknown-crit": {
        const crit = { ...header, crit: ["zz"], zz: 1 };
        const key = await importJWK(current.privateJwk, current.alg);
        return new SignJWT(valid).setProtectedHeader(crit).sign(key, { crit: { zz: true } });
      }
    }
  };

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint: `${issuer}/token`,
    audience,
    clients,
    requestToken,
    token,
    signingKey: () => keys[0]!,
    rotateKeys: async ({ keepPrevious = true } = {}) => {
      const next = await newSigningKey(alg);
      keys = keepPrevious ? [next, keys[0]!] : [next];
      build();
      return next;
    },
    claimsFor,
    sign,
    hostileToken,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
