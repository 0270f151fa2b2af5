/**
 * A v1.0 agent from a bare A2AServiceHandler, on 127.0.0.1 over all three bindings: JSON-RPC at /rpc and
 * HTTP+JSON under /rest on one node:http server, gRPC alone on an HTTP/2 server of its own; with the server
 * interceptors given. And the generated v1.0 client of each binding for it.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { type Interceptor, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import {
  type A2AServiceClient,
  type A2AServiceHandler,
  createA2AServiceHttpHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";

export type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
export const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

export interface V10Agent {
  readonly urls: Readonly<Record<Binding, string>>;
  close(): Promise<void>;
}

export async function startV10Agent(
  handler: A2AServiceHandler,
  interceptors: readonly Interceptor[] = [],
): Promise<V10Agent> {
  const core = createA2AServiceHttpHandler({ handler, interceptors: [...interceptors], jsonrpcPath: "/rpc" });
  const http: Server = createServer(nodeHttpListener(core));
  const routes = a2aServiceGrpcRoutes({ handler, interceptors: [...interceptors] });
  const grpc: Http2Server = createHttp2Server(connectNodeAdapter({ routes, grpc: true, connect: false }));
  const sessions = new Set<ServerHttp2Session>();
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  const listen = (s: Server | Http2Server) =>
    new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));
  const [port, grpcPort] = [await listen(http), await listen(grpc)];
  return {
    urls: {
      JSONRPC: `http://127.0.0.1:${port}/rpc`,
      "HTTP+JSON": `http://127.0.0.1:${port}/rest`,
      GRPC: `http://127.0.0.1:${grpcPort}`,
    },
    close: async () => {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([new Promise((r) => http.close(r)), new Promise((r) => grpc.close(r))]);
    },
  };
}

/** The generated v1.0 client of `binding` for the agent. */
export function v10ClientOf(agent: V10Agent, binding: Binding): A2AServiceClient {
  const url = agent.urls[binding];
  if (binding === "JSONRPC") return createA2AServiceJsonRpcClient({ url });
  if (binding === "HTTP+JSON") return createA2AServiceRestClient({ url });
  return createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: url }), { url });
}
