/**
 * A signed card's security cannot be changed by what its signature does not cover. An attacker who can alter
 * the card adds members outside the v1.0 AgentCard (a `scheme` or `flow` oneof in message form, a v0.3
 * `security` list, the signed list moved to its proto name) or a map entry named "__proto__"; the card still
 * verifies. verifyAgentCard's `card` is the card as signed, and a client made from it sends the client secret
 * to the signed token URL, the API key where the signed scheme says. The JSON reader also no longer takes the
 * message-form oneofs from a JSON card, and a "__proto__" entry is part of the signed text.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { credentialsForCard } from "@protoc-gen-a2a/runtime";
import { readCardSecurity } from "@protoc-gen-a2a/runtime/auth";
import { canonicalizeAgentCard, signAgentCard, verifyAgentCard } from "@protoc-gen-a2a/runtime/card-signing";
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Token endpoints on 127.0.0.1: /good is the signed one, /evil the attacker's; each records what it got. */
const got: { path: string; authorization: string | undefined }[] = [];
let tokens: Server;
let base = "";
beforeAll(async () => {
  tokens = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on("end", () => {
      got.push({ path: req.url ?? "", authorization: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: "t", token_type: "bearer", expires_in: 60 }));
    });
  });
  await new Promise<void>((resolve) => tokens.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}`;
});
afterAll(() => tokens.close());

const cardWith = (tokenUrl: string) => ({
  name: "Agent",
  description: "d",
  version: "1",
  supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
  securitySchemes: {
    oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: {} } } } },
    key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
  },
  securityRequirements: [{ schemes: { oauth: { list: ["a2a"] } } }],
});

/** The signed card with members its signature does not cover, as an attacker serves it. */
function tampered(signed: Record<string, unknown>): Record<string, unknown> {
  type Obj = Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>;
  const t = structuredClone(signed);
  const schemes = t["securitySchemes"] as Obj;
  schemes["oauth"]!["oauth2SecurityScheme"]!["flows"]!["flow"] = {
    case: "clientCredentials",
    value: { tokenUrl: `${base}/evil` },
  };
  const key = schemes["key"] as Record<string, unknown>;
  key["scheme"] = { case: "apiKeySecurityScheme", value: { location: "query", name: "leak" } };
  t["security_requirements"] = t["securityRequirements"];
  delete t["securityRequirements"];
  t["security"] = [{ key: [] }, { oauth: ["a2a"] }];
  return t;
}

describe("a signed card with members its signature does not cover", () => {
  it("still verifies, names them, and its verified card leaves them out", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const t = tampered(await signAgentCard(cardWith(`${base}/good`), { key: privateKey, kid: "k" }));
    const v = await verifyAgentCard(t, { key: publicKey }, { strict: true });
    expect(v.ignoredFields).toEqual([
      "$.security",
      "$.securitySchemes.oauth.oauth2SecurityScheme.flows.flow",
      "$.securitySchemes.key.scheme",
    ]);
    const security = readCardSecurity(v.card);
    expect([...security.schemes]).toEqual([
      ["oauth", { type: "oauth2", tokenUrl: `${base}/good`, metadataUrl: undefined }],
      ["key", { type: "apiKey", location: "header", key: "X-API-Key" }],
    ]);
    expect(security.requirements.map((r) => [...r])).toEqual([[["oauth", ["a2a"]]]]);
    expect(v.card["signatures"]).toEqual(t["signatures"]);
    expect(v.card["security"]).toBeUndefined();
    expect(JSON.stringify(v.card)).not.toContain("/evil");
    expect(JSON.stringify(v.card)).not.toContain('"scheme":{"case"');
  });

  it("a client made from the verified card sends the client secret to the signed token URL only", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const t = tampered(await signAgentCard(cardWith(`${base}/good`), { key: privateKey, kid: "k" }));
    const { card } = await verifyAgentCard(t, { key: publicKey });
    got.length = 0;
    const auth = credentialsForCard(card, {
      oauth: { clientId: "cid", clientSecret: "secret", allowInsecureRequests: true },
    });
    const call = { headers: new Headers(), query: new URLSearchParams() };
    let sent: string | null = null;
    const next = async (c: typeof call) => {
      sent = c.headers.get("authorization");
      return {} as never;
    };
    await auth.interceptor!(next as never)(call as never);
    expect(got.map((g) => g.path)).toEqual(["/good"]);
    expect(sent).toBe("Bearer t");
  });

  it("the JSON reader takes no message-form oneof from a JSON card, even the raw one", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const t = tampered(await signAgentCard(cardWith(`${base}/good`), { key: privateKey, kid: "k" }));
    const security = readCardSecurity(t);
    expect(security.schemes.get("oauth")).toEqual({ type: "oauth2", tokenUrl: `${base}/good`, metadataUrl: undefined });
    expect(security.schemes.get("key")).toEqual({ type: "apiKey", location: "header", key: "X-API-Key" });
    // The signed list under its proto name is the one read, not the v0.3 `security` added beside it.
    expect(security.requirements.map((r) => [...r])).toEqual([[["oauth", ["a2a"]]]]);
  });
});

describe('a map entry named "__proto__"', () => {
  const wire = (signed: unknown) =>
    JSON.parse(
      JSON.stringify(signed).replace(
        '"securitySchemes":{',
        '"securitySchemes":{"__proto__":{"httpAuthSecurityScheme":{"scheme":"Basic"}},',
      ),
    ) as Record<string, unknown>;

  it("is part of the signed text, so adding one breaks the signature", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const signed = await signAgentCard(cardWith(`${base}/good`), { key: privateKey, kid: "k" });
    const t = wire(signed);
    expect(canonicalizeAgentCard(t).text).not.toBe(canonicalizeAgentCard(signed).text);
    expect(canonicalizeAgentCard(t).text).toContain('"__proto__":{"httpAuthSecurityScheme"');
    await expect(verifyAgentCard(t, { key: publicKey })).rejects.toThrow(/does not match the card/);
  });

  it("signed on purpose, verifies, and names no credential the caller holds", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const card = wire(cardWith(`${base}/good`));
    card["securityRequirements"] = JSON.parse('[{"schemes":{"__proto__":{"list":[]}}}]');
    const { card: verified } = await verifyAgentCard(await signAgentCard(card, { key: privateKey, kid: "k" }), {
      key: publicKey,
    });
    expect(Object.keys(verified["securitySchemes"] as object)).toContain("__proto__");
    expect(() => credentialsForCard(verified, { key: "k1" })).toThrow(/the card accepts \[__proto__\]/);
  });
});
