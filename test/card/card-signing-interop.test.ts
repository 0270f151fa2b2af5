/**
 * Agent card signatures between this runtime and @a2a-js/sdk 1.3.0 (spec
 * §8.4), both ways, with ES256, RS256 and EdDSA keys: a card a2a-js signs
 * verifies here, and a card signed here verifies in a2a-js. A card holding
 * an empty value the spec's canonical form keeps shows where the two
 * canonical forms part: a2a-js signs the empties-dropped form and verifies
 * only that form, which signAgentCard produces on request. This runtime
 * accepts that form by default only when it drops empty fields alone (an
 * empty REQUIRED description); when it drops a list element or map entry (a
 * scope-less security requirement, a `{}` added to securityRequirements) the
 * signature does not cover it, and the card is refused.
 */
import { generateAgentCardSignature, verifyAgentCardSignature, type AgentCard } from "@a2a-js/sdk";
import { signAgentCard, verifyAgentCard } from "@protoc-gen-a2a/runtime/card-signing";
import { type CryptoKey, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";

/** A v1.0 ProtoJSON card with every kind of field set, and one implicit field at its default. */
const card = {
  name: "Interop agent",
  description: "Signs and verifies",
  supportedInterfaces: [
    { url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "t1" },
  ],
  provider: { url: "https://example.org", organization: "Example" },
  version: "1.2.3",
  documentationUrl: "https://agent.example/docs",
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extensions: [
      { uri: "urn:ext:one", required: true, params: { depth: 2, labels: ["a", "b"], on: false } },
      { uri: "urn:ext:two", required: false }, // a default the canonical form omits
    ],
  },
  securitySchemes: {
    oauth: {
      oauth2SecurityScheme: {
        flows: { clientCredentials: { tokenUrl: "https://auth.example/token", scopes: { read: "Read" } } },
      },
    },
    key: { apiKeySecurityScheme: { location: "header", name: "X-Key" } },
  },
  securityRequirements: [{ schemes: { oauth: { list: ["read"] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"], examples: ["hi"] }],
  iconUrl: "https://agent.example/icon.png",
};

/** The same card with a scope-less requirement: the spec form keeps {"key":{}}, the SDKs drop it. */
const divergent = { ...card, securityRequirements: [{ schemes: { key: { list: [] } } }] };

interface Pair {
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

const algs = ["ES256", "RS256", "EdDSA"] as const;
const keys = new Map<string, Pair>();

beforeAll(async () => {
  for (const alg of algs) keys.set(alg, await generateKeyPair(alg, { extractable: true }));
  vi.spyOn(console, "debug").mockImplementation(() => undefined); // a2a-js logs each failed entry
});

const pair = (alg: string): Pair => keys.get(alg)!;

/** a2a-js's verifier with one public key, kid-checked. */
const a2aJsVerify = (alg: string, kid: string) =>
  verifyAgentCardSignature(async (k) => {
    if (k !== kid) throw new Error(`unknown kid ${k}`);
    return pair(alg).publicKey;
  });

describe.each(algs)("%s", (alg) => {
  it("a card signed by a2a-js verifies here", async () => {
    const sign = generateAgentCardSignature(pair(alg).privateKey, { alg, kid: "js-1", typ: "JOSE" });
    const signed = await sign(card as unknown as AgentCard);
    const result = await verifyAgentCard(signed, { key: pair(alg).publicKey }, { strict: true });
    expect(result.verified).toEqual([expect.objectContaining({ index: 0, kid: "js-1", alg, form: "spec" })]);
  });

  it("a card signed here verifies in a2a-js", async () => {
    const signed = await signAgentCard(card, { key: pair(alg).privateKey, kid: "ours-1" });
    await expect(a2aJsVerify(alg, "ours-1")(signed as unknown as AgentCard)).resolves.toBeUndefined();
  });

  it("a card signed here and changed afterwards fails in a2a-js", async () => {
    const signed = await signAgentCard(card, { key: pair(alg).privateKey, kid: "ours-1" });
    const changed = { ...signed, description: "Signs, verifies, and was changed" };
    await expect(a2aJsVerify(alg, "ours-1")(changed as unknown as AgentCard)).rejects.toThrow(/No valid signatures/);
  });

  it("a card a2a-js signed and someone changed fails here, naming the signature", async () => {
    const sign = generateAgentCardSignature(pair(alg).privateKey, { alg, kid: "js-1", typ: "JOSE" });
    const signed = (await sign(card as unknown as AgentCard)) as unknown as typeof card;
    const changed = { ...signed, skills: [{ ...card.skills[0], description: "Deletes" }] };
    await expect(verifyAgentCard(changed, { key: pair(alg).publicKey })).rejects.toThrow(
      /signature 0 \(kid js-1, alg \w+\): the signature does not match the card/,
    );
  });
});

describe("a card holding an empty value the spec form keeps", () => {
  const jsSign = (c: object) =>
    generateAgentCardSignature(pair("ES256").privateKey, { alg: "ES256", kid: "js-1", typ: "JOSE" })(
      c as unknown as AgentCard,
    );

  it("an empty REQUIRED field, signed by a2a-js: verifies here over the empties-dropped form, not strict", async () => {
    const emptyField = { ...card, skills: [{ ...card.skills[0]!, description: "" }] };
    const signed = await jsSign(emptyField);
    const result = await verifyAgentCard(signed, { key: pair("ES256").publicKey });
    expect(result.verified[0]?.form).toBe("empties-dropped");
    await expect(verifyAgentCard(signed, { key: pair("ES256").publicKey }, { strict: true })).rejects.toThrow(
      /no signature verified/,
    );
  });

  it("a scope-less requirement, signed by a2a-js: refused, as the signature does not cover it", async () => {
    const signed = await jsSign(divergent);
    await expect(verifyAgentCard(signed, { key: pair("ES256").publicKey })).rejects.toThrow(
      "the SDKs' empties-dropped form was not tried: it drops $.securityRequirements[0],",
    );
  });

  it("{} added to the requirements of a card a2a-js signed: a2a-js accepts it, this runtime refuses it", async () => {
    const signed = (await jsSign(card)) as unknown as typeof card;
    const tampered = { ...signed, securityRequirements: [...signed.securityRequirements, {}] };
    await expect(a2aJsVerify("ES256", "js-1")(tampered as unknown as AgentCard)).resolves.toBeUndefined();
    await expect(verifyAgentCard(tampered, { key: pair("ES256").publicKey })).rejects.toThrow(
      "it drops $.securityRequirements[1],",
    );
  });

  it("signed here in the spec form: a2a-js refuses; in the empties-dropped form: a2a-js accepts", async () => {
    const key = pair("ES256").privateKey;
    const spec = await signAgentCard(divergent, { key, kid: "ours-1" });
    await expect(a2aJsVerify("ES256", "ours-1")(spec as unknown as AgentCard)).rejects.toThrow();
    const dropped = await signAgentCard(divergent, { key, kid: "ours-1", form: "empties-dropped" });
    await expect(a2aJsVerify("ES256", "ours-1")(dropped as unknown as AgentCard)).resolves.toBeUndefined();
  });
});
