/**
 * Proves the auth test helpers work with real parts: the OpenID provider of
 * test/helpers/oidc.ts is asked for tokens over HTTP and they are checked with
 * jose against its published JWKS, before and after key rotation, while each
 * hostile token fails for its own reason; the PKI of test/helpers/tls-ca.ts is
 * used by node:https and node:http2 servers asking for client certificates.
 */
import { once } from "node:events";
import { request as httpsRequest, createServer as createHttpsServer, type ServerOptions } from "node:https";
import { connect as http2Connect, createSecureServer, type SecureServerOptions } from "node:http2";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTVerifyOptions } from "jose";
import {
  DEFAULT_AUDIENCE,
  HOSTILE_TOKEN_KINDS,
  OTHER_AUDIENCE,
  startOidcProvider,
  type HostileTokenKind,
  type OidcProviderHandle,
} from "../helpers/oidc.js";
import { createTestPki, type PemPair, type TestPki } from "../helpers/tls-ca.js";

describe("oidc helper: a real provider issuing JWT access tokens", () => {
  let op: OidcProviderHandle;
  let verifyOptions: JWTVerifyOptions;
  beforeAll(async () => {
    op = await startOidcProvider();
    verifyOptions = {
      issuer: op.issuer,
      audience: DEFAULT_AUDIENCE,
      typ: "at+jwt",
      algorithms: ["RS256"],
      requiredClaims: ["exp", "iat"],
    };
  });
  afterAll(() => op?.close());

  const verify = (token: string, options: JWTVerifyOptions = verifyOptions) =>
    jwtVerify(token, createRemoteJWKSet(new URL(op.jwksUri)), options);

  it("publishes a discovery document naming its token endpoint and JWKS", async () => {
    const res = await fetch(op.discoveryUrl);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(op.issuer);
    expect(op.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(doc.token_endpoint).toBe(op.tokenEndpoint);
    expect(doc.jwks_uri).toBe(op.jwksUri);
    expect(doc.grant_types_supported).toContain("client_credentials");
    expect(doc.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(["client_secret_basic", "client_secret_post"]),
    );
  });

  it.each([
    ["alice-agent", "client_secret_basic", "a2a:read a2a:write admin"],
    ["bob-agent", "client_secret_post", "a2a:read a2a:write"],
  ])("issues %s (%s) a JWT access token for the audience, scopes %j", async (id, method, scope) => {
    expect(op.clients.get(id)?.authMethod).toBe(method);
    const res = await op.requestToken(id);
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe("Bearer");
    expect(res.body.scope).toBe(scope);
    const token = res.body.access_token as string;
    expect(token.split(".")).toHaveLength(3);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "RS256", typ: "at+jwt", kid: op.signingKey().kid });
    const { payload } = await verify(token);
    expect(payload).toMatchObject({ iss: op.issuer, aud: DEFAULT_AUDIENCE, sub: id, client_id: id, scope });
  });

  it("narrows the scopes to those asked for and those the client may have", async () => {
    const read = await verify(await op.token("bob-agent", { scope: "a2a:read" }));
    expect(read.payload.scope).toBe("a2a:read");
    const mixed = await verify(await op.token("bob-agent", { scope: "a2a:read admin" }));
    expect(mixed.payload.scope).toBe("a2a:read");
    const admin = await verify(await op.token("alice-agent", { scope: "admin" }));
    expect(admin.payload.scope).toBe("admin");
  });

  it("issues for another known resource, and refuses unknown resources and wrong secrets", async () => {
    const other = await op.token("alice-agent", { audience: OTHER_AUDIENCE });
    expect((await verify(other, { ...verifyOptions, audience: OTHER_AUDIENCE })).payload.aud).toBe(OTHER_AUDIENCE);
    const unknown = await op.requestToken("alice-agent", { audience: "https://unknown.test/api" });
    expect(unknown).toMatchObject({ status: 400, body: { error: "invalid_target" } });
    const badSecret = await op.requestToken("alice-agent", { secret: "not-the-secret" });
    expect(badSecret).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    // oidc-provider takes either secret method from any client registered with one of them
    const post = await op.requestToken("alice-agent", { authMethod: "client_secret_post" });
    expect(post.status).toBe(200);
    const basic = await op.requestToken("bob-agent", { authMethod: "client_secret_basic" });
    expect(basic.status).toBe(200);
  });

  it("signs tokens of our own making with the key the provider uses", async () => {
    const key = op.signingKey();
    expect(key.privateJwk).toMatchObject({ kid: key.kid, alg: "RS256", use: "sig", kty: "RSA" });
    expect(key.privateJwk.d).toBeTypeOf("string");
    expect(key.publicJwk.d).toBeUndefined();
    const { payload } = await verify(await op.sign({ ...op.claimsFor("bob-agent"), extra: "claim" }));
    expect(payload).toMatchObject({ sub: "bob-agent", client_id: "bob-agent", extra: "claim" });
  });

  /** Why jose refuses each hostile token: the code and, for claim failures, the claim. */
  const refusals: Record<HostileTokenKind, { code: string; claim?: string }> = {
    expired: { code: "ERR_JWT_EXPIRED", claim: "exp" },
    "not-yet-valid": { code: "ERR_JWT_CLAIM_VALIDATION_FAILED", claim: "nbf" },
    "wrong-audience": { code: "ERR_JWT_CLAIM_VALIDATION_FAILED", claim: "aud" },
    "wrong-issuer": { code: "ERR_JWT_CLAIM_VALIDATION_FAILED", claim: "iss" },
    "alg-none": { code: "ERR_JOSE_ALG_NOT_ALLOWED" },
    unsigned: { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" },
    tampered: { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" },
    "unknown-key": { code: "ERR_JWKS_NO_MATCHING_KEY" },
    "same-kid-other-key": { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" },
    "hs256-public-key": { code: "ERR_JOSE_ALG_NOT_ALLOWED" },
    "no-expiry": { code: "ERR_JWT_CLAIM_VALIDATION_FAILED", claim: "exp" },
    "unknown-crit": { code: "ERR_JOSE_NOT_SUPPORTED" },
  };

  it.each(HOSTILE_TOKEN_KINDS)("mints a %s token that jwtVerify refuses for that reason", async (kind) => {
    const token = await op.hostileToken(kind, "bob-agent");
    const error = await verify(token).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(errors.JOSEError);
    const expected = refusals[kind];
    expect((error as errors.JOSEError).code).toBe(expected.code);
    if (expected.claim !== undefined) expect((error as errors.JWTClaimValidationFailed).claim).toBe(expected.claim);
  });

  it("tampers with a token the provider really issued", async () => {
    const token = await op.hostileToken("tampered", "bob-agent");
    expect(decodeProtectedHeader(token)).toMatchObject({ typ: "at+jwt", kid: op.signingKey().kid });
    const [header, , signature] = token.split(".");
    expect(header).not.toBe("");
    expect(signature).not.toBe("");
  });
});

describe("oidc helper: key rotation", () => {
  let op: OidcProviderHandle;
  beforeAll(async () => {
    op = await startOidcProvider({ alg: "ES256" });
  });
  afterAll(() => op?.close());

  const kids = async () => {
    const jwks = (await (await fetch(op.jwksUri)).json()) as { keys: { kid: string; d?: string }[] };
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
    return jwks.keys.map((k) => k.kid);
  };

  it("switches to a new kid; a verifier holding the old JWKS refreshes it to verify", async () => {
    const options = { issuer: op.issuer, audience: op.audience, algorithms: ["ES256"] };
    // cooldownDuration 0: jose refetches the JWKS at once when a kid is unknown, as a verifier should
    const jwks = createRemoteJWKSet(new URL(op.jwksUri), { cooldownDuration: 0 });
    const first = op.signingKey();
    const before = await op.token("alice-agent");
    expect(decodeProtectedHeader(before).kid).toBe(first.kid);
    await jwtVerify(before, jwks, options);
    expect(await kids()).toEqual([first.kid]);

    const second = await op.rotateKeys();
    expect(second.kid).not.toBe(first.kid);
    expect(op.signingKey()).toBe(second);
    expect(await kids()).toEqual([second.kid, first.kid]);
    const after = await op.token("alice-agent");
    expect(decodeProtectedHeader(after)).toMatchObject({ alg: "ES256", kid: second.kid });
    expect((await jwtVerify(after, jwks, options)).payload.sub).toBe("alice-agent");
    await jwtVerify(before, jwks, options);

    const third = await op.rotateKeys({ keepPrevious: false });
    expect(await kids()).toEqual([third.kid]);
    const latest = await op.token("bob-agent");
    expect(decodeProtectedHeader(latest).kid).toBe(third.kid);
    expect((await jwtVerify(latest, jwks, options)).payload.sub).toBe("bob-agent");
    await expect(jwtVerify(after, jwks, options)).rejects.toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" });
  });
});

interface PeerSeen {
  authorized: boolean;
  error: string | null;
  cn: string | null;
  protocol: string | null;
}

function peerSeen(socket: TLSSocket): PeerSeen {
  const cert = socket.getPeerCertificate();
  const cn = cert?.subject?.CN;
  return {
    authorized: socket.authorized,
    error: socket.authorizationError == null ? null : String(socket.authorizationError),
    cn: typeof cn === "string" ? cn : null,
    protocol: socket.alpnProtocol === false ? null : (socket.alpnProtocol ?? null),
  };
}

describe("tls-ca helper: mutual TLS with node:https and node:http2", () => {
  let pki: TestPki;
  const servers: { close(): void; closeAllConnections?(): void }[] = [];
  beforeAll(() => {
    pki = createTestPki();
  });
  afterAll(() => {
    for (const s of servers) {
      s.close();
      s.closeAllConnections?.();
    }
  });

  async function listen(server: ReturnType<typeof createHttpsServer> | ReturnType<typeof createSecureServer>) {
    servers.push(server);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return (server.address() as AddressInfo).port;
  }

  async function httpsServer(rejectUnauthorized: boolean): Promise<number> {
    const options: ServerOptions = { ...pki.server, ca: pki.ca, requestCert: true, rejectUnauthorized };
    return listen(
      createHttpsServer(options, (req, res) => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(peerSeen(req.socket as TLSSocket)));
      }),
    );
  }

  function httpsGet(port: number, client: Partial<PemPair> & { ca?: string; host?: string }): Promise<PeerSeen> {
    return new Promise((resolve, reject) => {
      const { host = "127.0.0.1", ca = pki.ca, ...pair } = client;
      const req = httpsRequest({ host, port, path: "/", ca, ...pair, agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve(JSON.parse(body) as PeerSeen));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("makes PEM certificates and keys", () => {
    for (const pem of [pki.ca, pki.foreignCa, pki.server.cert, pki.client("alice").cert]) {
      expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+-----END CERTIFICATE-----\r?\n?$/);
    }
    expect(pki.server.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);
    expect(pki.client("alice")).toBe(pki.client("alice"));
    expect(pki.client("alice").cert).not.toBe(pki.client("bob").cert);
  });

  it("tells the https server who the client is, and whether the CA vouches for it", async () => {
    const port = await httpsServer(false);
    const authorized = { authorized: true, error: null };
    expect(await httpsGet(port, pki.client("alice"))).toMatchObject({ ...authorized, cn: "alice" });
    expect(await httpsGet(port, { ...pki.client("bob"), host: "localhost" })).toMatchObject({
      ...authorized,
      cn: "bob",
    });
    expect(await httpsGet(port, pki.foreignClient("alice"))).toMatchObject({
      authorized: false,
      error: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      cn: "alice",
    });
    expect(await httpsGet(port, pki.expiredClient("alice"))).toMatchObject({
      authorized: false,
      error: "CERT_HAS_EXPIRED",
      cn: "alice",
    });
    expect(await httpsGet(port, {})).toMatchObject({ authorized: false, cn: null });
  });

  it("gives a server certificate the client trusts only through the CA", async () => {
    const port = await httpsServer(false);
    // the server sends its chain with the root, which this client does not trust
    await expect(httpsGet(port, { ...pki.client("alice"), ca: pki.foreignCa })).rejects.toMatchObject({
      code: "SELF_SIGNED_CERT_IN_CHAIN",
    });
    await expect(
      new Promise((resolve, reject) => {
        const req = httpsRequest({ host: "127.0.0.1", port, ...pki.client("alice"), agent: false }, resolve);
        req.on("error", reject).end();
      }),
    ).rejects.toMatchObject({ code: "SELF_SIGNED_CERT_IN_CHAIN" });
  });

  it("lets a strict https server refuse the foreign client at the handshake", async () => {
    const port = await httpsServer(true);
    expect(await httpsGet(port, pki.client("alice"))).toMatchObject({ authorized: true, cn: "alice" });
    await expect(httpsGet(port, pki.foreignClient("alice"))).rejects.toBeInstanceOf(Error);
    await expect(httpsGet(port, {})).rejects.toBeInstanceOf(Error);
  });

  it("tells an http2 server (what gRPC runs on) who the client is", async () => {
    const options: SecureServerOptions = { ...pki.server, ca: pki.ca, requestCert: true, rejectUnauthorized: false };
    const server = createSecureServer(options);
    server.on("stream", (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/json" });
      stream.end(JSON.stringify(peerSeen(stream.session?.socket as TLSSocket)));
    });
    const port = await listen(server);

    const get = async (pair: PemPair): Promise<PeerSeen> => {
      const session = http2Connect(`https://localhost:${port}`, { ca: pki.ca, ...pair });
      try {
        const stream = session.request({ ":path": "/" });
        stream.setEncoding("utf8");
        let body = "";
        for await (const chunk of stream) body += chunk as string;
        return JSON.parse(body) as PeerSeen;
      } finally {
        session.close();
      }
    };
    expect(await get(pki.client("alice"))).toEqual({ authorized: true, error: null, cn: "alice", protocol: "h2" });
    expect(await get(pki.client("bob"))).toMatchObject({ authorized: true, cn: "bob" });
    expect(await get(pki.foreignClient("bob"))).toMatchObject({ authorized: false, cn: "bob", protocol: "h2" });
  });
});
