/**
 * onError (issue 9, item 9): every failure that is not an A2A error (a
 * handler's exception, before or during a stream) reaches the server's
 * onError once, with the binding, the operation and the protocol version,
 * over JSON-RPC, HTTP+JSON and gRPC; the client gets the same A2AError
 * InternalError (-32603, "Internal error") on every binding, without
 * details; A2A errors are answers and are not reported; without onError
 * each failure is written once to stderr.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, type ErrorContext, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type A2AServiceClient,
  type A2AServiceHandler,
  createA2AServiceHttpHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";

/** A message the input rules take: id, role and one part. */
const valid = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "x" } }] };

const reported: { error: unknown; context: ErrorContext }[] = [];
const secret = "db password is hunter2";

const handler: A2AServiceHandler = {
  getTask: async () => {
    throw new Error(secret);
  },
  cancelTask: async ({ id }) => {
    throw new A2AError("TaskNotFoundError", `Task ${id} not found`);
  },
  async *sendStreamingMessage() {
    yield { payload: { case: "message", value: { messageId: "m1" } } };
    throw new TypeError(`late: ${secret}`);
  },
  // biome-ignore lint/correctness/useYield: a stream that fails before its first event
  async *subscribeToTask() {
    throw new RangeError(`early: ${secret}`);
  },
};

let http: Server;
let grpc: Http2Server;
const clients: [string, A2AServiceClient][] = [];

const listen = (server: Server | Http2Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  const onError = (error: unknown, context: ErrorContext) => reported.push({ error, context });
  http = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler, onError })));
  grpc = createHttp2Server(connectNodeAdapter({ routes: a2aServiceGrpcRoutes({ handler, onError }), grpc: true }));
  const [port, grpcPort] = [await listen(http), await listen(grpc)];
  clients.push(
    ["JSONRPC", createA2AServiceJsonRpcClient({ url: `http://127.0.0.1:${port}/jsonrpc` })],
    ["HTTP+JSON", createA2AServiceRestClient({ url: `http://127.0.0.1:${port}/rest` })],
    ["GRPC", createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://127.0.0.1:${grpcPort}` }), {})],
  );
});

afterAll(() => {
  http.closeAllConnections();
  http.close();
  grpc.close();
});

async function failure(call: () => Promise<unknown>): Promise<A2AError> {
  try {
    await call();
  } catch (e) {
    return e as A2AError;
  }
  throw new Error("the call did not fail");
}

/** The wire's InternalError, as every generated client surfaces it (issue 9, item 8). */
function isInternal(e: unknown): boolean {
  return e instanceof A2AError && e.type === "InternalError" && e.code === -32603 && e.message === "Internal error";
}

const text = (e: unknown) => `${String(e)} ${JSON.stringify(e)}`;

const drain = async (events: AsyncIterable<unknown>) => {
  for await (const _ of events);
};

describe.each([0, 1, 2])("binding %#", (index) => {
  const binding = () => clients[index]![0];
  const client = () => clients[index]![1];
  const take = () => reported.splice(0, reported.length);

  it("reports a handler's exception once; the client gets InternalError without its text", async () => {
    take();
    const e = await failure(() => client().getTask({ id: "t1" }));
    expect(isInternal(e), text(e)).toBe(true);
    expect(text(e)).not.toContain("hunter2");
    const got = take();
    expect(got).toHaveLength(1);
    expect((got[0]!.error as Error).message).toBe(secret);
    expect(got[0]!.context).toEqual({ binding: binding(), operation: "GetTask", protocolVersion: "1.0" });
  });

  it("reports a stream's failure before and after its first event", async () => {
    take();
    const early = await failure(() => drain(client().subscribeToTask({ id: "t1" })));
    expect(isInternal(early), text(early)).toBe(true);
    const late = await failure(() => drain(client().sendStreamingMessage({ message: valid })));
    expect(isInternal(late), text(late)).toBe(true);
    expect(text(late)).not.toContain("hunter2");
    const got = take();
    expect(got.map((r) => [(r.error as Error).name, r.context.operation])).toEqual([
      ["RangeError", "SubscribeToTask"],
      ["TypeError", "SendStreamingMessage"],
    ]);
  });

  it("does not report an A2A error", async () => {
    take();
    const e = await failure(() => client().cancelTask({ id: "t9" }));
    expect(e.type).toBe("TaskNotFoundError");
    expect(take()).toEqual([]);
  });
});

describe("without onError", () => {
  it("writes each failure once to stderr, with the operation", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    const server = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler })));
    try {
      const port = await listen(server);
      const client = createA2AServiceJsonRpcClient({ url: `http://127.0.0.1:${port}/jsonrpc` });
      expect((await failure(() => client.getTask({ id: "t1" }))).type).toBe("InternalError");
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![0]).toBe("A2A server: internal error in JSONRPC GetTask at 1.0:");
      expect((spy.mock.calls[0]![1] as Error).message).toBe(secret);
    } finally {
      spy.mockRestore();
      server.closeAllConnections();
      server.close();
    }
  });
});
