/**
 * Streaming behaviour of the generated servers: a failure in mid-stream is
 * framed as its binding requires (JSON-RPC: one JSON-RPC error response on a
 * data line; HTTP+JSON: an `error` event with the google.rpc.Status-shaped
 * body), and a client that disconnects aborts the handler's signal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { A2AError, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { createA2AServiceHttpHandler, type A2AServiceHandler } from "../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v1.0.1/a2a_rest.js";
import { Role, TaskState } from "../generated-samples/v1.0.1/a2a_pb.js";
import { createEchoHandler } from "../examples/echo-agent/echo-handler.js";

/** A message the input rules take: id, role and one part. */
const valid = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "x" } }] };

let server: Server;
let base: string;
let aborted: () => void = () => {};
const abortSeen = new Promise<void>((resolve) => (aborted = resolve));

beforeAll(async () => {
  const handler: A2AServiceHandler = {
    ...createEchoHandler(),
    async *sendStreamingMessage() {
      yield { payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } } } };
      throw new A2AError("UnsupportedOperationError", "stopped on purpose");
    },
    async *subscribeToTask(req, ctx) {
      yield { payload: { case: "task", value: { id: req.id, contextId: "c1", status: { state: TaskState.WORKING } } } };
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
      aborted();
    },
  };
  server = createServer(
    nodeHttpListener(createA2AServiceHttpHandler({ handler, jsonrpcPath: "/rpc", restBasePath: "/rest" })),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const dataLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5)));

describe("a failure in mid-stream", () => {
  it("is one JSON-RPC error response on JSON-RPC", async () => {
    const r = await fetch(`${base}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "SendStreamingMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } },
      }),
    });
    const lines = dataLines(await r.text());
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ jsonrpc: "2.0", id: 7, result: { task: { id: "t1" } } });
    expect(lines[1]).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32004, message: "stopped on purpose", data: [{ reason: "UNSUPPORTED_OPERATION" }] },
    });
    // The generated client yields the first event, then throws the typed error.
    const client = createA2AServiceJsonRpcClient({ url: `${base}/rpc` });
    const seen: string[] = [];
    const e = await (async () => {
      for await (const ev of client.sendStreamingMessage({ message: valid })) seen.push(ev.payload.case ?? "");
    })().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(seen).toEqual(["task"]);
    expect(e).toMatchObject({ type: "UnsupportedOperationError" });
  });

  it("is an error event with a Status body on HTTP+JSON", async () => {
    const r = await fetch(`${base}/rest/message:stream`, {
      method: "POST",
      headers: { "content-type": "application/a2a+json", "A2A-Version": "1.0" },
      body: JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } }),
    });
    const text = await r.text();
    expect(text).toContain("event: error\n");
    const lines = dataLines(text);
    expect(lines[0]).toEqual({ task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } });
    expect(lines[1]).toMatchObject({
      error: { code: 400, status: "FAILED_PRECONDITION", details: [{ reason: "UNSUPPORTED_OPERATION" }] },
    });
    const client = createA2AServiceRestClient({ url: `${base}/rest` });
    const e = await (async () => {
      for await (const _ of client.sendStreamingMessage({ message: valid })) void _;
    })().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ type: "UnsupportedOperationError" });
  });
});

it("a client that disconnects aborts the handler's signal", async () => {
  await new Promise<void>((resolve, reject) => {
    const req = request(`${base}/rest/tasks/t9:subscribe`, { headers: { "A2A-Version": "1.0" } }, (res) => {
      res.once("data", () => {
        req.destroy(); // first event received: go away
        resolve();
      });
    });
    req.on("error", () => {});
    req.end();
    setTimeout(() => reject(new Error("no event")), 10_000).unref();
  });
  await abortSeen; // resolves only when the handler saw the abort
});
