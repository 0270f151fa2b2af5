/**
 * An A2A error a client reads keeps the answer it came in (A2AErrorOptions.received): its HTTP status and
 * headers on JSON-RPC and HTTP+JSON (a 401's WWW-Authenticate challenge among them), its metadata on gRPC,
 * for unary calls and a stream's error event alike. Against a real v1.0 agent on 127.0.0.1, and a proxy agent
 * that rethrows what its client read: the proxy's answer carries none of the peer's headers.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type A2AServiceClient,
  type A2AServiceHandler,
  createA2AServiceHttpHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { Role, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
const CHALLENGE = 'Bearer error="invalid_token"';

interface Agent {
  readonly urls: Record<Binding, string>;
  close(): Promise<void>;
}

/** The v1.0 agent on 127.0.0.1: JSON-RPC at /rpc, HTTP+JSON under /rest, gRPC on its own HTTP/2 port. */
async function startAgent(handler: A2AServiceHandler): Promise<Agent> {
  const http: Server = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler, jsonrpcPath: "/rpc" })));
  const adapter = connectNodeAdapter({ routes: a2aServiceGrpcRoutes({ handler }), grpc: true, connect: false });
  const grpc: Http2Server = createHttp2Server(adapter);
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

function clientOf(agent: Agent, binding: Binding): A2AServiceClient {
  const url = agent.urls[binding];
  if (binding === "JSONRPC") return createA2AServiceJsonRpcClient({ url });
  if (binding === "HTTP+JSON") return createA2AServiceRestClient({ url });
  return createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: url }), { url });
}

const peerHandler: A2AServiceHandler = {
  getTask: async () => {
    throw new A2AError("UnauthenticatedError", "the token expired", { headers: { "www-authenticate": CHALLENGE } });
  },
  cancelTask: async ({ id }) => {
    throw new A2AError("TaskNotFoundError", `Task ${id} not found`);
  },
  async *sendStreamingMessage() {
    yield { payload: { case: "task", value: { id: "t", contextId: "c", status: { state: TaskState.WORKING } } } };
    throw new A2AError("TaskNotFoundError", "Task t went away");
  },
};

let peer: Agent;
let proxy: Agent;
beforeAll(async () => {
  peer = await startAgent(peerHandler);
  const upstream = clientOf(peer, "HTTP+JSON");
  // Rethrows what its client read, as an agent that forwards calls does.
  proxy = await startAgent({ getTask: (request) => upstream.getTask(request) });
});
afterAll(async () => {
  await Promise.all([peer?.close(), proxy?.close()]);
});

async function caught(call: () => Promise<unknown>): Promise<A2AError> {
  const e = await call().then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(A2AError);
  return e as A2AError;
}

const hello = {
  message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] },
};

describe.each(BINDINGS)("%s", (binding) => {
  const http = binding !== "GRPC";

  it("keeps the status and headers of a refusal, the challenge among them", async () => {
    const e = await caught(() => clientOf(peer, binding).getTask({ id: "t" }));
    expect(e.type).toBe("UnauthenticatedError");
    expect(e.options.received?.status).toBe(http ? 401 : undefined);
    expect(e.options.received?.headers.get("www-authenticate")).toBe(CHALLENGE);
  });

  it("keeps the answer of an error the binding sends with another status", async () => {
    const e = await caught(() => clientOf(peer, binding).cancelTask({ id: "t-9" }));
    expect(e.type).toBe("TaskNotFoundError");
    expect(e.options.received?.status).toBe({ JSONRPC: 200, "HTTP+JSON": 404, GRPC: undefined }[binding]);
    const type = e.options.received?.headers.get("content-type") ?? "";
    expect(type.startsWith(http ? "application/" : "application/grpc")).toBe(true);
  });

  it("keeps the stream's answer for its error event", async () => {
    const states: TaskState[] = [];
    const e = await caught(async () => {
      for await (const ev of clientOf(peer, binding).sendStreamingMessage(hello)) {
        if (ev.payload.case === "task") states.push(ev.payload.value.status?.state ?? TaskState.UNSPECIFIED);
      }
    });
    expect([e.type, states]).toEqual(["TaskNotFoundError", [TaskState.WORKING]]);
    expect(e.options.received?.status).toBe(http ? 200 : undefined);
    const type = e.options.received?.headers.get("content-type") ?? "";
    expect(type.startsWith(http ? "text/event-stream" : "application/grpc")).toBe(true);
  });

  it("sends none of a peer's answer when a handler rethrows its error", async () => {
    const e = await caught(() => clientOf(proxy, binding).getTask({ id: "t" }));
    expect(e.type).toBe("UnauthenticatedError");
    expect(e.options.received?.status).toBe(http ? 401 : undefined);
    expect(e.options.received?.headers.get("www-authenticate")).toBe(null);
  });
});
