/**
 * Where a stream starts (issue 9, item 1; issue 24, item 6): as the version's
 * override entry api.streamStart says. At 1.0, on both HTTP bindings, and at
 * 0.3 on HTTP+JSON, an error before the first stream event is the binding's
 * ordinary error reply, the one a unary call gets (JSON-RPC: HTTP 200 and a
 * JSON-RPC error object as application/json; HTTP+JSON: the catalog's HTTP
 * status and error body), and the stream's headers go out only with the first
 * event. At 0.3 on JSON-RPC, message/stream and tasks/resubscribe always
 * answer a stream (S03 §3.3.1): an error before the first event is its one
 * event (HTTP 200 text/event-stream, `data:` the JSON-RPC error response with
 * the request's id), then the end. An error after the first event stays in
 * the stream everywhere. Checked at 1.0 and, through the generated bridge and
 * the dual-version handler, at 0.3; gRPC keeps its status in trailers. The
 * reference clients (@a2a-js/sdk 1.3.0 and 0.3.14) read these replies as
 * their typed errors; the 0.3.14 JSON-RPC client, which reads nothing but
 * text/event-stream for a stream, reads the error event as the reference
 * 0.3.14 server's: an Error whose cause is its typed error.
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

/** Whether the side answers an error before a stream's first event inside the stream (v0.3 JSON-RPC). */
const inStream = (side: Side) => side.binding === "JSONRPC" && side.version === "0.3";

/** The content type of each side's unary error replies. */
const errorType = (side: Side) =>
  side.binding === "HTTP+JSON" && side.version === "1.0" ? "application/a2a+json" : "application/json";

/** The content type of each side's error replies before a stream's first event. */
const streamErrorType = (side: Side) => (inStream(side) ? "text/event-stream" : errorType(side));

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

/**
 * Status, content type and JSON body of a reply; for a text/event-stream reply, the body is its one event's data,
 * and the stream must be exactly that one event.
 */
async function replyOf(res: Response) {
  const type = res.headers.get("content-type");
  const text = await res.text();
  if (type !== "text/event-stream") return { status: res.status, type, body: JSON.parse(text) as unknown };
  expect(text, "one data: event, then the end").toMatch(/^data: [^\n]+\n\n$/);
  return { status: res.status, type, body: JSON.parse(text.slice("data: ".length)) as unknown };
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
    const how = inStream(side) ? "in a one-event stream" : "no stream";
    it(`answers a subscribe to an unknown task with GetTask's error, ${how}`, async () => {
      const got = await replyOf(await send(subscribeRequest(agent.urls, side, "nope")));
      const want = expectedError(side, notFound("nope"));
      expect(got).toEqual({ status: want.status, type: streamErrorType(side), body: want.body });
      const unary = await replyOf(await send(getTaskRequest(agent.urls, side, "nope")));
      expect(unary).toEqual({ status: want.status, type: errorType(side), body: want.body });
    });

    it(`answers a subscribe to a completed task with UnsupportedOperationError, ${how}`, async () => {
      const got = await replyOf(await send(subscribeRequest(agent.urls, side, completed)));
      const want = expectedError(side, unsupported(`Task ${completed} is TASK_STATE_COMPLETED, a terminal state`));
      expect(got).toEqual({ status: want.status, type: streamErrorType(side), body: want.body });
    });

    it(`answers a SendStreamingMessage the handler refuses (unknown task) with the error, ${how}`, async () => {
      const got = await replyOf(await send(streamRequest(agent.urls, side, "x", { taskId: "gone" })));
      const want = expectedError(side, notFound("gone"));
      expect(got).toEqual({ status: want.status, type: streamErrorType(side), body: want.body });
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

    it("0.3.14 over JSON-RPC reads the error event: an Error whose cause is its TaskNotFoundError", async () => {
      // Its JsonRpcTransport reads only text/event-stream for message/stream and tasks/resubscribe
      // (a2a-js-v03 dist/client/index.js l.197-201) and raises an error event as an Error whose cause is the
      // typed error (l.221-226), as against a 0.3.14 server; an application/json reply made it throw
      // "Invalid response Content-Type for SSE stream".
      const c = await a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" });
      const e = await collectEvents(c.subscribe("nope")).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(Error);
      expect((e as Error).message).toBe("SSE event contained an error: Task nope not found (Code: -32001) Data: {}");
      const cause = (e as Error).cause;
      expect(cause).toBeInstanceOf(V03SdkTaskNotFoundError);
      expect(cause).toMatchObject({ errorResponse: { jsonrpc: "2.0", error: { code: -32001 } } });
    });

    it("0.3.14 over JSON-RPC reads the error event of a message/stream to an unknown task", async () => {
      const c = await a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" });
      const e = await c.stream("x", { taskId: "gone" }).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect((e as Error).cause).toBeInstanceOf(V03SdkTaskNotFoundError);
      expect((e as Error).message).toContain("Task gone not found (Code: -32001)");
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
    it("an A2AError thrown before the first event is the error (v0.3 JSON-RPC: in the stream)", async () => {
      const got = await replyOf(await send(streamRequest(server.urls, side, "refuse")));
      const want = expectedError(side, unsupported("refused before the first event"));
      expect(got).toEqual({ status: want.status, type: streamErrorType(side), body: want.body });
    });

    it("a handler that throws another error before its first event gets the internal error", async () => {
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
      expect(got).toEqual({ status: want.status, type: streamErrorType(side), body: want.body });
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

describe("v0.3 JSON-RPC: which answers to a streaming method are streams", () => {
  let server: StreamServer;
  beforeAll(async () => {
    server = await startStreamServer(createEchoHandler());
  });
  afterAll(() => server?.close());
  const post = (body: string, contentType = "application/json") =>
    fetch(server.urls.jsonrpc, { method: "POST", headers: { "content-type": contentType }, body });

  it.each<[string, string, unknown]>([
    ["params an array", "message/stream", ["x"]],
    ["params a string", "tasks/resubscribe", "x"],
    ["params without id", "tasks/resubscribe", {}],
    ["a message without parts", "message/stream", { message: { kind: "message", messageId: "m", role: "user" } }],
  ])("%s (%s) → 200 text/event-stream, one error event with the id, then the end", async (_n, method, params) => {
    const res = await post(JSON.stringify({ jsonrpc: "2.0", id: "s-1", method, params }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const text = await res.text();
    expect(text).toMatch(/^data: [^\n]+\n\n$/);
    expect(JSON.parse(text.slice("data: ".length))).toMatchObject({
      jsonrpc: "2.0",
      id: "s-1",
      error: { code: -32602 },
    });
  });

  it.each<[string, string, string]>([
    ["a Content-Type it does not take", "text/plain", '{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{}}'],
    ["JSON it cannot parse", "application/json", '{"jsonrpc":"2.0","id":1,"method":"message/stream",'],
    ["an unknown method", "application/json", '{"jsonrpc":"2.0","id":1,"method":"message/streams","params":{}}'],
    ["a v1.0 method name", "application/json", '{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}'],
  ])("%s → the ordinary application/json reply (the method is not known to stream)", async (_n, type, body) => {
    const res = await post(body, type);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: {} });
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
