/**
 * Mutual TLS from the agent card (mtlsSecurityScheme; client/mtls-fetch.ts):
 * a real v1.0 agent serving HTTPS and gRPC over TLS that asks for a client
 * certificate signed by its CA (test/helpers/credentials-agent.ts), with
 * certificates made by openssl (test/helpers/openssl-pki.ts). The client
 * presents its certificate on JSON-RPC and HTTP+JSON (an undici Agent behind
 * fetch) and on gRPC (connect-node's transport, made for it or by the
 * caller's grpcTransport), alone or with a bearer token (an AND requirement).
 */
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2ATransportError } from "@protoc-gen-a2a/runtime";
import type { MutualTlsCredential } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { agentCard, startCredentialsAgent, type CredentialsAgent } from "../helpers/credentials-agent.js";
import { makePki, type OpensslPki } from "../helpers/openssl-pki.js";

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

const pki: OpensslPki | undefined = makePki("agent-client");
/** A client certificate of another root, which the agent does not trust. */
const stranger = pki && makePki("stranger")?.client;

const MTLS = {
  securitySchemes: {
    cert: { mtlsSecurityScheme: {} },
    jwt: { httpAuthSecurityScheme: { scheme: "Bearer" } },
  },
  securityRequirements: [{ schemes: { cert: { list: [] }, jwt: { list: [] } } }, { schemes: { cert: { list: [] } } }],
};

describe.skipIf(!pki)("mutual TLS (needs openssl)", () => {
  let agent: CredentialsAgent;
  let tls: MutualTlsCredential;
  beforeAll(async () => {
    agent = await startCredentialsAgent({ tls: { ...pki!.server, ca: pki!.ca } });
    tls = { ...pki!.client, ca: pki!.ca };
  });
  afterAll(() => agent?.close());
  beforeEach(() => {
    agent.seen.length = 0;
  });

  it.each(BINDINGS)("%s: presents the client certificate, without grpcTransport on gRPC", async (binding) => {
    const { client, selected } = createA2AServiceClientForCard(agentCard(agent, MTLS, [binding]), {
      credentials: { cert: tls },
    });
    expect(selected.binding).toBe(binding);
    expect((await client.getTask({ id: "t-1" })).id).toBe("t-1");
    const seen = agent.seen.at(-1)!;
    expect([seen.via, seen.clientCn, seen.headers.get("authorization")]).toEqual([
      binding === "GRPC" ? "grpc" : "http",
      "agent-client",
      null,
    ]);
  });

  it.each(BINDINGS)("%s: with a bearer token as well, when the first requirement asks for both", async (binding) => {
    const { client } = createA2AServiceClientForCard(agentCard(agent, MTLS, [binding]), {
      credentials: { cert: tls, jwt: "token-1" },
      grpcTransport: (baseUrl, certificate) => createGrpcTransport({ baseUrl, nodeOptions: { ...certificate } }),
    });
    await client.getTask({ id: "t-1" });
    const seen = agent.seen.at(-1)!;
    expect([seen.clientCn, seen.headers.get("authorization")]).toEqual(["agent-client", "Bearer token-1"]);
  });

  it("gives grpcTransport the certificate, and the card's scheme-less gRPC URL https", async () => {
    const given: [string, MutualTlsCredential | undefined][] = [];
    const card = agentCard(agent, MTLS, ["GRPC"]);
    const iface = (card["supportedInterfaces"] as { url: string }[])[0]!;
    iface.url = iface.url.replace("https://", "");
    createA2AServiceClientForCard(card, {
      credentials: { cert: tls },
      grpcTransport: (baseUrl, certificate) => {
        given.push([baseUrl, certificate]);
        return createGrpcTransport({ baseUrl });
      },
    });
    expect(given).toEqual([[agent.grpc, tls]]);
  });

  it("fails before connecting when the card asks for a certificate and none is given", () => {
    expect(() => createA2AServiceClientForCard(agentCard(agent, MTLS), { credentials: { jwt: "token-1" } })).toThrow(
      "the card accepts [cert, jwt] or [cert]; credentials were given for [jwt]",
    );
    expect(agent.seen).toEqual([]);
  });

  it.each(BINDINGS)("%s: a certificate another CA signed does not get through", async (binding) => {
    const { client } = createA2AServiceClientForCard(agentCard(agent, MTLS, [binding]), {
      credentials: { cert: { ...stranger!, ca: pki!.ca } },
    });
    await expect(client.getTask({ id: "t-1" })).rejects.toBeInstanceOf(A2ATransportError);
    expect(agent.seen).toEqual([]);
  });
});
