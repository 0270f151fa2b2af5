/**
 * Real servers on 127.0.0.1 for a createTaskHandler handler: one HTTP server
 * (JSON-RPC at /rpc, HTTP+JSON at /rest, A2A 1.0 and, through the generated
 * bridge, 0.3) and one HTTP/2 gRPC server (lf.a2a.v1), with a card that
 * declares streaming and push. `clients` gives a v1.0-typed client per way in:
 * the three v1.0 bindings, and v0.3 JSON-RPC through clientForOlder.
 */
import { createServer } from "node:http";
import { createServer as createHttp2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toJson } from "@bufbuild/protobuf";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { nodeHttpListener, type A2aClientOptions, type ErrorContext } from "@protoc-gen-a2a/runtime";
import { clientForOlder, dualVersionHttpHandler, toOlderJson } from "../../generated-samples/a2a_compat.js";
import type { A2AServiceClient, A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { AgentCardSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createA2AServiceJsonRpcClient as createV03JsonRpcClient } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";

export type Way = "JSONRPC 1.0" | "HTTP+JSON 1.0" | "GRPC 1.0" | "JSONRPC 0.3";
export const WAYS: readonly Way[] = ["JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 0.3"];

export interface TaskServers {
  /** The HTTP server's base URL: JSON-RPC at `${httpBase}/rpc`, HTTP+JSON at `${httpBase}/rest`. */
  readonly httpBase: string;
  /** What the servers' onError got (failures that are not A2A errors), as "operation: error". */
  readonly serverErrors: string[];
  client(way: Way, tenant?: string): A2AServiceClient;
  close(): Promise<void>;
}

const card = (base: string, grpc: string) =>
  create(AgentCardSchema, {
    name: "task handler test agent",
    description: "createTaskHandler behind every binding",
    version: "1",
    supportedInterfaces: [
      { url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: grpc, protocolBinding: "GRPC", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s", name: "s", description: "s", tags: ["t"] }],
  });

const listen = (server: { listen: (port: number, host: string, cb: () => void) => unknown }) =>
  new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

export async function startTaskServers(handler: A2AServiceHandler): Promise<TaskServers> {
  let urls = { base: "", grpc: "" };
  const serverErrors: string[] = [];
  const onError = (e: unknown, at: ErrorContext) => void serverErrors.push(`${at.operation}: ${String(e)}`);
  const agentCard = () => card(urls.base, urls.grpc);
  const http = createServer(
    nodeHttpListener(
      dualVersionHttpHandler(handler, {
        jsonrpcPath: "/rpc",
        restBasePath: "/rest",
        onError,
        agentCard: (side) => (side === "newer" ? toJson(AgentCardSchema, agentCard()) : toOlderJson(agentCard()).json),
      }),
    ),
  );
  const sessions = new Set<ServerHttp2Session>();
  const routes = a2aServiceGrpcRoutes({ handler, onError, agentCard: () => toJson(AgentCardSchema, agentCard()) });
  const grpc = createHttp2Server(connectNodeAdapter({ routes, grpc: true, connect: false, grpcWeb: false }));
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  await listen(http);
  await listen(grpc);
  urls = {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    grpc: `http://127.0.0.1:${(grpc.address() as AddressInfo).port}`,
  };
  return {
    httpBase: urls.base,
    serverErrors,
    client(way, tenant) {
      const options = (url: string): A2aClientOptions => (tenant === undefined ? { url } : { url, tenant });
      if (way === "JSONRPC 1.0") return createA2AServiceJsonRpcClient(options(`${urls.base}/rpc`));
      if (way === "HTTP+JSON 1.0") return createA2AServiceRestClient(options(`${urls.base}/rest`));
      if (way === "GRPC 1.0") return createA2AServiceGrpcClientFor(urls.grpc, tenant);
      return clientForOlder(createV03JsonRpcClient({ url: `${urls.base}/rpc` }));
    },
    async close() {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => grpc.close(() => resolve())),
      ]);
    },
  };
}

function createA2AServiceGrpcClientFor(baseUrl: string, tenant: string | undefined): A2AServiceClient {
  return createA2AServiceGrpcClient(createGrpcTransport({ baseUrl }), tenant === undefined ? {} : { tenant });
}
