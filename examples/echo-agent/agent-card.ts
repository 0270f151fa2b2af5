/** The example agent's v1.0 agent card: JSONRPC, HTTP+JSON and GRPC interfaces. */
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../generated-samples/v1.0.1/a2a_pb.js";

export interface AgentUrls {
  readonly jsonrpc: string;
  readonly rest: string;
  readonly grpc: string;
}

export function echoAgentCard(urls: AgentUrls, extended = false): AgentCard {
  return create(AgentCardSchema, {
    name: "Echo agent",
    description: "Echoes each text message back as an artifact (protoc-gen-a2a example).",
    version: "0.1.0",
    supportedInterfaces: [
      { url: urls.jsonrpc, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: urls.rest, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: urls.grpc, protocolBinding: "GRPC", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      { id: "echo", name: "Echo", description: "Repeats the text it is sent.", tags: ["example"] },
      ...(extended ? [{ id: "echo-extended", name: "Echo (extended)", description: "Only on the extended card.", tags: ["example"] }] : []),
    ],
  });
}
