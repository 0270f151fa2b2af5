/**
 * A gRPC request that never arrives whole (grpc-limits.ts, reading): a client that sends its headers and part
 * of its message, or all of it, without ending the stream held the call for good, before its handler ran, with
 * or without a grpc-timeout (found by a review: 10,000 such calls held 400 MiB). Now the call ends with
 * DEADLINE_EXCEEDED at its deadline, and at readTimeoutMs without one; the read timer ends with the call, also
 * when connect stops reading early. Each wait is bounded by a watchdog.
 */
import { type ClientHttp2Session, connect, createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registerWithLimits } from "../../packages/runtime/src/grpc/grpc-limits.js";
import * as v10grpc from "../../generated-samples/v1.0.1/a2a_grpc.js";
import {
  A2AService,
  GetTaskRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskSchema,
} from "../../generated-samples/v1.0.1/a2a_pb.js";

const servers: Http2Server[] = [];
const sessions: ServerHttp2Session[] = [];
let generated: string;
let shortRead: string;
const getTask = async (request: { id: string }) => create(TaskSchema, { id: request.id, contextId: "c" });

async function listen(server: Http2Server): Promise<string> {
  servers.push(server);
  server.on("session", (s: ServerHttp2Session) => sessions.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const subscribeToTask = async function* (request: { id: string }) {
    yield { payload: { case: "task" as const, value: await getTask(request) } };
  };
  const routes = v10grpc.a2aServiceGrpcRoutes({ handler: { getTask, subscribeToTask }, onError: () => {} });
  generated = await listen(createServer(connectNodeAdapter({ routes, grpc: true })));
  const limited = (router: Parameters<typeof registerWithLimits>[0]) =>
    registerWithLimits(router, A2AService, { getTask }, { maxMessageBytes: 1 << 20, readTimeoutMs: 300 });
  shortRead = await listen(createServer(connectNodeAdapter({ routes: limited, grpc: true })));
});

afterAll(async () => {
  for (const s of sessions) s.destroy();
  for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A v1.0 gRPC call of `method` (GetTask unless told) on the session, with more headers if given. */
function grpcCall(session: ClientHttp2Session, headers: Record<string, string> = {}, method = "GetTask") {
  return session.request({
    ":method": "POST",
    ":path": `/lf.a2a.v1.A2AService/${method}`,
    "content-type": "application/grpc",
    "a2a-version": "1.0",
    te: "trailers",
    ...headers,
  });
}

/** A gRPC message frame. */
const framed = (message: Uint8Array) => Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]);
/** GetTask's request (id "t"), framed. */
const FRAME = framed(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: "t" })));
/** SubscribeToTask's request (id "t"), framed. */
const SUBSCRIBE = framed(toBinary(SubscribeToTaskRequestSchema, create(SubscribeToTaskRequestSchema, { id: "t" })));

/**
 * The grpc-status the server answers a call sending `part` bytes of its frame (GetTask's unless told), its
 * stream left open (5 s at most).
 */
function statusOfOpenCall(
  base: string,
  part: number,
  headers: Record<string, string> = {},
  [method, frame]: readonly [string, Buffer] = ["GetTask", FRAME],
): Promise<string> {
  const session = connect(base);
  session.on("error", () => {});
  return new Promise((resolve) => {
    const req = grpcCall(session, headers, method);
    const watchdog = setTimeout(() => done("no answer after 5 s"), 5000);
    const done = (status: string) => {
      clearTimeout(watchdog);
      session.destroy();
      resolve(status);
    };
    let status: string | undefined;
    req.on("response", (h) => (status = h["grpc-status"] as string | undefined));
    req.on("trailers", (t) => done(String(t["grpc-status"])));
    req.on("end", () => done(status ?? "no status"));
    req.on("error", () => done(status ?? "reset"));
    req.on("data", () => {});
    req.write(frame.subarray(0, part));
  });
}

describe("a gRPC request that never ends", () => {
  it.each([
    ["part of its message", 6],
    ["its whole message", FRAME.length],
  ])("ends DEADLINE_EXCEEDED at its grpc-timeout, having sent %s", async (_, part) => {
    expect(await statusOfOpenCall(generated, part, { "grpc-timeout": "200m" })).toBe("4");
  });

  it("ends DEADLINE_EXCEEDED at its grpc-timeout, a server stream having sent part of its message", async () => {
    const subscribe = ["SubscribeToTask", SUBSCRIBE] as const;
    expect(await statusOfOpenCall(generated, 6, { "grpc-timeout": "200m" }, subscribe)).toBe("4");
  });

  it("ends DEADLINE_EXCEEDED at readTimeoutMs without a grpc-timeout", async () => {
    expect(await statusOfOpenCall(shortRead, FRAME.length)).toBe("4");
  });

  it("leaves no read timer behind when connect stops reading early (a second message on a unary call)", async () => {
    const set = vi.spyOn(globalThis, "setTimeout");
    const cleared = vi.spyOn(globalThis, "clearTimeout");
    try {
      const session = connect(shortRead);
      const req = grpcCall(session);
      const status = new Promise<string>((resolve) => req.on("trailers", (t) => resolve(String(t["grpc-status"]))));
      req.on("data", () => {});
      req.end(Buffer.concat([FRAME, FRAME]));
      expect(await status).toBe("12");
      session.close();
      const readTimers = set.mock.results.filter((_r, i) => set.mock.calls[i]?.[1] === 300).map((r) => r.value);
      expect(readTimers).toHaveLength(1);
      expect(cleared.mock.calls.map((c) => c[0])).toContain(readTimers[0]);
    } finally {
      set.mockRestore();
      cleared.mockRestore();
    }
  });

  it("is served as before when it ends in time", async () => {
    const session = connect(generated);
    const req = grpcCall(session);
    const status = new Promise<string>((resolve) =>
      req.on("trailers", (t) => resolve(`${t["grpc-status"]} ${decodeURIComponent(String(t["grpc-message"] ?? ""))}`)),
    );
    req.on("data", () => {});
    req.end(FRAME);
    expect(await status).toBe("0 ");
    session.close();
  });
});
