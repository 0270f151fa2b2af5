/**
 * A real v1.0 agent for client credential and interceptor tests, on
 * 127.0.0.1: the generated stubs' HTTP handler (JSON-RPC at /rpc, HTTP+JSON
 * under /rest) and gRPC routes (HTTP/2), over plain TCP or, given
 * certificates, TLS that asks for a client certificate. It records every
 * request as it arrived (URL, headers or metadata, the client certificate's
 * CN) and can refuse calls as an authenticating server does: a server
 * interceptor throws UnauthenticatedError (HTTP 401, gRPC UNAUTHENTICATED)
 * when `refuse` says why, or, with `bare401`, the HTTP server answers a bare
 * 401 with WWW-Authenticate and a text body before any A2A handling, as a
 * gateway in front of an agent would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import {
  createSecureServer,
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from "node:http2";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { A2AError, type Interceptor, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { createA2AServiceHttpHandler, type A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { Role, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";

export interface SeenRequest {
  readonly via: "http" | "grpc";
  /** Path and query as sent. */
  readonly url: string;
  readonly headers: Headers;
  /** The CN of the verified client certificate, if the connection had one. */
  readonly clientCn: string | undefined;
}

export interface CredentialsAgent {
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

export interface CredentialsAgentOptions {
  /** Why a call is refused (UnauthenticatedError), from its headers or metadata; undefined admits it. */
  readonly refuse?: (headers: Headers) => string | undefined;
  /** Refuse HTTP requests with a bare 401 (text/plain) instead of UnauthenticatedError. */
  readonly bare401?: boolean;
  /** Serve TLS with this server certificate, asking for a client certificate signed by `ca`. */
  readonly tls?: { readonly cert: string; readonly key: string; readonly ca: string };
}

/** A task that completed at once; a message echoing the request's; a stream of two events. */
export const agentHandler: A2AServiceHandler = {
  getTask: async ({ id }) => ({ id, contextId: "ctx", status: { state: TaskState.COMPLETED } }),
  sendMessage: async ({ message }) => ({
    payload: {
      case: "message",
      value: { messageId: `re-${message?.messageId}`, role: Role.AGENT, parts: message?.parts ?? [] },
    },
  }),
  async *sendStreamingMessage({ message }) {
    const id = `task-${message?.messageId}`;
    yield { payload: { case: "task", value: { id, contextId: "ctx", status: { state: TaskState.WORKING } } } };
    yield {
      payload: {
        case: "statusUpdate",
        value: { taskId: id, contextId: "ctx", status: { state: TaskState.COMPLETED } },
      },
    };
  },
};

function headersOf(raw: IncomingMessage["headers"]): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (k.startsWith(":") || v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
  }
  return h;
}

function clientCn(socket: unknown): string | undefined {
  const tls = socket as Partial<TLSSocket>;
  if (!tls.getPeerCertificate || !tls.authorized) return undefined;
  const cn = tls.getPeerCertificate().subject?.CN;
  return Array.isArray(cn) ? cn[0] : cn;
}

export async function startCredentialsAgent(options: CredentialsAgentOptions = {}): Promise<CredentialsAgent> {
  const seen: SeenRequest[] = [];
  const refuse = options.refuse;
  const interceptors: Interceptor[] = refuse
    ? [
        (next) => async (call) => {
          const why = refuse(call.context.headers);
          if (why) throw new A2AError("UnauthenticatedError", why);
          return next(call);
        },
      ]
    : [];
  const record = (via: SeenRequest["via"], req: IncomingMessage | Http2ServerRequest) =>
    seen.push({ via, url: req.url ?? "", headers: headersOf(req.headers), clientCn: clientCn(req.socket) });
  const listener = nodeHttpListener(
    createA2AServiceHttpHandler({ handler: agentHandler, interceptors, jsonrpcPath: "/rpc" }),
  );
  const onHttp = (req: IncomingMessage, res: ServerResponse) => {
    record("http", req);
    const why = options.bare401 && refuse ? refuse(headersOf(req.headers)) : undefined;
    if (why) {
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"', "content-type": "text/plain" });
      return void res.end(why);
    }
    listener(req, res);
  };
  const adapter = connectNodeAdapter({
    routes: a2aServiceGrpcRoutes({ handler: agentHandler, interceptors }),
    grpc: true,
    connect: false,
  });
  const onGrpc = (req: Http2ServerRequest, res: Http2ServerResponse) => {
    record("grpc", req);
    adapter(req, res);
  };
  const tls = options.tls && { ...options.tls, requestCert: true, rejectUnauthorized: true };
  const http = tls ? createHttpsServer(tls, onHttp) : createServer(onHttp);
  const grpc = tls ? createSecureServer(tls, onGrpc) : createHttp2Server(onGrpc);
  const sessions = new Set<ServerHttp2Session>();
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  const listen = (s: typeof http | typeof grpc) =>
    new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));
  const [port, grpcPort] = [await listen(http), await listen(grpc)];
  const scheme = tls ? "https" : "http";
  return {
    rpc: `${scheme}://127.0.0.1:${port}/rpc`,
    rest: `${scheme}://127.0.0.1:${port}/rest`,
    grpc: `${scheme}://127.0.0.1:${grpcPort}`,
    seen,
    close: async () => {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => grpc.close(() => resolve())),
      ]);
    },
  };
}

/** A v1.0 card listing the agent's interfaces in `order`, with `security` (securitySchemes, requirements). */
export function agentCard(
  agent: CredentialsAgent,
  security: Readonly<Record<string, unknown>>,
  order: readonly ("JSONRPC" | "HTTP+JSON" | "GRPC")[] = ["JSONRPC", "HTTP+JSON", "GRPC"],
): Record<string, unknown> {
  const url = { JSONRPC: agent.rpc, "HTTP+JSON": agent.rest, GRPC: agent.grpc };
  return {
    name: "credentials agent",
    description: "records what clients send",
    version: "1.0.0",
    supportedInterfaces: order.map((b) => ({ url: url[b], protocolBinding: b, protocolVersion: "1.0" })),
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    ...security,
  };
}
