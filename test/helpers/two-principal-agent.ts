/**
 * A task agent behind OpenID Connect on real servers on 127.0.0.1, for the
 * two-principal tests (test/auth/two-principals.test.ts):
 *
 *   agent     createTaskHandler over the given store with the asking agent of
 *             scoping-agent.ts (a first message leaves the task
 *             INPUT_REQUIRED, "answer" completes it), tasks scoped to their
 *             caller (the default policy), push on with a sender that lets
 *             webhooks reach 127.0.0.1, v0.3 configs pushed in their own form
 *   security  the card declares one scheme, `oidc`, OpenID Connect at the
 *             provider's discovery URL, and requires it; every call goes
 *             through authenticate() with jwtBearer({issuer, audience})
 *   servers   dual-servers.ts: card, JSON-RPC, HTTP+JSON and gRPC at A2A 1.0
 *             and 0.3 (the version bridge)
 *   webhook   a node:http server on 127.0.0.1 that answers 200 and records the
 *             path of every delivery
 */
import { create } from "@bufbuild/protobuf";
import type { ErrorContext } from "@protoc-gen-a2a/runtime";
import { authenticate, jwtBearer } from "@protoc-gen-a2a/runtime/auth";
import { createTaskHandler, type TaskStore } from "@protoc-gen-a2a/runtime/task";
import { olderPushPayloads } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { type AgentCard, AgentCardSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { loopbackPushSender, startDualServers, startWebhook } from "./dual-servers.js";
import { askingAgent } from "./scoping-agent.js";

/** What the agent needs of the OpenID provider (helpers/oidc.ts). */
export interface OidcIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly discoveryUrl: string;
}

export interface TwoPrincipalAgent {
  /** The well-known card URL; A2A-Version 1.0 gets the v1.0 card, 0.3 the a2a.json form. */
  readonly cardUrl: string;
  readonly jsonrpcUrl: string;
  readonly restUrl: string;
  /** http://127.0.0.1:<port> of the gRPC server. */
  readonly grpcUrl: string;
  /** http://127.0.0.1:<port> of the webhook. */
  readonly webhookUrl: string;
  /** The path of every webhook delivery, in arrival order. */
  readonly deliveries: readonly string[];
  /** Failures that are not A2A errors (servers' onError, the push sender's given-up deliveries). */
  readonly failures: readonly string[];
  close(): Promise<void>;
}

/** The scheme name the card declares and clients give credentials for. */
export const SCHEME = "oidc";

function agentCard(urls: { jsonrpc: string; rest: string; grpc: string }, oidc: OidcIssuer): AgentCard {
  return create(AgentCardSchema, {
    name: "Two-principal task agent",
    description: "Tasks scoped to their caller behind OpenID Connect (protoc-gen-a2a tests).",
    version: "1",
    supportedInterfaces: (["1.0", "0.3"] as const).flatMap((protocolVersion) => [
      { url: urls.jsonrpc, protocolBinding: "JSONRPC", protocolVersion },
      { url: urls.rest, protocolBinding: "HTTP+JSON", protocolVersion },
      { url: urls.grpc, protocolBinding: "GRPC", protocolVersion },
    ]),
    securitySchemes: {
      [SCHEME]: {
        scheme: { case: "openIdConnectSecurityScheme", value: { openIdConnectUrl: oidc.discoveryUrl } },
      },
    },
    securityRequirements: [{ schemes: { [SCHEME]: { list: [] } } }],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "ask", name: "Ask", description: "Asks back until answered.", tags: ["test"] }],
  });
}

/** Starts the agent over `store` (which the caller closes) behind the provider `oidc`. */
export async function startTwoPrincipalAgent(store: TaskStore, oidc: OidcIssuer): Promise<TwoPrincipalAgent> {
  const deliveries: string[] = [];
  const failures: string[] = [];
  const webhook = await startWebhook((req) => void deliveries.push(req.url ?? ""));
  const sender = loopbackPushSender(failures);
  const handler = createTaskHandler({
    definition: A2AServiceV1_0,
    executor: askingAgent,
    store,
    push: { sender, payload: olderPushPayloads },
    onError: (e) => void failures.push(`task handler: ${String(e)}`),
  });

  let card: AgentCard | undefined;
  const cardOf = () => {
    if (card === undefined) throw new Error("the card is asked for before the servers listen");
    return card;
  };
  const onError = (e: unknown, at: ErrorContext) => void failures.push(`${at.operation ?? "-"}: ${String(e)}`);
  // authenticate reads the card's security, which does not depend on the URLs: a card with none is enough.
  const securityCard = agentCard({ jsonrpc: "", rest: "", grpc: "" }, oidc);
  const interceptors = [
    authenticate({
      card: securityCard,
      verifiers: { [SCHEME]: jwtBearer({ issuer: oidc.issuer, audience: oidc.audience }) },
    }),
  ];

  const servers = await startDualServers({ handler, interceptors, onError, card: cardOf });
  const { base, grpcUrl } = servers;
  const urls = { jsonrpc: servers.jsonrpcUrl, rest: servers.restUrl, grpc: grpcUrl };
  card = agentCard(urls, oidc);
  return {
    cardUrl: `${base}/.well-known/agent-card.json`,
    jsonrpcUrl: urls.jsonrpc,
    restUrl: urls.rest,
    grpcUrl,
    webhookUrl: webhook.url,
    deliveries,
    failures,
    async close() {
      await servers.close();
      await sender.idle();
      await webhook.close();
    },
  };
}
