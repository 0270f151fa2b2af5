/**
 * guardGrpcListener (grpc/grpc-node-guard.ts) around connectNodeAdapter on node:http2: a call whose :authority
 * node:http2 lets through but the URL parser refuses made connect-node throw in the 'request' listener, which
 * ended the process (found by a review; without the guard this file's worker dies with "TypeError: Invalid
 * URL"). Guarded, each such request is answered 400 and the server goes on serving calls.
 */
import { connect, createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { guardGrpcListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v10grpc from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { TaskSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

let server: Http2Server;
let base: string;
const sessions: ServerHttp2Session[] = [];

beforeAll(async () => {
  const routes = v10grpc.a2aServiceGrpcRoutes({
    handler: { getTask: async (request) => create(TaskSchema, { id: request.id, contextId: "c" }) },
    onError: () => {},
  });
  server = createServer(guardGrpcListener(connectNodeAdapter({ routes, grpc: true })));
  server.on("session", (s: ServerHttp2Session) => sessions.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sessions) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The HTTP status and body of a GetTask call sent with this :authority (3 bytes of message, never read). */
function callWithAuthority(authority: string): Promise<{ status: number; body: string }> {
  const session = connect(base);
  session.on("error", () => {});
  return new Promise((resolve, reject) => {
    const req = session.request({
      ":method": "POST",
      ":path": "/lf.a2a.v1.A2AService/GetTask",
      ":authority": authority,
      "content-type": "application/grpc",
      te: "trailers",
    });
    let status = 0;
    let body = "";
    req.on("response", (headers) => (status = Number(headers[":status"])));
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("error", reject);
    req.on("close", () => {
      session.close();
      resolve({ status, body });
    });
    req.end(Buffer.from([0, 0, 0, 0, 3, 10, 1, 116]));
  });
}

describe("a gRPC call whose :authority the URL parser refuses", () => {
  it.each(["[", "x:99999", "%zz"])("%j is answered 400, and the server goes on", async (authority) => {
    const answer = await callWithAuthority(authority);
    expect(answer).toEqual({ status: 400, body: "the request cannot be read: Invalid URL\n" });
    const client = v10grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: base }), { url: base });
    expect((await client.getTask({ id: "after" })).id).toBe("after");
  });
});
