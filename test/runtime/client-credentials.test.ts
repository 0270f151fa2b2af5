/**
 * Client credentials from the agent card (spec §4.5; client/credentials.ts):
 * a real v1.0 agent on 127.0.0.1 (test/helpers/credentials-agent.ts) records
 * what each request carried, on JSON-RPC, HTTP+JSON and gRPC. The client
 * takes the first security requirement it holds every credential for, sends
 * API keys where the scheme says, HTTP Bearer and Basic, and fails before any
 * request when no requirement is met. OAuth 2.0 client credentials, OpenID
 * Connect discovery and the one retry after a refused token are in
 * client-credentials-oauth.test.ts; mutual TLS in client-credentials-mtls.test.ts.
 */
import { create } from "@bufbuild/protobuf";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { credentialsForCard, credentialsInterceptor, NoCredentialsError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clientForCard } from "../../generated-samples/a2a_compat.js";
import { createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { AgentCardSchema, Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { agentCard, startCredentialsAgent, type CredentialsAgent } from "../helpers/credentials-agent.js";
import { startV03EchoAgent, type RunningV03Agent } from "../helpers/v03-echo-agent.js";

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
const grpcTransport = (baseUrl: string) => createGrpcTransport({ baseUrl });

/** A v1.0 card's schemes, one of each kind, and requirements [oidc AND mtls] OR [apiKey] OR [bearer]. */
const SECURITY = {
  securitySchemes: {
    apiKey: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
    bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } },
    basic: { httpAuthSecurityScheme: { scheme: "Basic" } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: "https://id.example/.well-known/openid-configuration" } },
    mtls: { mtlsSecurityScheme: {} },
  },
  securityRequirements: [
    { schemes: { oidc: { list: ["a2a"] }, mtls: { list: [] } } },
    { schemes: { apiKey: { list: [] } } },
    { schemes: { bearer: { list: [] } } },
  ],
};

const apiKeyCard = (location: string, name: string) => ({
  securitySchemes: { key: { apiKeySecurityScheme: { location, name } } },
  securityRequirements: [{ schemes: { key: { list: [] } } }],
});

let agent: CredentialsAgent;
beforeAll(async () => {
  agent = await startCredentialsAgent();
});
afterAll(() => agent?.close());
beforeEach(() => {
  agent.seen.length = 0;
});

/** The last request the agent received on the binding's server. */
function lastSeen(binding: Binding) {
  const via = binding === "GRPC" ? "grpc" : "http";
  const hit = agent.seen.filter((r) => r.via === via).at(-1);
  if (!hit) throw new Error(`the agent saw no ${binding} request`);
  return hit;
}

/** A client for the card's interface of `binding`, and one GetTask through it. */
async function getTaskOver(binding: Binding, security: Record<string, unknown>, credentials: Record<string, never>) {
  const { client, selected } = createA2AServiceClientForCard(agentCard(agent, security, [binding]), {
    credentials,
    grpcTransport,
  });
  expect(selected.binding).toBe(binding);
  const task = await client.getTask({ id: "t-1" });
  expect(task.id).toBe("t-1");
  return lastSeen(binding);
}

describe("choosing from the card's security requirements", () => {
  it("takes the first requirement whose every scheme the client holds a credential for", async () => {
    const both = { apiKey: "key-1", bearer: "token-1" };
    expect(credentialsForCard(agentCard(agent, SECURITY), both).schemes).toEqual(["apiKey"]);
    const seen = await getTaskOver("JSONRPC", SECURITY, both as never);
    expect([seen.headers.get("x-api-key"), seen.headers.get("authorization")]).toEqual(["key-1", null]);

    const bearerOnly = { bearer: "token-1", basic: { username: "u", password: "p" } };
    expect(credentialsForCard(agentCard(agent, SECURITY), bearerOnly).schemes).toEqual(["bearer"]);
    const again = await getTaskOver("JSONRPC", SECURITY, bearerOnly as never);
    expect([again.headers.get("x-api-key"), again.headers.get("authorization")]).toEqual([null, "Bearer token-1"]);
  });

  it("reads a v0.3 a2a.json card: flat schemes with `type` and `in`, requirements under `security`", () => {
    const v03 = {
      protocolVersion: "0.3.0",
      url: agent.rpc,
      securitySchemes: {
        oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://id.example/token", scopes: {} } } },
        key: { type: "apiKey", in: "query", name: "api_key" },
      },
      security: [{ oauth: ["read"] }, { key: [] }],
    };
    expect(credentialsForCard(v03, { key: "k" }).schemes).toEqual(["key"]);
    expect(credentialsForCard(v03, { key: "k", oauth: "a-token" }).schemes).toEqual(["oauth"]);
    expect(() => credentialsForCard(v03, {})).toThrow("the card accepts [oauth] or [key]; no credentials were given");
  });

  it("reads a card given as a protobuf-es message", async () => {
    const card = create(AgentCardSchema, {
      name: "message card",
      supportedInterfaces: [{ url: agent.rest, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
      securitySchemes: {
        key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-Key" } } },
      },
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    });
    const { client } = createA2AServiceClientForCard(card, { credentials: { key: "from-a-message" } });
    await client.getTask({ id: "t-1" });
    expect(lastSeen("HTTP+JSON").headers.get("x-key")).toBe("from-a-message");
  });

  it("fails before any request when no requirement is met, naming what the card accepts", () => {
    const card = agentCard(agent, SECURITY);
    const make = () =>
      createA2AServiceClientForCard(card, { credentials: { basic: { username: "u", password: "p" } } });
    expect(make).toThrow(NoCredentialsError);
    expect(make).toThrow("the card accepts [oidc, mtls] or [apiKey] or [bearer]; credentials were given for [basic]");
    try {
      make();
    } catch (e) {
      expect((e as NoCredentialsError).accepted).toEqual([["oidc", "mtls"], ["apiKey"], ["bearer"]]);
    }
    expect(agent.seen).toEqual([]);
  });

  it('takes an empty string for no credential, as `process.env.KEY ?? ""` gives', async () => {
    const card = agentCard(agent, SECURITY);
    expect(() => credentialsForCard(card, { apiKey: "" })).toThrow(NoCredentialsError);
    expect(() => credentialsForCard(card, { apiKey: "" })).toThrow(
      "the card accepts [oidc, mtls] or [apiKey] or [bearer]; no credentials were given",
    );
    expect(credentialsForCard(card, { apiKey: "", bearer: "token-1" }).schemes).toEqual(["bearer"]);
    const seen = await getTaskOver("JSONRPC", SECURITY, { apiKey: "", bearer: "token-1" } as never);
    expect([seen.headers.get("x-api-key"), seen.headers.get("authorization")]).toEqual([null, "Bearer token-1"]);
  });

  it("names the schemes it cannot use: undeclared, or of a kind it does not know", () => {
    const card = {
      securitySchemes: { odd: { type: "kerberos" } },
      securityRequirements: [{ schemes: { odd: { list: [] } } }, { schemes: { ghost: { list: [] } } }],
    };
    expect(() => credentialsForCard(card, { odd: "x" })).toThrow(
      'the card accepts [odd] or [ghost]; credentials were given for [odd]; scheme "odd": scheme type "kerberos" ' +
        'is not one this client knows; scheme "ghost" is not in securitySchemes',
    );
  });

  it("sends nothing when the card requires nothing; without requirements, the first declared scheme held", async () => {
    const open = { securitySchemes: SECURITY.securitySchemes, securityRequirements: [{ schemes: {} }] };
    expect(credentialsForCard(open, { apiKey: "k" }).schemes).toEqual([]);
    const unlisted = { securitySchemes: SECURITY.securitySchemes };
    expect(credentialsForCard(unlisted, { bearer: "b", apiKey: "k" }).schemes).toEqual(["apiKey"]);
    expect(credentialsForCard(unlisted, {}).schemes).toEqual([]);
  });

  it("with authentication optional, sends what it holds, wherever the card lists the empty requirement", () => {
    const apiKey = { schemes: { apiKey: { list: [] } } };
    for (const securityRequirements of [
      [{ schemes: {} }, apiKey],
      [apiKey, { schemes: {} }],
    ]) {
      const optional = { securitySchemes: SECURITY.securitySchemes, securityRequirements };
      expect(credentialsForCard(optional, { apiKey: "k" }).schemes).toEqual(["apiKey"]);
      expect(credentialsForCard(optional, { bearer: "b" }).schemes).toEqual([]);
      expect(credentialsForCard(optional, {}).schemes).toEqual([]);
    }
  });

  it("without the credentials option, checks nothing and sends nothing for the card's security", async () => {
    const { client } = createA2AServiceClientForCard(agentCard(agent, SECURITY, ["JSONRPC"]), {
      headers: { authorization: "Bearer own" },
    });
    await client.getTask({ id: "t-1" });
    expect(lastSeen("JSONRPC").headers.get("authorization")).toBe("Bearer own");
  });

  it("refuses a credential of the wrong shape for its scheme, naming the scheme", () => {
    const card = agentCard(agent, SECURITY);
    expect(() => credentialsForCard(card, { apiKey: { username: "u", password: "p" } })).toThrow(
      'credentials for security scheme "apiKey" (apiKey) must be a string or a function returning one',
    );
  });
});

describe("API keys", () => {
  const cases: [Binding, string, (seen: ReturnType<typeof lastSeen>) => string | null][] = [
    ["JSONRPC", "header", (s) => s.headers.get("x-api-key")],
    ["HTTP+JSON", "header", (s) => s.headers.get("x-api-key")],
    ["GRPC", "header", (s) => s.headers.get("x-api-key")],
    ["JSONRPC", "query", (s) => new URL(s.url, "http://x").searchParams.get("X-API-Key")],
    ["HTTP+JSON", "query", (s) => new URL(s.url, "http://x").searchParams.get("X-API-Key")],
    ["GRPC", "query", (s) => s.headers.get("x-api-key")], // gRPC has no query: the metadata entry
    ["JSONRPC", "cookie", (s) => s.headers.get("cookie")],
    ["HTTP+JSON", "cookie", (s) => s.headers.get("cookie")],
    ["GRPC", "cookie", (s) => s.headers.get("cookie")],
  ];
  it.each(cases)("%s: in the %s the scheme names", async (binding, location, read) => {
    const seen = await getTaskOver(binding, apiKeyCard(location, "X-API-Key"), { key: "k 1;2" } as never);
    expect(read(seen)).toBe(location === "cookie" ? "X-API-Key=k%201%3B2" : "k 1;2");
  });

  it("keeps the request's own query parameters and the URL in errors free of the key", async () => {
    const { client } = createA2AServiceClientForCard(agentCard(agent, apiKeyCard("query", "api_key"), ["HTTP+JSON"]), {
      credentials: { key: "secret-key" },
    });
    await client.getTask({ id: "t-1", historyLength: 2 });
    const query = new URL(lastSeen("HTTP+JSON").url, "http://x").searchParams;
    expect([query.get("historyLength"), query.get("api_key")]).toEqual(["2", "secret-key"]);
  });

  it("calls a key function for every request, async ones too", async () => {
    let n = 0;
    const { client } = createA2AServiceClientForCard(agentCard(agent, apiKeyCard("header", "X-Key"), ["JSONRPC"]), {
      credentials: { key: async () => `key-${++n}` },
    });
    for (let i = 0; i < 3; i++) await client.getTask({ id: "t-1" });
    expect(agent.seen.map((r) => r.headers.get("x-key"))).toEqual(["key-1", "key-2", "key-3"]);
  });
});

describe("HTTP authentication", () => {
  const bearer = {
    securitySchemes: { jwt: { httpAuthSecurityScheme: { scheme: "bearer" } } },
    securityRequirements: [{ schemes: { jwt: { list: [] } } }],
  };
  it.each(BINDINGS)("%s: a bearer token function is called for every request", async (binding) => {
    let n = 0;
    const { client } = createA2AServiceClientForCard(agentCard(agent, bearer, [binding]), {
      credentials: { jwt: () => `token-${++n}` },
      grpcTransport,
    });
    for (let i = 0; i < 3; i++) await client.getTask({ id: "t-1" });
    const via = binding === "GRPC" ? "grpc" : "http";
    const sent = agent.seen.filter((r) => r.via === via).map((r) => r.headers.get("authorization"));
    expect(sent).toEqual(["Bearer token-1", "Bearer token-2", "Bearer token-3"]);
  });

  it.each(BINDINGS)("%s: Basic as base64 of the UTF-8 user:password", async (binding) => {
    const basic = {
      securitySchemes: { b: { httpAuthSecurityScheme: { scheme: "Basic" } } },
      securityRequirements: [{ schemes: { b: { list: [] } } }],
    };
    const seen = await getTaskOver(binding, basic, { b: { username: "jürgen", password: "pa:ss wörd" } } as never);
    expect(seen.headers.get("authorization")).toBe(`Basic ${Buffer.from("jürgen:pa:ss wörd").toString("base64")}`);
  });

  it("refuses a Basic user name with a colon before any request", async () => {
    const basic = {
      securitySchemes: { b: { httpAuthSecurityScheme: { scheme: "Basic" } } },
      securityRequirements: [{ schemes: { b: { list: [] } } }],
    };
    const { client } = createA2AServiceClientForCard(agentCard(agent, basic, ["JSONRPC"]), {
      credentials: { b: { username: "a:b", password: "p" } },
    });
    await expect(client.getTask({ id: "t-1" })).rejects.toThrow('security scheme "b" contains a colon');
    expect(agent.seen).toEqual([]);
  });

  it("refuses two schemes that both need the Authorization header", () => {
    const card = {
      securitySchemes: SECURITY.securitySchemes,
      securityRequirements: [{ schemes: { bearer: { list: [] }, basic: { list: [] } } }],
    };
    expect(() => credentialsForCard(card, { bearer: "t", basic: { username: "u", password: "p" } })).toThrow(
      "security schemes bearer and basic would all need the Authorization header",
    );
  });
});

describe("without a card", () => {
  it("credentialsInterceptor sends the given schemes' credentials on a client made for a URL", async () => {
    const client = createA2AServiceJsonRpcClient({
      url: agent.rpc,
      interceptors: [
        credentialsInterceptor(
          {
            key: { type: "apiKey", in: "header", name: "X-API-Key" },
            jwt: { httpAuthSecurityScheme: { scheme: "Bearer" } },
          },
          { key: "k", jwt: async () => "t" },
        ),
      ],
    });
    await client.getTask({ id: "t-1" });
    const seen = lastSeen("JSONRPC");
    expect([seen.headers.get("x-api-key"), seen.headers.get("authorization")]).toEqual(["k", "Bearer t"]);
  });

  it("credentialsInterceptor reads a card message's scheme map too (its oneofs)", async () => {
    const card = create(AgentCardSchema, {
      securitySchemes: {
        key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-API-Key" } } },
      },
    });
    const client = createA2AServiceJsonRpcClient({
      url: agent.rpc,
      interceptors: [credentialsInterceptor(card.securitySchemes, { key: "k" })],
    });
    await client.getTask({ id: "t-1" });
    expect(lastSeen("JSONRPC").headers.get("x-api-key")).toBe("k");
  });

  it("sends nothing for a scheme given an empty string, and names a function that returns one", async () => {
    const schemes = { key: { type: "apiKey", in: "header", name: "X-API-Key" } };
    const client = createA2AServiceJsonRpcClient({
      url: agent.rpc,
      interceptors: [credentialsInterceptor(schemes, { key: "" })],
    });
    await client.getTask({ id: "t-1" });
    expect(lastSeen("JSONRPC").headers.get("x-api-key")).toBe(null);
    const empty = createA2AServiceJsonRpcClient({
      url: agent.rpc,
      interceptors: [credentialsInterceptor(schemes, { key: () => "" })],
    });
    await expect(empty.getTask({ id: "t-1" })).rejects.toThrow(
      'the credential function of security scheme "key" returned an empty string',
    );
  });

  it("never shows a query API key in a failure, though fetch names the URL it could not parse", async () => {
    const client = createA2AServiceJsonRpcClient({
      url: "http://127.0.0.1:99999/rpc",
      interceptors: [
        credentialsInterceptor({ key: { type: "apiKey", in: "query", name: "api_key" } }, { key: "S3CRET" }),
      ],
    });
    const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    const chain: string[] = [];
    for (let x: unknown = e; x instanceof Error; x = x.cause) chain.push(x.message);
    expect(chain[0]).toContain("GetTask: POST http://127.0.0.1:99999/rpc failed");
    expect(chain.join("\n")).not.toContain("S3CRET");
  });

  it("refuses an HTTP scheme name that is no token, and never quotes a credential fetch refuses", async () => {
    const schemes = (scheme: string) => ({ h: { type: "http", scheme } });
    expect(() => credentialsInterceptor(schemes("Bearer\n"), { h: "T0KEN" })).toThrow(
      'security scheme "h" names HTTP scheme "Bearer\\n", no token',
    );
    const client = createA2AServiceJsonRpcClient({
      url: "http://127.0.0.1:9/rpc",
      interceptors: [credentialsInterceptor(schemes("Bearer"), { h: "T0KEN\nX-Injected: 1" })],
    });
    const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    const chain: string[] = [];
    for (let x: unknown = e; x instanceof Error; x = x.cause) chain.push(x.message);
    expect(chain.join("\n")).toContain('the credential cannot be sent in header "authorization"');
    expect(chain.join("\n")).not.toContain("T0KEN");
  });

  it("names a credential for a scheme it was not given", () => {
    expect(() => credentialsInterceptor({}, { key: "k" })).toThrow(
      'credentials name security scheme "key", which securitySchemes lacks',
    );
  });
});

describe("under the version bridge", () => {
  let v03: RunningV03Agent;
  beforeAll(async () => {
    v03 = await startV03EchoAgent();
  });
  afterAll(() => v03?.close());

  it.each(["JSONRPC", "HTTP+JSON"] as const)(
    "%s: a v0.3 card's credentials go on the older client's requests",
    async (binding) => {
      const card = {
        ...(v03.card as Record<string, unknown>),
        securitySchemes: { key: { type: "apiKey", in: "header", name: "X-API-Key" } },
        security: [{ key: [] }],
      };
      const sent: (string | null)[] = [];
      const recording: typeof fetch = (input, init) => {
        sent.push(new Headers(init?.headers).get("x-api-key"));
        return fetch(input, init);
      };
      const { client, bridged } = clientForCard(card, {
        bindings: [binding],
        credentials: { key: "k-03" },
        fetch: recording,
      });
      expect(bridged).toBe(true);
      const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };
      await client.sendMessage({ message, configuration: { returnImmediately: false } });
      expect(sent).toEqual(["k-03"]);
    },
  );
});
