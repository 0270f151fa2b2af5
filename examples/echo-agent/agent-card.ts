/** The example agent's v1.0 agent card: JSONRPC, HTTP+JSON and GRPC interfaces, at 1.0 and at 0.3. */
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../generated-samples/v1.0.1/a2a_pb.js";
import type { AgentSecurity } from "./auth-env.js";

/** The card's security (auth-env.ts), and, on the extended card, whom it is for. */
export interface CardAccess {
  readonly security?: Pick<AgentSecurity, "securitySchemes" | "securityRequirements"> | undefined;
  readonly principalId?: string;
}

export interface AgentUrls {
  readonly jsonrpc: string;
  readonly rest: string;
  /** Unset where the agent serves no gRPC (Bun, Deno, Workers: runtimes/). */
  readonly grpc?: string;
}

/**
 * The card; `requiredExtensions` are listed in capabilities.extensions with required: true, which is where the
 * servers read them from (a client that does not declare one gets ExtensionSupportRequiredError).
 */
export function echoAgentCard(
  urls: AgentUrls,
  extended = false,
  requiredExtensions: readonly string[] = [],
  access: CardAccess = {},
): AgentCard {
  const { security, principalId } = access;
  return create(AgentCardSchema, {
    name: "Echo agent",
    description:
      "Echoes each text message back as an artifact (protoc-gen-a2a example)." +
      (principalId === undefined ? "" : ` Extended card for principal ${principalId}.`),
    ...(security
      ? { securitySchemes: security.securitySchemes, securityRequirements: security.securityRequirements }
      : {}),
    version: "0.1.0",
    // The same URLs serve 1.0 and 0.3: the A2A-Version of each call decides (dual-version server).
    supportedInterfaces: (["1.0", "0.3"] as const).flatMap((protocolVersion) => [
      { url: urls.jsonrpc, protocolBinding: "JSONRPC", protocolVersion },
      { url: urls.rest, protocolBinding: "HTTP+JSON", protocolVersion },
      ...(urls.grpc === undefined ? [] : [{ url: urls.grpc, protocolBinding: "GRPC", protocolVersion }]),
    ]),
    capabilities: {
      streaming: true,
      pushNotifications: true,
      // §13.3: the extended card requires authentication, so an open agent has none.
      extendedAgentCard: security !== undefined,
      extensions: requiredExtensions.map((uri) => ({ uri, required: true })),
    },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      { id: "echo", name: "Echo", description: "Repeats the text it is sent.", tags: ["example"] },
      ...(extended
        ? [
            {
              id: "echo-extended",
              name: "Echo (extended)",
              description: "Only on the extended card.",
              tags: ["example"],
            },
          ]
        : []),
    ],
  });
}
