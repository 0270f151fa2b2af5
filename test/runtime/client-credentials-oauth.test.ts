/**
 * OAuth 2.0 client credentials from the agent card
 * (client/oauth-client-credentials.ts), against a real token endpoint
 * (test/helpers/token-endpoint.ts) and a real v1.0 agent that admits a call
 * only with a bearer token the endpoint issued and has not revoked or
 * expired (test/helpers/credentials-agent.ts): the token is fetched once and
 * shared across calls, fetched anew before it expires, and after a refusal
 * (UnauthenticatedError, or a gateway's bare 401) the call is sent once more
 * with a new token; the token endpoint is found from the card's tokenUrl,
 * its RFC 8414 metadata URL or its OpenID Connect discovery URL, or is the
 * grant's own tokenUrl whatever the card names; with credentialOrigins, a
 * token endpoint the card names gets the secret only at one of them. A token
 * endpoint that never answers holds no call past its own timeout or signal,
 * and fails the fetch at the grant's timeoutMs; one that answers without end
 * is read to 1 MiB.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, A2ATransportError } from "@protoc-gen-a2a/runtime";
import type { ClientCredentialsGrant } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { agentCard, startCredentialsAgent, type CredentialsAgent } from "../helpers/credentials-agent.js";
import { startTokenServer, type TokenServer } from "../helpers/token-endpoint.js";

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
const grpcTransport = (baseUrl: string) => createGrpcTransport({ baseUrl });

let tokens: TokenServer;
let agent: CredentialsAgent;
let gateway: CredentialsAgent;

/** Why a call's bearer token is not accepted, if it is not. */
const refuseBadToken = (h: Headers) => {
  const token = /^Bearer (.+)$/.exec(h.get("authorization") ?? "")?.[1];
  return token && tokens.valid(token) ? undefined : `token ${token ?? "missing"} is not valid`;
};

beforeAll(async () => {
  tokens = await startTokenServer({ clients: { "agent-client": "s3cret" }, expiresIn: 3600 });
  agent = await startCredentialsAgent({ refuse: refuseBadToken });
  gateway = await startCredentialsAgent({ refuse: refuseBadToken, bare401: true });
});
afterAll(() => Promise.all([tokens?.close(), agent?.close(), gateway?.close()]));
beforeEach(() => {
  for (const a of [agent, gateway]) a.seen.length = 0;
  tokens.reset();
});

const GRANT: ClientCredentialsGrant = { clientId: "agent-client", clientSecret: "s3cret", allowInsecureRequests: true };

/** An oauth2 scheme with the client credentials flow at the token server, asking for two scopes. */
const oauthCard = () => ({
  securitySchemes: {
    oauth: {
      oauth2SecurityScheme: {
        flows: { clientCredentials: { tokenUrl: tokens.tokenUrl, scopes: { "a2a.read": "", "a2a.write": "" } } },
      },
    },
  },
  securityRequirements: [{ schemes: { oauth: { list: ["a2a.read", "a2a.write"] } } }],
});

const clientFor = (a: CredentialsAgent, binding: Binding, security: Record<string, unknown>, grant = GRANT) =>
  createA2AServiceClientForCard(agentCard(a, security, [binding]), { credentials: { oauth: grant }, grpcTransport })
    .client;

const bearers = (a: CredentialsAgent) => a.seen.map((r) => r.headers.get("authorization"));

describe.each(BINDINGS)("%s", (binding) => {
  it("fetches one token with the requirement's scopes and sends it on every call", async () => {
    const client = clientFor(agent, binding, oauthCard());
    await Promise.all([client.getTask({ id: "t-1" }), client.getTask({ id: "t-2" })]);
    await client.getTask({ id: "t-3" });
    expect(tokens.requests).toEqual([
      {
        clientId: "agent-client",
        authMethod: "client_secret_basic",
        scope: "a2a.read a2a.write",
        audience: undefined,
        resource: undefined,
      },
    ]);
    expect(new Set(bearers(agent))).toEqual(new Set(["Bearer tok-1"]));
  });

  it("after a refused token, sends the call once more with a new one", async () => {
    const client = clientFor(agent, binding, oauthCard());
    await client.getTask({ id: "t-1" });
    const [first] = bearers(agent);
    tokens.revoke(first!.slice("Bearer ".length));
    expect((await client.getTask({ id: "t-2" })).id).toBe("t-2");
    expect(tokens.requests).toHaveLength(2);
    const second = bearers(agent)[2];
    expect(bearers(agent)).toEqual([first, first, second]);
    expect(second).not.toBe(first);
  });

  it("only once: a second refusal reaches the caller", async () => {
    const client = clientFor(agent, binding, oauthCard());
    await client.getTask({ id: "t-1" });
    agent.seen.length = 0;
    tokens.expiresIn = 0; // every token from now on is expired when it arrives
    tokens.revoke("tok-1");
    const e = await client.getTask({ id: "t-2" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(A2AError);
    expect((e as A2AError).type).toBe("UnauthenticatedError");
    expect(agent.seen).toHaveLength(2);
  });
});

it("retries a stream refused before its first event", async () => {
  const client = clientFor(agent, "HTTP+JSON", oauthCard());
  await client.getTask({ id: "t-1" });
  tokens.revoke("tok-1");
  const events: string[] = [];
  const message = { messageId: "m-1", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };
  for await (const ev of client.sendStreamingMessage({ message })) events.push(String(ev.payload.case));
  expect(events).toEqual(["task", "statusUpdate"]);
  expect(bearers(agent)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
});

it.each(["JSONRPC", "HTTP+JSON"] as const)("%s: retries after a gateway's bare 401 too", async (binding) => {
  const client = clientFor(gateway, binding, oauthCard());
  await client.getTask({ id: "t-1" });
  tokens.revoke("tok-1");
  expect((await client.getTask({ id: "t-2" })).id).toBe("t-2");
  expect(bearers(gateway)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
});

it("fetches a new token before the cached one expires", async () => {
  tokens.expiresIn = 1; // refreshed half a second early (at most half the lifetime)
  const client = clientFor(agent, "JSONRPC", oauthCard());
  await client.getTask({ id: "t-1" });
  await client.getTask({ id: "t-2" });
  expect(tokens.requests).toHaveLength(1);
  await new Promise((resolve) => setTimeout(resolve, 600));
  await client.getTask({ id: "t-3" });
  expect(tokens.requests).toHaveLength(2);
  expect(bearers(agent)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
});

it("finds the token endpoint through OpenID Connect discovery, read once", async () => {
  const oidc = {
    securitySchemes: { oauth: { openIdConnectSecurityScheme: { openIdConnectUrl: tokens.openIdConnectUrl } } },
    securityRequirements: [{ schemes: { oauth: { list: ["openid"] } } }],
  };
  const grant = { ...GRANT, authMethod: "client_secret_post" as const, audience: "https://agent.example" };
  const client = clientFor(agent, "GRPC", oidc, grant);
  await client.getTask({ id: "t-1" });
  tokens.revoke("tok-1");
  await client.getTask({ id: "t-2" });
  expect(tokens.metadataReads).toEqual(["/.well-known/openid-configuration"]);
  expect(tokens.requests.map((r) => [r.authMethod, r.scope, r.audience])).toEqual([
    ["client_secret_post", "openid", "https://agent.example"],
    ["client_secret_post", "openid", "https://agent.example"],
  ]);
});

it("finds it through RFC 8414 metadata when the card's flow has no token URL, with its own scopes", async () => {
  const rfc8414 = {
    securitySchemes: {
      oauth: {
        type: "oauth2",
        oauth2MetadataUrl: tokens.metadataUrl,
        flows: { authorizationCode: { authorizationUrl: "https://id.example/authorize", scopes: {} } },
      },
    },
    security: [{ oauth: ["a2a.read"] }],
  };
  const client = clientFor(agent, "HTTP+JSON", rfc8414, { ...GRANT, scopes: ["mine"], resource: "https://agent" });
  await client.getTask({ id: "t-1" });
  expect(tokens.metadataReads).toEqual(["/.well-known/oauth-authorization-server"]);
  expect(tokens.requests.map((r) => [r.scope, r.resource])).toEqual([["mine", "https://agent"]]);
});

it("names the scheme and the token URL when the token endpoint refuses, and sends the agent nothing", async () => {
  const client = clientFor(agent, "JSONRPC", oauthCard(), { ...GRANT, clientSecret: "wrong" });
  const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(A2ATransportError);
  expect((e as Error).message).toMatch(
    `GetTask: ${agent.rpc} failed: security scheme "oauth": client credentials token from ${tokens.tokenUrl} failed`,
  );
  // What the endpoint said (RFC 6749 §5.2), though the failure's cause keeps none of its answer.
  expect((e as Error).message).toContain("(HTTP 401, invalid_client)");
  expect(agent.seen).toEqual([]);
});

it("keeps no token endpoint answer in a failure: a refused answer may hold a live token", async () => {
  // oauth4webapi refuses an expires_in below 0, and hangs the answer it refused on its error.
  const refused = await startTokenServer({ clients: { "agent-client": "s3cret" }, expiresIn: -5 });
  try {
    const client = clientFor(agent, "JSONRPC", oauthCard(), { ...GRANT, tokenUrl: refused.tokenUrl });
    const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(A2ATransportError);
    expect(refused.requests).toHaveLength(1);
    expect(inspect(e, { depth: 10 })).not.toContain("tok-1");
  } finally {
    await refused.close();
  }
});

it("sends the client secret to the grant's own tokenUrl, not to the endpoint the card names", async () => {
  const elsewhere = await startTokenServer({ clients: { "agent-client": "s3cret" }, expiresIn: 3600 });
  try {
    const card = oauthCard();
    card.securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.tokenUrl = elsewhere.tokenUrl;
    const pinned = clientFor(agent, "JSONRPC", card, { ...GRANT, tokenUrl: tokens.tokenUrl });
    expect((await pinned.getTask({ id: "t-1" })).id).toBe("t-1");
    expect([tokens.requests.length, elsewhere.requests.length]).toEqual([1, 0]);
    // Unpinned, the secret goes where the card says.
    await clientFor(agent, "JSONRPC", card)
      .getTask({ id: "t-2" })
      .catch(() => undefined);
    expect(elsewhere.requests.map((r) => r.clientId)).toEqual(["agent-client"]);
  } finally {
    await elsewhere.close();
  }
});

it("sends the client secret to the card's token endpoint only at one of credentialOrigins", async () => {
  const at = (url: string) => new URL(url).origin;
  const card = agentCard(agent, oauthCard(), ["JSONRPC"]);
  const clientWith = (credentialOrigins: string[], grant = GRANT) =>
    createA2AServiceClientForCard(card, { credentials: { oauth: grant }, credentialOrigins }).client;
  // The agent's origin listed, the token endpoint's not: no secret leaves, no call is sent.
  const e = await clientWith([at(agent.rpc)])
    .getTask({ id: "t-1" })
    .catch((x: unknown) => x);
  expect((e as Error).message).toContain(
    `client credentials token from ${tokens.tokenUrl} failed: the token endpoint is not at one of ` +
      `credentialOrigins (${at(agent.rpc)}); the secret was not sent`,
  );
  expect([tokens.requests, agent.seen]).toEqual([[], []]);
  // Both listed, or the endpoint pinned by the grant: the token is fetched and the call sent.
  expect((await clientWith([at(agent.rpc), at(tokens.tokenUrl)]).getTask({ id: "t-2" })).id).toBe("t-2");
  const pinned = clientWith([at(agent.rpc)], { ...GRANT, tokenUrl: tokens.tokenUrl });
  expect((await pinned.getTask({ id: "t-3" })).id).toBe("t-3");
  expect(tokens.requests).toHaveLength(2);
});

it("refuses an http token endpoint unless told it may", async () => {
  const client = clientFor(agent, "JSONRPC", oauthCard(), { clientId: "agent-client", clientSecret: "s3cret" });
  await expect(client.getTask({ id: "t-1" })).rejects.toThrow(/only requests to HTTPS are allowed/);
  expect(tokens.requests).toEqual([]);
});

it("sends an access token the caller holds as it is", async () => {
  const client = createA2AServiceClientForCard(agentCard(agent, oauthCard(), ["JSONRPC"]), {
    credentials: { oauth: async () => "held-token" },
  }).client;
  await expect(client.getTask({ id: "t-1" })).rejects.toThrow("token held-token is not valid");
  expect(bearers(agent)).toEqual(["Bearer held-token"]); // no retry: nothing to fetch anew
});

describe("a token endpoint that misbehaves", () => {
  let hanging: Server;
  let endless: Server;
  const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  const cardAt = (tokenUrl: string) => ({
    securitySchemes: { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: {} } } } } },
    securityRequirements: [{ schemes: { oauth: { list: [] } } }],
  });
  const clientAt = (tokenUrl: string, grant: ClientCredentialsGrant, timeoutMs?: number) =>
    createA2AServiceClientForCard(agentCard(agent, cardAt(tokenUrl), ["JSONRPC"]), {
      credentials: { oauth: grant },
      ...(timeoutMs ? { timeoutMs } : {}),
    }).client;

  beforeAll(async () => {
    hanging = createServer(() => {});
    endless = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"access_token":"');
      const chunk = "x".repeat(64 * 1024);
      const more = () => {
        while (res.write(chunk)) if (res.destroyed) return;
        res.once("drain", more);
      };
      more();
    });
    for (const server of [hanging, endless]) {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    }
  });
  afterAll(async () => {
    for (const server of [hanging, endless]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("holds no call past its timeoutMs or its signal while the token fetch hangs", async () => {
    const client = clientAt(urlOf(hanging), { ...GRANT, timeoutMs: 60_000 }, 300);
    const timedOut = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    expect(timedOut).toBeInstanceOf(A2ATransportError);
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error("the caller gave up")), 100);
    const aborted = await client.getTask({ id: "t-2" }, { signal: stop.signal }).catch((x: unknown) => x);
    expect(aborted).toBeInstanceOf(A2ATransportError);
    expect(String((aborted as Error).cause)).toContain("the caller gave up");
    expect(agent.seen).toEqual([]);
  });

  it("fails the fetch at the grant's timeoutMs, naming the scheme and the URL", async () => {
    const client = clientAt(urlOf(hanging), { ...GRANT, timeoutMs: 300 });
    const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as Error).message).toContain(`security scheme "oauth": client credentials token from ${urlOf(hanging)}`);
  });

  it("reads an answer without end to 1 MiB, then fails the fetch", async () => {
    const client = clientAt(urlOf(endless), GRANT);
    const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as Error).message).toContain("the answer's body is over 1048576 bytes");
  });
});
