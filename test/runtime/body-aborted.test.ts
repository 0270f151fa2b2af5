/**
 * A client that goes away in the middle of its request body (closes or resets the connection after half of
 * the declared bytes) is no server fault: the JSON-RPC and HTTP+JSON servers answer it as a bad request and
 * report nothing to onError, behind nodeHttpListener (a raw socket on 127.0.0.1, many times) and behind
 * fetchHandler (a Request whose body stream fails). A body read that fails for another reason, in an
 * adapter of the user's own, is still a server fault and reported.
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { type CoreHandler, type ErrorContext, fetchHandler, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type A2AServiceHandler, createA2AServiceHttpHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";

const handler: A2AServiceHandler = {
  sendMessage: async () => ({ payload: { case: "message", value: { messageId: "r", parts: [] } } }),
};

const reported: { error: unknown; context: ErrorContext }[] = [];
const a2a = createA2AServiceHttpHandler({
  handler,
  jsonrpcPath: "/jsonrpc",
  restBasePath: "/rest",
  onError: (error, context) => reported.push({ error, context }),
});

/** Statuses the handler answered with, and a wait for the next one. */
const answered: number[] = [];
let onAnswer: (() => void) | undefined;
const counted: CoreHandler = (req) =>
  a2a(req).then((res) => {
    answered.push(res.status);
    onAnswer?.();
    return res;
  });

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer(nodeHttpListener(counted));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  reported.length = 0;
  answered.length = 0;
});

const DECLARED = 100_000;

/** Sends the head and half the declared body of a POST to `path`, then ends the connection `how`. */
async function leaveMidBody(path: string, contentType: string, how: "close" | "reset"): Promise<void> {
  const next = new Promise<void>((resolve) => {
    onAnswer = resolve;
  });
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  const head =
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\n` +
    `A2A-Version: 1.0\r\nContent-Length: ${DECLARED}\r\n\r\n`;
  socket.write(head + `{"message":{"text":"${"x".repeat(DECLARED / 2)}`);
  await new Promise((resolve) => setTimeout(resolve, 20));
  if (how === "reset") socket.resetAndDestroy();
  else socket.end();
  await next;
  socket.destroy();
}

describe.each([
  ["JSON-RPC", "/jsonrpc", "application/json"],
  ["HTTP+JSON", "/rest/message:send", "application/a2a+json"],
])("%s behind nodeHttpListener", (_binding, path, contentType) => {
  it.each(["close", "reset"] as const)("answers a client that leaves mid-body (%s) as a bad request", async (how) => {
    for (let i = 0; i < 20; i++) await leaveMidBody(path, contentType, how);
    expect(reported).toEqual([]);
    const expected = path === "/jsonrpc" ? 200 : 400;
    expect(answered).toEqual(Array.from({ length: 20 }, () => expected));
  });
});

/** A POST whose body stream yields half the declared bytes, then fails with `error`. */
function failingRequest(path: string, contentType: string, error: unknown): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"message":{"text":"half'));
    },
    pull(controller) {
      controller.error(error);
    },
  });
  const headers = { "content-type": contentType, "a2a-version": "1.0" };
  return new Request(`http://127.0.0.1${path}`, { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

describe("behind fetchHandler", () => {
  const serve = fetchHandler(a2a);

  it("answers a body stream that fails (the client went away) as a bad request, reporting nothing", async () => {
    const rpc = await serve(failingRequest("/jsonrpc", "application/json", new Error("terminated")));
    const rpcBody = (await rpc.json()) as { error: { code: number; message: string } };
    expect([rpc.status, rpcBody.error.code, rpcBody.error.message]).toEqual([
      200,
      -32600,
      "the request body ended early: terminated",
    ]);
    const rest = await serve(failingRequest("/rest/message:send", "application/a2a+json", new Error("terminated")));
    const restBody = (await rest.json()) as { error: { status: string; message: string } };
    expect([rest.status, restBody.error.status, restBody.error.message]).toEqual([
      400,
      "INVALID_ARGUMENT",
      "the request body ended early: terminated",
    ]);
    expect(reported).toEqual([]);
  });
});

describe("an adapter of one's own", () => {
  it("whose body read fails otherwise: a server fault, reported once with the operation", async () => {
    const broken = (path: string, contentType: string) => {
      const headers = new Headers({ "content-type": contentType, "a2a-version": "1.0" });
      return {
        method: "POST",
        path,
        query: new URLSearchParams(),
        hasQuery: false,
        headers,
        header: (name: string) => headers.get(name),
        body: () => Promise.reject(new RangeError("adapter bug")),
        signal: new AbortController().signal,
      };
    };
    const rpc = await a2a(broken("/jsonrpc", "application/json"));
    expect(JSON.parse(rpc.body as string).error.code).toBe(-32603);
    const rest = await a2a(broken("/rest/message:send", "application/a2a+json"));
    expect(rest.status).toBe(500);
    expect(reported.map((r) => [(r.error as Error).message, r.context.binding])).toEqual([
      ["adapter bug", "JSONRPC"],
      ["adapter bug", "HTTP+JSON"],
    ]);
  });
});
