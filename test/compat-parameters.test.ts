/**
 * The reference's "Parameters that changed" table (seeds/, section 4), row by
 * row: a v0.3 JSON-RPC call (a2a.json params) sent to the dual-version server
 * reaches the v1.0 handler as the v1.0 request the row describes. And what a
 * v0.3 caller sees for ListTasks, which v0.3 does not have, in each binding.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { createDualVersionHttpHandler } from "@protoc-gen-a2a/runtime/protocol";
import { bridgeToOlder } from "../generated-samples/a2a_compat.js";
import { A2AServiceV1_0, type A2AServiceHandler } from "../generated-samples/v1.0.1/a2a_a2a.js";
import { createEchoHandler } from "../examples/echo-agent/echo-handler.js";
import { startEchoAgent, type RunningAgent } from "../examples/echo-agent/server.js";
import { A2AService as A2AService10, type SendMessageRequest } from "../generated-samples/v1.0.1/a2a_pb.js";
import { readJson, type JsonRpcFailure, type JsonRpcSuccess } from "./helpers/json.js";

/** The a2a.json (v0.3) fields these tests read. */
interface Part03 {
  kind: "text" | "file" | "data";
  file?: { name?: string; uri?: string; bytes?: string; mimeType?: string };
  metadata?: Record<string, unknown>;
}
interface Task03 {
  kind: "task";
  id: string;
  history?: { parts: Part03[] }[];
}

/** Every request the v1.0 handler receives, by method. */
const seen: Record<string, unknown> = {};
let server: Server;
let url: string;
let taskId: string;

beforeAll(async () => {
  const echo = createEchoHandler();
  const spy = new Proxy(echo, {
    get(target, key: string) {
      const fn = (target as unknown as Record<string, unknown>)[key];
      if (typeof fn !== "function") return fn;
      return (req: unknown, ctx: unknown) => {
        seen[key] = req;
        return (fn as (r: unknown, c: unknown) => unknown).call(target, req, ctx);
      };
    },
  }) as A2AServiceHandler;
  server = createServer(
    nodeHttpListener(
      createDualVersionHttpHandler({
        newer: { definition: A2AServiceV1_0, handler: spy },
        older: bridgeToOlder(spy),
        jsonrpcPath: "/rpc",
      }),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  const sent = await call<Task03>("message/send", {
    message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "x" }] },
    configuration: { blocking: true },
  });
  taskId = sent.result.id;
  await call("tasks/pushNotificationConfig/set", {
    taskId,
    pushNotificationConfig: { id: "cfg-1", url: "http://127.0.0.1:9/h" },
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A v0.3 JSON-RPC call: a2a.json params, no A2A-Version header. The result is read as R. */
async function call<R = unknown>(method: string, params: unknown) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return readJson<JsonRpcSuccess<R>>(r);
}

describe("Parameters that changed (v0.3 a2a.json params → v1.0 request)", () => {
  it("GetTask: id, historyLength kept; metadata has no field to carry it", async () => {
    await call("tasks/get", { id: taskId, historyLength: 2, metadata: { m: 1 } });
    expect(seen["getTask"]).toMatchObject({ id: taskId, historyLength: 2 });
    expect(seen["getTask"]).not.toHaveProperty("metadata");
  });
  it("SubscribeToTask: id kept; metadata has no field", async () => {
    await call("tasks/resubscribe", { id: taskId, metadata: { m: 1 } }).catch(() => undefined);
    expect(seen["subscribeToTask"]).toMatchObject({ id: taskId });
    expect(seen["subscribeToTask"]).not.toHaveProperty("metadata");
  });
  it("CancelTask: id kept (metadata has no field in the v0.3 proto either)", async () => {
    await call("tasks/cancel", { id: taskId });
    expect(seen["cancelTask"]).toMatchObject({ id: taskId });
  });
  it("CreateTaskPushNotificationConfig: the pushNotificationConfig wrapper is gone", async () => {
    expect(seen["createTaskPushNotificationConfig"]).toMatchObject({
      taskId,
      id: "cfg-1",
      url: "http://127.0.0.1:9/h",
    });
  });
  it("GetTaskPushNotificationConfig: v0.3 id (the task) becomes taskId; pushNotificationConfigId becomes id", async () => {
    const r = await call("tasks/pushNotificationConfig/get", { id: taskId, pushNotificationConfigId: "cfg-1" });
    expect(seen["getTaskPushNotificationConfig"]).toMatchObject({ taskId, id: "cfg-1" });
    expect(r.result).toMatchObject({ taskId, pushNotificationConfig: { id: "cfg-1" } });
  });
  it("ListTaskPushNotificationConfigs: id becomes taskId; the list result is a bare array in v0.3", async () => {
    const r = await call("tasks/pushNotificationConfig/list", { id: taskId });
    expect(seen["listTaskPushNotificationConfigs"]).toMatchObject({ taskId });
    expect(Array.isArray(r.result)).toBe(true);
  });
  it("DeleteTaskPushNotificationConfig: the same id change as get; result null", async () => {
    const r = await call("tasks/pushNotificationConfig/delete", { id: taskId, pushNotificationConfigId: "cfg-1" });
    expect(seen["deleteTaskPushNotificationConfig"]).toMatchObject({ taskId, id: "cfg-1" });
    expect(r.result).toBeNull();
  });
});

describe("ListTasks, which v0.3 does not have: what a v0.3 caller sees", () => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await startEchoAgent();
  });
  afterAll(() => agent.close());

  it("JSON-RPC: tasks/list is MethodNotFoundError (-32601)", async () => {
    const r = await fetch(agent.urls.jsonrpc, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: {} }),
    });
    expect((await readJson<JsonRpcFailure>(r)).error.code).toBe(-32601);
  });
  it("HTTP+JSON: GET /v1/tasks is a bare 404", async () => {
    const r = await fetch(`${agent.urls.rest}/v1/tasks`);
    expect(r.status).toBe(404);
    expect(await r.text()).toBe("");
  });
  it("gRPC: /a2a.v1.A2AService/ListTasks is UNIMPLEMENTED", async () => {
    const transport = createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` });
    // The v1.0 ListTasks method, addressed to the v0.3 service path.
    const method = { ...A2AService10.method.listTasks, parent: { ...A2AService10, typeName: "a2a.v1.A2AService" } };
    const e = await transport.unary(method as never, undefined, undefined, undefined, {} as never).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ConnectError);
    expect((e as ConnectError).code).toBe(Code.Unimplemented);
  });
});

describe("what the v0.3 proto cannot hold is reported, never dropped silently", () => {
  it("a2a.json fields the v0.3 proto lacks reach the v1.0 handler over JSON-RPC (one pass); what v1.0 lacks too reaches onLoss", async () => {
    const losses: string[] = [];
    const received: SendMessageRequest[] = [];
    const echo = createEchoHandler();
    const recording: A2AServiceHandler = {
      ...echo,
      sendMessage: (req, ctx) => {
        received.push(req);
        return echo.sendMessage!(req, ctx);
      },
    };
    const srv = createServer(
      nodeHttpListener(
        createDualVersionHttpHandler({
          newer: { definition: A2AServiceV1_0, handler: createEchoHandler() },
          older: bridgeToOlder(recording, (op, l) => losses.push(`${op} ${l.path}`)),
          jsonrpcPath: "/rpc",
          onLoss: (op, l) => losses.push(`${op} ${l.path}`),
        }),
      ),
    );
    await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
    const at = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/rpc`;
    const send = (method: string, params: unknown) =>
      fetch(at, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      }).then((r) => readJson<JsonRpcSuccess<Task03>>(r));
    try {
      const res = await send("message/send", {
        message: {
          kind: "message",
          messageId: "m",
          role: "user",
          referenceTaskIds: ["t0"],
          parts: [
            { kind: "text", text: "x", metadata: { k: 1 } },
            { kind: "file", file: { uri: "https://h/f.pdf", name: "f.pdf", mimeType: "application/pdf" } },
          ],
          extra: true,
        },
        configuration: { blocking: true },
      });
      expect(res.result.kind).toBe("task");
      const m = received[0]!.message!;
      expect([m.referenceTaskIds, m.parts[0]!.metadata, m.parts[1]!.filename]).toEqual([["t0"], { k: 1 }, "f.pdf"]);
      // What neither version holds is still reported: an unknown key, GetTask's metadata.
      await send("tasks/get", { id: res.result.id, metadata: { m: 1 } });
      expect(losses).toEqual(expect.arrayContaining(["GetTask metadata", "SendMessage message.extra"]));
      expect(losses.filter((l) => /referenceTaskIds|parts\[\d+\]\.metadata|file\.name/.test(l))).toEqual([]);
      // The task comes back with the file name and part metadata, which a2a.json can hold.
      const got = await send("tasks/get", { id: res.result.id });
      expect(got.result.history![0]!.parts[1]!.file!.name).toBe("f.pdf");
      expect(got.result.history![0]!.parts[0]!.metadata).toEqual({ k: 1 });
    } finally {
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    }
  });
});
