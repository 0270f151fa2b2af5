/**
 * The gRPC refusals answered before a handler runs, read by @grpc/grpc-js (a peer other than connect): a call
 * whose a2a-version no service speaks (grpc-limits.ts's refusal, on a registered method, and grpcFallback's, on
 * a method the router lacks) and a call to an unknown method. Each must reach grpc-js with its status and
 * message; before, their status went out in headers that did not end the stream (node:http2's writeHead, then
 * an empty DATA frame), and grpc-js read INTERNAL "Call ended without gRPC status". The message reads as sent
 * (grpc-js decodes with decodeURI, which left ":" as "%3A"), and an echoed version is cut to 1,024 characters.
 */
import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { grpcFallback, guardGrpcListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import * as v10grpc from "../../generated-samples/v1.0.1/a2a_grpc.js";

let server: Http2Server;
let client: grpc.Client;
const sessions: ServerHttp2Session[] = [];

beforeAll(async () => {
  const routes = v10grpc.a2aServiceGrpcRoutes({ handler: {}, onError: () => {} });
  const adapter = connectNodeAdapter({ routes, grpc: true, fallback: grpcFallback([A2AServiceV1_0]) });
  server = createServer(guardGrpcListener(adapter));
  server.on("session", (s: ServerHttp2Session) => sessions.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  for (const s of sessions) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The status grpc-js reads for a unary call of `path` with an empty request and this metadata. */
function statusOf(path: string, metadata: Record<string, string>): Promise<{ code: number; details: string }> {
  const meta = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) meta.set(k, v);
  const bytes = (b: Buffer) => b;
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, bytes, bytes, Buffer.alloc(0), meta, (error) => {
      resolve(error ? { code: error.code, details: error.details } : { code: grpc.status.OK, details: "" });
    });
  });
}

describe("gRPC refusals as @grpc/grpc-js reads them", () => {
  it("a version no service speaks, on a registered method", async () => {
    const read = await statusOf("/lf.a2a.v1.A2AService/GetTask", { "a2a-version": "0.5" });
    expect(read.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(read.details).toMatch(/0\.5/);
  });

  it("a version no service speaks, on a method the router lacks", async () => {
    const read = await statusOf("/lf.a2a.v1.A2AService/NoSuchMethod", { "a2a-version": "0.5" });
    expect(read.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(read.details).toMatch(/0\.5/);
  });

  it("a method the router lacks", async () => {
    const read = await statusOf("/lf.a2a.v1.A2AService/NoSuchMethod", { "a2a-version": "1.0" });
    expect(read).toEqual({
      code: grpc.status.UNIMPLEMENTED,
      details: "Method not found: /lf.a2a.v1.A2AService/NoSuchMethod",
    });
  });

  it("a version of 8,000 characters, its echo cut to 1,024 of them", async () => {
    const read = await statusOf("/lf.a2a.v1.A2AService/GetTask", { "a2a-version": `9.${"9".repeat(8000)}` });
    expect(read.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(read.details.length).toBeLessThanOrEqual(1024 + 3);
    expect(read.details.endsWith("...")).toBe(true);
  });
});
