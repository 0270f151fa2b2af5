/**
 * A caller that stops reading a gRPC stream (`break` out of its for-await) ends the call: connect's stream
 * iterator ignores return(), so the generated client aborts the call's signal itself, and the server's handler
 * sees its signal abort while the stream would go on forever. Without that, the HTTP/2 stream stayed open
 * until the server ended it. A real HTTP/2 server on 127.0.0.1 with the generated v1.0 routes, ten times.
 */
import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import type { HandlerContext } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";

/** Resolves when the running stream's signal aborts; set per call. */
let onAbort: () => void = () => {};

const handler: A2AServiceHandler = {
  async *sendStreamingMessage(_req, context: HandlerContext) {
    context.signal.addEventListener("abort", () => onAbort(), { once: true });
    // Endless until the call ends: an event, then a turn of the event loop.
    for (let i = 0; !context.signal.aborted; i++) {
      yield { payload: { case: "message", value: { messageId: `e${i}`, role: Role.AGENT, parts: [] } } };
      await new Promise((resolve) => setImmediate(resolve));
    }
  },
};

let server: Http2Server;
let baseUrl = "";
beforeAll(async () => {
  server = createServer(connectNodeAdapter({ routes: a2aServiceGrpcRoutes({ handler }), grpc: true }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

it("ends the call when the caller breaks out of the stream, every time", async () => {
  const client = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl }), {});
  const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "go" } }] };
  for (let round = 0; round < 10; round++) {
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
    });
    let read = 0;
    for await (const _event of client.sendStreamingMessage({ message })) {
      if (++read === 20) break;
    }
    expect(read).toBe(20);
    // The server's handler sees its call end; without the abort this waits until the test's timeout.
    await aborted;
  }
}, 20_000);
