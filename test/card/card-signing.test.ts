/**
 * Agent card signing on its own (spec §8.4): the canonical text follows the
 * field presence rules of §8.4.1 (the spec's own example), unknown fields
 * are dropped and reported, wrong types are refused by path; a changed card,
 * a wrong key, a key set without the kid, a disallowed algorithm all fail,
 * naming the signature; kid/JWKS selection picks the right key among several;
 * several signatures: one suffices unless every one is required; the
 * header's jku is fetched (from a real server) only when trusted. The SDKs'
 * empties-dropped form is accepted by default only when it drops empty
 * fields alone: a signed card to which `{}` was added in securityRequirements,
 * an empty interface, or an empty Struct member, is refused, naming what the
 * form would drop; a genuine card with an empty REQUIRED field still verifies.
 */
import {
  AgentCardSignatureError,
  CardFormError,
  canonicalizeAgentCard,
  signAgentCard,
  verifyAgentCard,
} from "@protoc-gen-a2a/runtime/card-signing";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  FlattenedSign,
  generateKeyPair,
  generateSecret,
  type JWSHeaderParameters,
} from "jose";
import { describe, expect, it } from "vitest";

const card = {
  name: "Unit agent",
  description: "Tested",
  supportedInterfaces: [{ url: "https://a.example/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "S", description: "d", tags: ["t"] }],
};

describe("the canonical text", () => {
  it("follows the spec's example of default value removal (§8.4.1)", () => {
    const fragment = {
      name: "Example Agent",
      description: "",
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    // The fragment's absent REQUIRED fields are present with their defaults, as in a rebuilt card.
    expect(canonicalizeAgentCard(fragment).text).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"defaultInputModes":[],' +
        '"defaultOutputModes":[],"description":"","name":"Example Agent","skills":[],' +
        '"supportedInterfaces":[],"version":""}',
    );
  });

  it("omits default implicit fields, keeps explicit ones, map entries and Struct content", () => {
    const text = canonicalizeAgentCard({
      ...card,
      documentationUrl: "",
      supportedInterfaces: [{ ...card.supportedInterfaces[0], tenant: "" }],
      capabilities: { extensions: [{ uri: "u", required: false, description: "", params: { a: "", b: null } }] },
      securitySchemes: { k: { apiKeySecurityScheme: { description: "", location: "header", name: "K" } } },
      securityRequirements: [{ schemes: { k: { list: [] } } }],
      signatures: [{ protected: "x", signature: "y" }],
    }).text;
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(parsed.documentationUrl).toBe("");
    expect(parsed.supportedInterfaces).toEqual([card.supportedInterfaces[0]]);
    expect(parsed.capabilities).toEqual({ extensions: [{ uri: "u", params: { a: "", b: null } }] });
    expect(parsed.securitySchemes).toEqual({ k: { apiKeySecurityScheme: { location: "header", name: "K" } } });
    expect(parsed.securityRequirements).toEqual([{ schemes: { k: {} } }]);
    expect(parsed).not.toHaveProperty("signatures");
  });

  it("the empties-dropped form removes every empty value", () => {
    const text = canonicalizeAgentCard(
      { ...card, description: "", securityRequirements: [{ schemes: { k: { list: [] } } }] },
      "empties-dropped",
    ).text;
    expect(JSON.parse(text)).not.toHaveProperty("description");
    expect(JSON.parse(text)).not.toHaveProperty("securityRequirements");
  });

  it("does not depend on key order or on proto field names", () => {
    const reordered = Object.fromEntries(Object.entries(card).reverse());
    const snake = { ...card, supportedInterfaces: undefined, supported_interfaces: card.supportedInterfaces };
    expect(canonicalizeAgentCard(reordered).text).toBe(canonicalizeAgentCard(card).text);
    expect(canonicalizeAgentCard(snake).text).toBe(canonicalizeAgentCard(card).text);
  });

  it("drops unknown fields and reports them; refuses wrong types by path", () => {
    const { ignoredFields, text } = canonicalizeAgentCard({ ...card, url: "x", skills: [{ ...card.skills[0], y: 1 }] });
    expect(ignoredFields).toEqual(["$.url", "$.skills[0].y"]);
    expect(text).toBe(canonicalizeAgentCard(card).text);
    const bad = { ...card, skills: [{ ...card.skills[0], tags: "t" }] };
    expect(() => canonicalizeAgentCard(bad)).toThrow(new CardFormError("$.skills[0].tags", "expected a list"));
    const both = { ...card, securitySchemes: { k: { apiKeySecurityScheme: {}, mtlsSecurityScheme: {} } } };
    expect(() => canonicalizeAgentCard(both)).toThrow(/\$\.securitySchemes\.k: sets both/);
  });
});

describe("signing and verifying", () => {
  it("puts alg, typ JOSE, kid and jku in the protected header and keeps earlier signatures", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const once = await signAgentCard(card, { key: privateKey, kid: "k1", jku: "https://a.example/jwks.json" });
    const twice = await signAgentCard(once, { key: privateKey, kid: "k2", header: { note: "rotation" } });
    expect(decodeProtectedHeader(twice.signatures[0]!)).toEqual({
      alg: "ES256",
      typ: "JOSE",
      kid: "k1",
      jku: "https://a.example/jwks.json",
    });
    expect(twice.signatures[1]?.header).toEqual({ note: "rotation" });
    expect(card).not.toHaveProperty("signatures");
    const result = await verifyAgentCard(twice, { key: publicKey }, { requireAll: true });
    expect(result.verified.map((v) => v.kid)).toEqual(["k1", "k2"]);
  });

  it("takes the kid and alg of a private JWK, and refuses a key without kid", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: "rsa-1" };
    const signed = await signAgentCard(card, { key: jwk });
    expect(decodeProtectedHeader(signed.signatures[0]!)).toMatchObject({ alg: "RS256", kid: "rsa-1" });
    await expect(verifyAgentCard(signed, { key: publicKey })).resolves.toBeTruthy();
    await expect(signAgentCard(card, { key: privateKey })).rejects.toThrow(/give `kid`/);
  });

  it("fails on a changed card, a wrong key, and a card without signatures", async () => {
    const { privateKey, publicKey } = await generateKeyPair("EdDSA");
    const other = await generateKeyPair("EdDSA");
    const signed = await signAgentCard(card, { key: privateKey, kid: "ed" });
    await expect(verifyAgentCard({ ...signed, version: "2" }, { key: publicKey })).rejects.toThrow(
      'agent card "Unit agent": no signature verified: signature 0 (kid ed, alg EdDSA): the signature does not match',
    );
    await expect(verifyAgentCard(signed, { key: other.publicKey })).rejects.toThrow(/signature 0 .*does not match/);
    await expect(verifyAgentCard(card, { key: publicKey })).rejects.toThrow(/no signatures to verify/);
  });

  it("fails a signature whose alg or kid is only in the unprotected header (§8.4.2)", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const payload = new TextEncoder().encode(canonicalizeAgentCard(card).text);
    const sign = (protectedHeader: JWSHeaderParameters, header: JWSHeaderParameters) =>
      new FlattenedSign(payload).setProtectedHeader(protectedHeader).setUnprotectedHeader(header).sign(privateKey);
    const noAlg = await sign({ typ: "JOSE", kid: "k1" }, { alg: "ES256" });
    const noKid = await sign({ typ: "JOSE", alg: "ES256" }, { kid: "k1" });
    for (const [jws, name] of [
      [noAlg, "alg"],
      [noKid, "kid"],
    ] as const) {
      const signed = {
        ...card,
        signatures: [{ protected: jws.protected, signature: jws.signature, header: jws.header }],
      };
      await expect(verifyAgentCard(signed, { key: publicKey })).rejects.toThrow(
        `its protected header names no ${name} (spec §8.4.2 requires it)`,
      );
    }
  });

  it("fails a signature whose kid is no string (RFC 7515 §4.1.4)", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const payload = new TextEncoder().encode(canonicalizeAgentCard(card).text);
    const header = { typ: "JOSE", alg: "ES256", kid: 7 } as unknown as JWSHeaderParameters;
    const jws = await new FlattenedSign(payload).setProtectedHeader(header).sign(privateKey);
    const signed = { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
    await expect(verifyAgentCard(signed, { key: publicKey })).rejects.toThrow("its kid is not a string");
  });

  it("a field the card adds later is not covered, and is reported", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const signed = await signAgentCard(card, { key: privateKey, kid: "k" });
    const result = await verifyAgentCard({ ...signed, extra: true }, { key: publicKey });
    expect(result.ignoredFields).toEqual(["$.extra"]);
  });

  it("selects the key by kid from a JWKS, and names a kid the set lacks", async () => {
    const a = await generateKeyPair("ES256", { extractable: true });
    const b = await generateKeyPair("ES256", { extractable: true });
    const jwks = createLocalJWKSet({
      keys: [
        { ...(await exportJWK(a.publicKey)), kid: "a", alg: "ES256" },
        { ...(await exportJWK(b.publicKey)), kid: "b", alg: "ES256" },
      ],
    });
    const byB = await signAgentCard(card, { key: b.privateKey, kid: "b" });
    expect((await verifyAgentCard(byB, { jwks })).verified[0]?.kid).toBe("b");
    const misnamed = await signAgentCard(card, { key: b.privateKey, kid: "a" });
    await expect(verifyAgentCard(misnamed, { jwks })).rejects.toThrow(
      /kid a, alg ES256\): the signature does not match/,
    );
    const unknown = await signAgentCard(card, { key: b.privateKey, kid: "c" });
    await expect(verifyAgentCard(unknown, { jwks })).rejects.toThrow(/kid c, alg ES256\): no key in the key set/);
  });

  it("one good signature suffices unless every one is required; failures are listed", async () => {
    const good = await generateKeyPair("ES256");
    const stale = await generateKeyPair("ES256");
    const signed = await signAgentCard(await signAgentCard(card, { key: stale.privateKey, kid: "old" }), {
      key: good.privateKey,
      kid: "new",
    });
    const result = await verifyAgentCard(signed, { key: good.publicKey });
    expect(result.verified.map((v) => v.index)).toEqual([1]);
    expect(result.failed.map((f) => f.kid)).toEqual(["old"]);
    const all = verifyAgentCard(signed, { key: good.publicKey }, { requireAll: true });
    await expect(all).rejects.toBeInstanceOf(AgentCardSignatureError);
    await expect(all).rejects.toThrow(/not every signature verified: signature 0 \(kid old/);
  });

  it("refuses an algorithm outside the allowed list, and HS256 by default", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const signed = await signAgentCard(card, { key: privateKey, kid: "r" });
    await expect(verifyAgentCard(signed, { key: publicKey }, { algorithms: ["ES256"] })).rejects.toThrow(
      /alg RS256\): its algorithm is not allowed/,
    );
    const secret = await generateSecret("HS256");
    const hmac = await signAgentCard(card, { key: secret, kid: "h", alg: "HS256" });
    await expect(verifyAgentCard(hmac, { key: secret })).rejects.toThrow(/alg HS256\): its algorithm is not allowed/);
  });

  it("fetches the key set at the header's jku only when the URL is trusted", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const body = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "j1", alg: "ES256" }] });
    let fetched = 0;
    const server = createServer((_req, res) => {
      fetched++;
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const jku = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
      const signed = await signAgentCard(card, { key: privateKey, kid: "j1", jku });
      const trusted = await verifyAgentCard(signed, { trustedJku: (url) => url.href === jku });
      expect(trusted.verified[0]?.protectedHeader.jku).toBe(jku);
      expect(fetched).toBe(1);
      await expect(verifyAgentCard(signed, { trustedJku: () => false })).rejects.toThrow(
        `signature 0 (kid j1, alg ES256): its jku ${jku} is not trusted`,
      );
      const noJku = await signAgentCard(card, { key: privateKey, kid: "j1" });
      await expect(verifyAgentCard(noJku, { trustedJku: () => true })).rejects.toThrow(/names no jku/);
      expect(fetched).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe("a card cannot make its verifier fetch or work without bound", () => {
  /** A key host on 127.0.0.1 answering every path with `body`, counting requests. */
  async function keyHost(body: string) {
    let fetched = 0;
    const server = createServer((_req, res) => {
      fetched++;
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { origin, fetched: () => fetched, close: () => server.close() };
  }

  it("names at most 4 key set URLs, and has its first 16 signatures checked", async () => {
    const host = await keyHost(JSON.stringify({ keys: [] }));
    try {
      // Garbage signatures, each naming another trusted key set URL: no key is needed to make them.
      const header = (i: number) => ({ alg: "ES256", kid: "k", jku: `${host.origin}/jwks.json?n=${i}` });
      const signatures = Array.from({ length: 40 }, (_, i) => ({
        protected: Buffer.from(JSON.stringify(header(i))).toString("base64url"),
        signature: "AAAA",
      }));
      const error = await verifyAgentCard({ ...card, signatures }, { trustedJku: (u) => u.origin === host.origin })
        .then(() => undefined)
        .catch((e: unknown) => e as AgentCardSignatureError);
      expect(error).toBeInstanceOf(AgentCardSignatureError);
      expect(host.fetched()).toBe(4);
      const reasons = error!.failures.map((f) => f.reason);
      expect(reasons.slice(4, 16).every((r) => r === "its jku is past the 4 a card may name")).toBe(true);
      expect(reasons.slice(16).every((r) => r === "not checked: a card's first 16 are")).toBe(true);
      expect(reasons).toHaveLength(40);
    } finally {
      host.close();
    }
  });

  it("refuses a key set answered with another status than 200 as jose does, naming it", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    for (const status of [204, 304, 404]) {
      let fetched = 0;
      const server = createServer((_req, res) => {
        fetched++;
        res.writeHead(status).end(status === 404 ? "missing" : undefined);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const jku = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
        const signed = await signAgentCard(card, { key: privateKey, kid: "j1", jku });
        await expect(verifyAgentCard(signed, { trustedJku: () => true })).rejects.toThrow(/Expected 200 OK/);
        expect(fetched).toBe(1);
      } finally {
        server.close();
      }
    }
  });

  it("reads a key set's answer to 128 KiB at most", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const host = await keyHost(JSON.stringify({ keys: [], pad: "x".repeat(1 << 20) }));
    try {
      const jku = `${host.origin}/jwks.json`;
      const signed = await signAgentCard(card, { key: privateKey, kid: "j1", jku });
      await expect(verifyAgentCard(signed, { trustedJku: () => true })).rejects.toThrow(/over 131072 bytes/);
    } finally {
      host.close();
    }
  });
});

describe("the empties-dropped form by default", () => {
  const anonymous = (c: typeof card & { securityRequirements?: unknown[] }) => ({
    ...c,
    securityRequirements: [...(c.securityRequirements ?? []), {}],
  });
  const requirement = { schemes: { k: { list: ["read"] } } };
  const secured = { ...card, securityRequirements: [requirement] };

  it.each(["spec", "empties-dropped"] as const)(
    "refuses a card signed in the %s form to which {} was added in securityRequirements",
    async (form) => {
      const { privateKey, publicKey } = await generateKeyPair("ES256");
      const signed = await signAgentCard(secured, { key: privateKey, kid: "k", form });
      // Without empty values both forms are the same text: the genuine card verifies (reported as "spec").
      await expect(verifyAgentCard(signed, { key: publicKey })).resolves.toMatchObject({ verified: [{ index: 0 }] });
      const tampered = anonymous(signed);
      const error = await verifyAgentCard(tampered, { key: publicKey }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AgentCardSignatureError);
      expect((error as Error).message).toContain("signature 0 (kid k, alg ES256): the signature does not match");
      expect((error as Error).message).toContain(
        "the SDKs' empties-dropped form was not tried: it drops $.securityRequirements[1], " +
          "which a signature over it would not cover",
      );
      await expect(verifyAgentCard(tampered, { key: publicKey }, { strict: false })).rejects.toThrow(
        /no signature verified/,
      );
    },
  );

  const withParams = { ...card, capabilities: { streaming: true, extensions: [{ uri: "u", params: { a: 1 } }] } };
  type Base = typeof withParams;

  it.each([
    ["an empty interface", (c: Base) => ({ ...c, supportedInterfaces: [...c.supportedInterfaces, {}] })],
    [
      "an interface with empty strings",
      (c: Base) => ({
        ...c,
        supportedInterfaces: [...c.supportedInterfaces, { url: "", protocolBinding: "", protocolVersion: "" }],
      }),
    ],
    ["an empty skill tag", (c: Base) => ({ ...c, skills: [{ ...c.skills[0]!, tags: ["t", ""] }] })],
    ["an empty security scheme", (c: Base) => ({ ...c, securitySchemes: { anon: {} } })],
    [
      "an empty Struct member",
      (c: Base) => ({
        ...c,
        capabilities: { ...c.capabilities, extensions: [{ uri: "u", params: { a: 1, off: {} } }] },
      }),
    ],
  ])("refuses a card signed in the empties-dropped form to which %s was added", async (_what, tamper) => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const signed = await signAgentCard(withParams, { key: privateKey, kid: "k", form: "empties-dropped" });
    // The attack is real: the tampered card's empties-dropped text is the signed one.
    const dropped = (c: unknown) => canonicalizeAgentCard(c, "empties-dropped").text;
    expect(dropped(tamper(signed))).toBe(dropped(signed));
    await expect(verifyAgentCard(tamper(signed), { key: publicKey })).rejects.toThrow(
      /empties-dropped form was not tried: it drops \$\.\w+/,
    );
  });

  it("refuses a changed scheme in a scope-less requirement, which that form does not cover", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const scopeless = { ...card, securityRequirements: [{ schemes: { mtls: { list: [] } } }] };
    const signed = await signAgentCard(scopeless, { key: privateKey, kid: "k", form: "empties-dropped" });
    const changed = { ...signed, securityRequirements: [{ schemes: { none: { list: [] } } }] };
    await expect(verifyAgentCard(changed, { key: publicKey })).rejects.toThrow(
      "it drops $.securityRequirements[0], which",
    );
    // The genuine card too: its signature covers nothing of the requirement ({"mtls":{}} drops whole).
    await expect(verifyAgentCard(signed, { key: publicKey })).rejects.toThrow("it drops $.securityRequirements[0],");
  });

  it("accepts a genuine card whose form drops empty fields only, and not in strict mode", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const empties = {
      ...secured,
      description: "",
      documentationUrl: "",
      capabilities: {},
      skills: [{ ...card.skills[0]!, description: "", examples: [] }],
      supportedInterfaces: [{ ...card.supportedInterfaces[0]!, tenant: "" }],
    };
    const signed = await signAgentCard(empties, { key: privateKey, kid: "k", form: "empties-dropped" });
    const result = await verifyAgentCard(signed, { key: publicKey });
    expect(result.verified.map((v) => v.form)).toEqual(["empties-dropped"]);
    await expect(verifyAgentCard(signed, { key: publicKey }, { strict: true })).rejects.toThrow(
      /no signature verified/,
    );
    const changed = { ...signed, description: "Changed" };
    await expect(verifyAgentCard(changed, { key: publicKey })).rejects.toThrow(/does not match/);
  });
});
