/**
 * jwtBearer against a real OpenID Connect provider (helpers/oidc.ts): it
 * finds the JWKS through the discovery document, admits the provider's
 * client-credentials tokens with their subject and scopes, follows a key
 * rotation (a token naming the new key id is admitted once the JWKS may be
 * fetched again), and refuses every hostile token. Remembered tokens: a
 * token that passed is admitted again from the cache after its key left the
 * JWKS, within maxAgeMs; with `cache: false` it is refused at once. Past
 * `cache.maxEntries` the token checked longest ago is the one forgotten.
 * A token whose sub is no string (null too) is refused; a JWKS answering 500
 * is the server's fault (the verifier throws), not the token's, and a failed
 * read of the discovery document or JWKS is remembered for keyRetryMs (one
 * fetch for 50 calls), while text that is no JWS costs no fetch at all.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jwtBearer } from "@protoc-gen-a2a/runtime/auth";
import type { A2aCall } from "@protoc-gen-a2a/runtime";
import { HOSTILE_TOKEN_KINDS, type OidcProviderHandle, startOidcProvider } from "../helpers/oidc.js";

let op: OidcProviderHandle;
const call = {} as A2aCall; // jwtBearer reads only the token

beforeAll(async () => {
  op = await startOidcProvider({ alg: "ES256" });
});

afterAll(async () => {
  await op.close();
});

describe("jwtBearer", () => {
  it("admits the provider's tokens with their subject and scopes", async () => {
    const verifier = jwtBearer({ issuer: op.issuer, audience: op.audience });
    const identity = await verifier.bearer(await op.token("alice-agent", { scope: "a2a:read" }), call);
    expect(identity?.id).toBe("alice-agent");
    expect(identity?.scopes).toEqual(["a2a:read"]);
  });

  it("refuses every hostile token", async () => {
    const verifier = jwtBearer({ issuer: op.issuer, audience: op.audience, cache: false });
    for (const kind of HOSTILE_TOKEN_KINDS) {
      expect(await verifier.bearer(await op.hostileToken(kind, "bob-agent"), call), kind).toBeUndefined();
    }
  });

  it("refuses a token whose sub is no string, rather than take its client_id", async () => {
    const verifier = jwtBearer({ issuer: op.issuer, audience: op.audience, cache: false });
    const claims = op.claimsFor("alice-agent");
    expect((await verifier.bearer(await op.sign(claims), call))?.id).toBe("alice-agent");
    const numeric = await op.sign({ ...claims, sub: 123 as unknown as string, client_id: "alice-agent" });
    expect(await verifier.bearer(numeric, call)).toBeUndefined();
    const none = await op.sign({ ...claims, sub: null as unknown as string, client_id: "alice-agent" });
    expect(await verifier.bearer(none, call)).toBeUndefined();
  });

  it("remembers a failed read of the issuer's keys: callers cannot make it fetch once per call", async () => {
    const fetched = { discovery: 0, jwks: 0 };
    const down = createServer((req, res) => {
      fetched[req.url === "/jwks" ? "jwks" : "discovery"] += 1;
      res.writeHead(500).end("down");
    });
    await new Promise<void>((resolve) => down.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
      const token = await op.token("alice-agent");
      for (const where of [{ discoveryUrl: `${base}/discovery` }, { jwksUri: `${base}/jwks` }]) {
        const verifier = jwtBearer({ issuer: op.issuer, audience: op.audience, cache: false, ...where });
        // Text that is no JWS is refused before any key is read.
        for (let i = 0; i < 10; i++) expect(await verifier.bearer("not-even-a-jwt", call)).toBeUndefined();
        // Twenty at once, then twenty one by one: all fail, as the server's fault, and one read was made.
        const together = await Promise.allSettled(Array.from({ length: 20 }, async () => verifier.bearer(token, call)));
        expect(together.every((outcome) => outcome.status === "rejected")).toBe(true);
        for (let i = 0; i < 20; i++) await expect(verifier.bearer(token, call)).rejects.toThrow(/500|200/);
      }
      expect(fetched).toEqual({ discovery: 1, jwks: 1 });
      // Past keyRetryMs the next call reads again.
      const again = jwtBearer({ issuer: op.issuer, audience: op.audience, jwksUri: `${base}/jwks`, keyRetryMs: 0 });
      for (let i = 0; i < 3; i++) await expect(again.bearer(token, call)).rejects.toThrow(/200/);
      expect(fetched).toEqual({ discovery: 1, jwks: 4 });
    } finally {
      down.close();
    }
  });

  it("keeps a fresh key set answering while a refetch for an unknown kid fails, and fetches no more", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    let up = true;
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches++;
      if (!up) return void res.writeHead(503).end("busy");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    const sign = (kid: string, sub: string) =>
      new SignJWT({ sub })
        .setProtectedHeader({ alg: "ES256", kid })
        .setIssuer(op.issuer)
        .setAudience(op.audience)
        .setExpirationTime("5m")
        .sign(privateKey);
    try {
      const verifier = jwtBearer({
        issuer: op.issuer,
        audience: op.audience,
        jwksUri,
        cache: false,
        jwksCooldownMs: 0,
      });
      expect((await verifier.bearer(await sign("k1", "alice"), call))?.id).toBe("alice");
      up = false;
      // Anyone can name a made-up kid: the refetch it causes fails, as the server's fault.
      await expect(verifier.bearer(await sign("made-up", "mallory"), call)).rejects.toThrow(/200/);
      // Meanwhile the fresh set answers: alice's kid is in it. A kid it lacks may be one just rotated in (jose
      // is not cooling down): that is no token's fault, the failure stands, and nothing is fetched.
      expect((await verifier.bearer(await sign("k1", "alice"), call))?.id).toBe("alice");
      for (let i = 0; i < 10; i++)
        await expect(verifier.bearer(await sign(`k-${i}`, "m"), call)).rejects.toThrow(/200/);
      expect(fetches).toBe(2);
    } finally {
      server.close();
    }
  });

  it("throws, as a server fault, when the JWKS answers 500: no token is refused for it", async () => {
    const down = createServer((_req, res) => res.writeHead(500).end("down"));
    await new Promise<void>((resolve) => down.listen(0, "127.0.0.1", resolve));
    try {
      const jwksUri = `http://127.0.0.1:${(down.address() as AddressInfo).port}/jwks`;
      const verifier = jwtBearer({ issuer: op.issuer, audience: op.audience, jwksUri, cache: false });
      await expect(verifier.bearer(await op.token("alice-agent"), call)).rejects.toThrow(/200/);
    } finally {
      down.close();
    }
  });

  it("follows a key rotation, and forgets a removed key's tokens at once without the cache", async () => {
    const fresh = jwtBearer({ issuer: op.issuer, audience: op.audience, cache: false, jwksCooldownMs: 0 });
    const cached = jwtBearer({ issuer: op.issuer, audience: op.audience, jwksCooldownMs: 0 });
    const before = await op.token("bob-agent");
    expect((await fresh.bearer(before, call))?.id).toBe("bob-agent");
    expect((await cached.bearer(before, call))?.id).toBe("bob-agent");
    await op.rotateKeys({ keepPrevious: false });
    const after = await op.token("bob-agent");
    expect((await fresh.bearer(after, call))?.id).toBe("bob-agent");
    expect(await fresh.bearer(before, call)).toBeUndefined();
    // Remembered for maxAgeMs (default 60 s): the documented price of one signature check per minute.
    expect((await cached.bearer(before, call))?.id).toBe("bob-agent");
  });

  it("forgets the token checked longest ago past cache.maxEntries, and keeps the others", async () => {
    const cached = jwtBearer({ issuer: op.issuer, audience: op.audience, jwksCooldownMs: 0, cache: { maxEntries: 3 } });
    const tokens = [];
    for (const who of ["alice-agent", "bob-agent", "alice-agent", "bob-agent"]) {
      // four tokens, each its own
      const token = await op.token(who);
      expect((await cached.bearer(token, call))?.id).toBe(who);
      tokens.push(token);
    }
    await op.rotateKeys({ keepPrevious: false });
    // A token of the new key makes it fetch the JWKS again, and takes the place of the oldest one left.
    expect((await cached.bearer(await op.token("alice-agent"), call))?.id).toBe("alice-agent");
    const ids = [];
    for (const token of tokens) ids.push((await cached.bearer(token, call))?.id);
    expect(ids).toEqual([undefined, undefined, "alice-agent", "bob-agent"]);
  });
});
