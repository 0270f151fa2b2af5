/**
 * Where a stream starts (issue 9, item 1): an error before the first stream
 * event is the binding's ordinary error reply, the one a unary call gets
 * (JSON-RPC: HTTP 200 and a JSON-RPC error object as application/json;
 * HTTP+JSON: the catalog's HTTP status and error body), and the stream's
 * headers go out only with the first event; an error after it stays in the
 * stream. Checked at 1.0 and, through the generated bridge and the
 * dual-version handler, at 0.3, on JSON-RPC and HTTP+JSON; gRPC keeps its
 * status in trailers. The reference clients (@a2a-js/sdk 1.3.0 and 0.3.14)
 * read these replies as their typed errors, except the 0.3.14 JSON-RPC
 * client, which reads no reply to a stream but text/event-stream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, fetchHandler } from "@protoc-gen-a2a/runtime";
import { TaskNotFoundError as SdkTaskNotFoundError } from "@a2a-js/sdk/errors";
import { TaskNotFoundError as V03SdkTaskNotFoundError } from "a2a-js-v03/client";
import { createA2AServiceHttpHandler, type A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import * as v03Jsonrpc from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import * as v03Rest from "../../generated-samples/v0.3.0/a2a_rest.js";
import * as v03Grpc from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { Role, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { a2aJsV03ClientFor, a2aJsV10ClientFor, collectEvents } from "../helpers/a2a-js-peers.js";
import {
  SIDES,
  dataLines,
  getTaskRequest,
  send,
  startStreamServer,
  streamRequest,
  subscribeRequest,
  type Side,
  type StreamServer,
} from "../helpers/stream-server.js";

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const info = (reason: string) => [{ "@type": ERROR_INFO, reason, domain: "a2a-protocol.org" }];

/** The content type of each side's error replies. */
const errorType = (side: Side) =>
  side.binding === "HTTP+JSON" && side.version === "1.0" ? "application/a2a+json" : "application/json";

/** What each side answers for an A2A error: JSON-RPC (HTTP 200) or HTTP+JSON, in the version's catalog shape. */
function expectedError(side: Side, e: { code: number; http: number; status: string; reason: string; message: string }) {
  if (side.binding === "JSONRPC") {
    const error = { code: e.code, message: e.message, ...(side.version === "1.0" ? { data: info(e.reason) } : {}) };
    return { status: 200, body: { jsonrpc: "2.0", id: 1, error } };
  }
  return {
    status: e.http,
    body:
      side.version === "1.0"
        ? { error: { code: e.http, status: e.status, message: e.message, details: info(e.reason) } }
        : { code: e.code, message: e.message },
  };
}

const notFound = (id: string) => ({
  code: -32001,
  http: 404,
  status: "NOT_FOUND",
  reason: "TASK_NOT_FOUND",
  message: `Task ${id} not found`,
});
const unsupported = (message: string) => ({
  code: -32004,
  http: 400,
  status: "FAILED_PRECONDITION",
  reason: "UNSUPPORTED_OPERATION",
  message,
});

/** Status, content type and JSON body of a reply. */
async function replyOf(res: Response) {
  return { status: res.status, type: res.headers.get("content-type"), body: (await res.json()) as unknown };
}

/** What a stream yields before it fails, and how it fails. */
async function drain<T>(events: AsyncIterable<T>): Promise<{ seen: T[]; error: unknown }> {
  const seen: T[] = [];
  try {
    for await (const ev of events) seen.push(ev);
    return { seen, error: undefined };
  } catch (error) {
    return { seen, error };
  }
}

describe("the example agent (1.0, and 0.3 through its bridge)", () => {
  let agent: RunningAgent;
  let completed: string;
  beforeAll(async () => {
    agent = await startEchoAgent();
    const client = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
    const sent = await client.sendMessage({
      message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "x" } }] },
    });
    completed = sent.payload.case === "task" ? sent.payload.value.id : "";
    expect(completed).not.toBe("");
  });
  afterAll(() => agent?.close());

  describe.each(SIDES)("over $name", (side) => {
    it("answers a subscribe to an unknown task like GetTask: no stream", async () => {
      const got = await replyOf(await send(subscribeRequest(agent.urls, side, "nope")));
      const want = expectedError(side, notFound("nope"));
      expect(got).toEqual({ status: want.status, type: errorType(side), body: want.body });
      expect(got).toEqual(await replyOf(await send(getTaskRequest(agent.urls, side, "nope"))));
    });

    it("answers a subscribe to a completed task with UnsupportedOperationError: no stream", async () => {
      const got = await replyOf(await send(subscribeRequest(agent.urls, side, completed)));
      const want = expectedError(side, unsupported(`Task ${completed} is TASK_STATE_COMPLETED, a terminal state`));
      expect(got).toEqual({ status: want.status, type: errorType(side), body: want.body });
    });

    it("answers a SendStreamingMessage the handler refuses (unknown task) with the error: no stream", async () => {
      const got = await replyOf(await send(streamRequest(agent.urls, side, "x", { taskId: "gone" })));
      const want = expectedError(side, notFound("gone"));
      expect(got).toEqual({ status: want.status, type: errorType(side), body: want.body });
    });

    it("still streams a subscribe to a working task", async () => {
      const client = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
      const parts = [{ content: { case: "text" as const, value: "wait" } }];
      const sent = await client.sendMessage({
        message: { messageId: "w", role: Role.USER, parts },
        configuration: { returnImmediately: true },
      });
      const id = sent.payload.case === "task" ? sent.payload.value.id : "";
      const res = await send(subscribeRequest(agent.urls, side, id));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toMatch(/^data: /);
      await reader.cancel();
      await client.cancelTask({ id });
    });
  });

  it.each(SIDES.filter((s) => s.binding === "JSONRPC"))(
    "keeps the JSON-RPC id in the error reply ($name)",
    async (side) => {
      const got = await replyOf(await send(subscribeRequest(agent.urls, side, "nope", "req-7")));
      expect(got.body).toMatchObject({ jsonrpc: "2.0", id: "req-7", error: { code: -32001 } });
    },
  );

  describe("@a2a-js/sdk clients subscribing to an unknown task", () => {
    it("1.3.0 over JSON-RPC throws its TaskNotFoundError itself (before: a plain Error wrapping it)", async () => {
      const c = await a2aJsV10ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" });
      const e = await collectEvents(c.subscribe("nope")).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(SdkTaskNotFoundError);
      expect(e).toMatchObject({ name: "TaskNotFoundError", message: "Task nope not found", transport: "jsonrpc" });
      expect((e as Error).cause).toBeUndefined();
    });

    it("1.3.0 over HTTP+JSON throws its TaskNotFoundError with HTTP 404 (before: 200)", async () => {
      const c = await a2aJsV10ClientFor({ cardUrl: agent.urls.card, binding: "HTTP+JSON" });
      const e = await collectEvents(c.subscribe("nope")).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(SdkTaskNotFoundError);
      expect(e).toMatchObject({ message: "Task nope not found", transport: "rest", statusCode: 404 });
    });

    it("0.3.14 over HTTP+JSON throws its TaskNotFoundError", async () => {
      const c = await a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding: "HTTP+JSON" });
      const e = await collectEvents(c.subscribe("nope")).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(V03SdkTaskNotFoundError);
      expect(e).toMatchObject({ message: "Task nope not found" });
    });

    it("0.3.14 over JSON-RPC cannot read an error reply to a stream: it throws a content-type error", async () => {
      // Its JsonRpcTransport accepts only text/event-stream for message/stream and tasks/resubscribe
      // (a2a-js-v03 dist/client/index.js, _sendStreamingRequest); before, it threw a plain Error whose
      // cause was its TaskNotFoundJSONRPCError, read from the first event.
      const c = await a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" });
      const e = await collectEvents(c.subscribe("nope")).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(Error);
      expect((e as Error).message).toBe(
        "Invalid response Content-Type for SSE stream for tasks/resubscribe. Expected 'text/event-stream'.",
      );
    });
  });

  describe("the generated clients subscribing to an unknown task throw TaskNotFoundError", () => {
    const grpcTransport = () => createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` });
    const cases: [string, () => AsyncIterable<unknown>][] = [
      ["1.0 JSONRPC", () => createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc }).subscribeToTask({ id: "nope" })],
      ["1.0 HTTP+JSON", () => createA2AServiceRestClient({ url: agent.urls.rest }).subscribeToTask({ id: "nope" })],
      ["1.0 GRPC", () => createA2AServiceGrpcClient(grpcTransport(), {}).subscribeToTask({ id: "nope" })],
      [
        "0.3 JSONRPC",
        () =>
          v03Jsonrpc
            .createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc })
            .taskSubscription({ name: "tasks/nope" }),
      ],
      [
        "0.3 HTTP+JSON",
        () => v03Rest.createA2AServiceRestClient({ url: agent.urls.rest }).taskSubscription({ name: "tasks/nope" }),
      ],
      [
        "0.3 GRPC",
        () => v03Grpc.createA2AServiceGrpcClient(grpcTransport(), {}).taskSubscription({ name: "tasks/nope" }),
      ],
    ];
    it.each(cases)("%s", async (_name, subscribe) => {
      const { seen, error } = await drain(subscribe());
      expect(seen).toEqual([]);
      expect(error).toBeInstanceOf(A2AError);
      expect(error).toMatchObject({ type: "TaskNotFoundError" });
    });
  });
});

describe("a handler of its own, at 1.0 and bridged to 0.3", () => {
  let server: StreamServer;
  const task = (id: string) => ({
    payload: { case: "task" as const, value: { id, contextId: "c", status: { state: TaskState.WORKING } } },
  });
  const handler: A2AServiceHandler = {
    ...createEchoHandler(),
    async *sendStreamingMessage(req) {
      const text = req.message?.parts[0]?.content.case === "text" ? req.message.parts[0].content.value : "";
      if (text === "refuse") throw new A2AError("UnsupportedOperationError", "refused before the first event");
      if (text === "crash") throw new Error("a bug before the first event");
      if (text === "slow") await new Promise((resolve) => setTimeout(resolve, 300));
      yield task("t1");
      if (text === "late") throw new A2AError("UnsupportedOperationError", "stopped after the first event");
    },
  };
  beforeAll(async () => {
    server = await startStreamServer(handler);
  });
  afterAll(() => server?.close());

  describe.each(SIDES)("over $name", (side) => {
    it("a handler that throws an A2AError before its first event gets the ordinary error reply", async () => {
      const got = await replyOf(await send(streamRequest(server.urls, side, "refuse")));
      const want = expectedError(side, unsupported("refused before the first event"));
      expect(got).toEqual({ status: want.status, type: errorType(side), body: want.body });
    });

    it("a handler that throws another error before its first event gets the internal error reply", async () => {
      const got = await replyOf(await send(streamRequest(server.urls, side, "crash")));
      const want =
        side.binding === "JSONRPC"
          ? { status: 200, body: { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } } }
          : side.version === "1.0"
            ? {
                status: 500,
                body: { error: { code: 500, status: "INTERNAL", message: "Internal error", details: [] } },
              }
            : { status: 500, body: { code: -32603, message: "Internal error" } };
      expect(got).toEqual({ status: want.status, type: errorType(side), body: want.body });
    });

    it("a handler that yields, then throws, still fails inside the stream", async () => {
      const res = await send(streamRequest(server.urls, side, "late"));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const text = await res.text();
      const lines = dataLines(text);
      expect(lines).toHaveLength(2);
      const message = "stopped after the first event";
      if (side.binding === "JSONRPC") {
        expect(lines[0]).toMatchObject({ jsonrpc: "2.0", id: 1, result: {} });
        expect(lines[1]).toEqual({
          jsonrpc: "2.0",
          id: 1,
          error: { code: -32004, message, ...(side.version === "1.0" ? { data: info("UNSUPPORTED_OPERATION") } : {}) },
        });
      } else {
        expect(text).toContain("event: error\n");
        expect(lines[0]).toMatchObject({ task: { id: "t1" } });
        expect(lines[1]).toEqual(expectedError(side, unsupported(message)).body);
      }
    });

    it("sends the stream's headers only when the first event is ready", async () => {
      const t0 = performance.now();
      const res = await send(streamRequest(server.urls, side, "slow"));
      const headersAfter = performance.now() - t0;
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(headersAfter).toBeGreaterThanOrEqual(250);
      expect(dataLines(await res.text())).toHaveLength(1);
    });
  });
});

describe("the fetch adapter", () => {
  const handle = fetchHandler(
    createA2AServiceHttpHandler({ handler: createEchoHandler(), jsonrpcPath: "/rpc", restBasePath: "/rest" }),
  );
  it("answers an error before the first event as an ordinary reply", async () => {
    const res = await handle(
      new Request("http://in-process/rest/tasks/nope:subscribe", { headers: { "A2A-Version": "1.0" } }),
    );
    expect(await replyOf(res)).toEqual({
      status: 404,
      type: "application/a2a+json",
      body: expectedError({ version: "1.0", binding: "HTTP+JSON" }, notFound("nope")).body,
    });
  });
});
