/**
 * A v1.0 task handler served the way the tests' agents serve it, on real
 * servers on 127.0.0.1: one node:http server (the card at
 * /.well-known/agent-card.json, JSON-RPC at /a2a/jsonrpc, HTTP+JSON at
 * /a2a/rest; A2A 1.0, and 0.3 through the version bridge) and one HTTP/2 gRPC
 * server (lf.a2a.v1, and a2a.v1 over bridgeToOlder), both with the given
 * interceptors and onError. The card is asked for on each card request, so
 * it may be made once the URLs are known (the servers listen before it).
 * Also the webhook and the push sender those agents deliver to.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { toJson } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { type ErrorContext, grpcFallback, type Interceptor, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { createPushSender, type PushSender } from "@protoc-gen-a2a/runtime/task";
import { bridgeToOlder, dualVersionHttpHandler, toOlderJson } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV0_3 } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes as a2aServiceGrpcRoutes03 } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { type A2AServiceHandler, A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { type AgentCard, AgentCardSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

export interface DualServersOptions {
  readonly handler: A2AServiceHandler;
  readonly interceptors: readonly Interceptor[];
  readonly onError: (e: unknown, at: ErrorContext) => void;
  /** The card both versions' card requests get (the v0.3 form converted from it). */
  readonly card: () => AgentCard;
}

export interface DualServers {
  /** http://127.0.0.1:<port> of the node:http server. */
  readonly base: string;
  readonly jsonrpcUrl: string;
  readonly restUrl: string;
  /** http://127.0.0.1:<port> of the gRPC server. */
  readonly grpcUrl: string;
  close(): Promise<void>;
}

export const listenOnLoopback = (server: Server | Http2Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

export const closeServer = (server: Server | Http2Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
  });

export async function startDualServers(options: DualServersOptions): Promise<DualServers> {
  const { handler, interceptors, onError, card } = options;
  const http = createServer(
    nodeHttpListener(
      dualVersionHttpHandler(handler, {
        jsonrpcPath: "/a2a/jsonrpc",
        restBasePath: "/a2a/rest",
        interceptors,
        onError,
        agentCard: (side) => (side === "newer" ? toJson(AgentCardSchema, card()) : toOlderJson(card()).json),
      }),
    ),
  );
  const routes10 = a2aServiceGrpcRoutes({
    handler,
    interceptors,
    onError,
    agentCard: () => toJson(AgentCardSchema, card()),
  });
  const routes03 = a2aServiceGrpcRoutes03({
    handler: bridgeToOlder(handler).handler,
    interceptors,
    onError,
    agentCard: () => toOlderJson(card()).json,
  });
  const grpc = createHttp2Server(
    connectNodeAdapter({
      routes: (router) => {
        routes10(router);
        routes03(router);
      },
      grpc: true,
      connect: false,
      grpcWeb: false,
      fallback: grpcFallback([A2AServiceV1_0, A2AServiceV0_3]),
    }),
  );
  const sessions = new Set<ServerHttp2Session>();
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  const base = `http://127.0.0.1:${await listenOnLoopback(http)}`;
  const grpcUrl = `http://127.0.0.1:${await listenOnLoopback(grpc)}`;
  return {
    base,
    jsonrpcUrl: `${base}/a2a/jsonrpc`,
    restUrl: `${base}/a2a/rest`,
    grpcUrl,
    async close() {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([closeServer(http), closeServer(grpc)]);
    },
  };
}

export interface TestWebhook {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  close(): Promise<void>;
}

/** A webhook on 127.0.0.1: each delivery, once read, goes to `seen`, which answers its status (default 200). */
export async function startWebhook(seen: (req: IncomingMessage) => number | undefined): Promise<TestWebhook> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.statusCode = seen(req) ?? 200;
      res.end();
    });
  });
  const url = `http://127.0.0.1:${await listenOnLoopback(server)}`;
  return {
    url,
    async close() {
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}

/** The tests' push sender: webhooks on 127.0.0.1, two attempts 50 ms apart, each failure into `failures`. */
export function loopbackPushSender(failures: string[]): PushSender {
  return createPushSender({
    allowHosts: ["127.0.0.1"],
    attempts: 2,
    initialBackoffMs: 50,
    timeoutMs: 5_000,
    onError: (e) => void failures.push(`push: ${e.message}`),
  });
}
