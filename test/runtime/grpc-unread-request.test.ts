/**
 * guardGrpcListener (grpc/grpc-node-guard.ts) on node:http2: a call answered before its request ended, here a
 * message whose length prefix is past the size limit and whose client never ends it, was kept open by
 * node:http2 with its unread bytes until the client ended the request or the session closed (found by a hostile
 * review). With 10 streams allowed per session, 10 such calls took the session for good. Guarded, each is closed
 * with RST_STREAM NO_ERROR after its trailers, and the session goes on serving calls.
 */
import {
  type ClientHttp2Session,
  connect,
  createServer,
  type Http2Server,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { guardGrpcListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v10grpc from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { TaskSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

const STREAMS_PER_SESSION = 10;
let server: Http2Server;
let base: string;
const serverStreams: ServerHttp2Stream[] = [];
const sessions: ServerHttp2Session[] = [];

beforeAll(async () => {
  const routes = v10grpc.a2aServiceGrpcRoutes({
    handler: { getTask: async (request) => create(TaskSchema, { id: request.id, contextId: "c" }) },
    onError: () => {},
  });
  const settings = { maxConcurrentStreams: STREAMS_PER_SESSION };
  server = createServer({ settings }, guardGrpcListener(connectNodeAdapter({ routes, grpc: true })));
  server.on("stream", (stream: ServerHttp2Stream) => serverStreams.push(stream));
  server.on("session", (session: ServerHttp2Session) => sessions.push(session));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const session of sessions) session.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Unended {
  readonly grpcStatus: string | undefined;
  readonly rstCode: number | undefined;
}

/**
 * A GetTask call that announces a 5 MB message, sends 60 kB of it and never ends its request; resolves once the
 * stream is closed, and rejects if it is still open after `waitMs` (the fault: it stayed open for good).
 */
function unendedCall(session: ClientHttp2Session, waitMs: number): Promise<Unended> {
  const req = session.request({
    ":method": "POST",
    ":path": "/lf.a2a.v1.A2AService/GetTask",
    "content-type": "application/grpc",
    "a2a-version": "1.0",
    te: "trailers",
  });
  const prefix = Buffer.from([0, 0, 0, 0, 0]);
  prefix.writeUInt32BE(5_000_000, 1);
  req.write(Buffer.concat([prefix, Buffer.alloc(60_000)]));
  req.resume();
  let grpcStatus: string | undefined;
  req.on("trailers", (trailers) => (grpcStatus = String(trailers["grpc-status"])));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stream still open after ${waitMs} ms`)), waitMs);
    req.on("error", reject);
    req.on("close", () => {
      clearTimeout(timer);
      resolve({ grpcStatus, rstCode: req.rstCode });
    });
  });
}

describe("a gRPC call answered before its request ended", () => {
  it("is closed after its trailers, so a session outlives more such calls than it has streams", async () => {
    const session = connect(base);
    try {
      const answers: Unended[] = [];
      for (let i = 0; i < 3 * STREAMS_PER_SESSION; i++) answers.push(await unendedCall(session, 5_000));
      expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set(['{"grpcStatus":"8","rstCode":0}']));
      const client = v10grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: base }), { url: base });
      expect((await client.getTask({ id: "after" })).id).toBe("after");
    } finally {
      session.destroy();
    }
    await expect.poll(() => serverStreams.filter((s) => !s.closed).length).toBe(0);
  });

  it("leaves calls whose request ended as they were", async () => {
    const client = v10grpc.createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: base }), { url: base });
    const ids = Array.from({ length: STREAMS_PER_SESSION }, (_, i) => `t${i}`);
    const tasks = await Promise.all(ids.map((id) => client.getTask({ id })));
    expect(tasks.map((t) => t.id)).toEqual(ids);
  });
});
