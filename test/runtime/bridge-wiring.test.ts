/**
 * No hidden channels: the version bridge's one-pass JSON-RPC path is named in
 * the server options (jsonrpcOperations, what bridgeToOlder returns) and in
 * the client's type (the JSON-RPC client's `jsonrpc` calls), never carried on
 * the handler or client object itself. Wrapping the bridged handler (a
 * logging proxy, a spread) therefore gives the same v0.3 JSON-RPC answers,
 * byte for byte, a2a.json-only fields (Message.referenceTaskIds, part
 * metadata) included; leaving the operations out is what takes the proto
 * path, which loses them. On the client, a spread or proxied JSON-RPC client
 * still sends a2a.json in one pass.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonValue } from "@bufbuild/protobuf";
import { A2AError, nodeHttpListener, type CoreHandler } from "@protoc-gen-a2a/runtime";
import { createDualVersionHttpHandler } from "@protoc-gen-a2a/runtime/protocol";
import { bridgeToOlder, clientForOlder, dualVersionHttpHandler } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV1_0, type A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceHttpHandler as createV03HttpHandler } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { TaskState, Role } from "../../generated-samples/v1.0.1/a2a_pb.js";

/** A deterministic v1.0 handler: the task holds the message as sent; the stream echoes it, then completes. */
const handler: A2AServiceHandler = {
  async sendMessage(req) {
    return {
      payload: {
        case: "task",
        value: { id: "t-1", contextId: "c-1", status: { state: TaskState.COMPLETED }, history: [req.message!] },
      },
    };
  },
  async *sendStreamingMessage(req) {
    yield { payload: { case: "message", value: req.message! } };
    yield {
      payload: {
        case: "statusUpdate",
        value: { taskId: "t-1", contextId: "c-1", status: { state: TaskState.COMPLETED } },
      },
    };
  },
  async getTask(req) {
    throw new A2AError("TaskNotFoundError", `no task ${req.id}`);
  },
};

const message = {
  kind: "message",
  messageId: "m-1",
  role: "user",
  referenceTaskIds: ["t-0"],
  parts: [{ kind: "text", text: "hello", metadata: { k: 1 } }],
};

/** The v0.3 JSON-RPC calls compared: unary, stream, an error, each with a2a.json-only fields where it has any. */
const CALLS: readonly { readonly method: string; readonly params: JsonValue }[] = [
  { method: "message/send", params: { message, configuration: { blocking: true } } },
  { method: "message/stream", params: { message } },
  { method: "tasks/get", params: { id: "nope" } },
];

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function serve(core: CoreHandler): Promise<string> {
  const srv = createServer(nodeHttpListener(core));
  servers.push(srv);
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

/** Each call's answer as sent: status, content type and body bytes. */
async function answers(url: string): Promise<string[]> {
  const out: string[] = [];
  for (const [i, call] of CALLS.entries()) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: i, method: call.method, params: call.params }),
    });
    out.push(`${res.status} ${res.headers.get("content-type")}\n${await res.text()}`);
  }
  return out;
}

/** A proxy that records every property read, as a logging wrapper would. */
function logging<T extends object>(target: T, log: string[]): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      log.push(String(key));
      return Reflect.get(t, key, receiver);
    },
  });
}

describe("the bridge's one-pass JSON-RPC path is an option, not a hidden property", () => {
  it("a logging proxy or spread of the bridged handler answers v0.3 JSON-RPC byte for byte alike", async () => {
    const bridged = bridgeToOlder(handler);
    const log: string[] = [];
    const v03 = (older: typeof bridged) => serve(createV03HttpHandler({ ...older, jsonrpcPath: "/rpc" }));
    const plain = await answers(`${await v03(bridged)}/rpc`);
    const proxied = await answers(`${await v03({ ...bridged, handler: logging(bridged.handler, log) })}/rpc`);
    const spread = await answers(`${await v03({ ...bridged, handler: { ...bridged.handler } })}/rpc`);
    expect(proxied).toEqual(plain);
    expect(spread).toEqual(plain);
    // The one-pass path kept what only a2a.json can carry.
    expect(plain[0]).toContain('"referenceTaskIds":["t-0"]');
    expect(plain[0]).toContain('"metadata":{"k":1}');
    expect(plain[1]).toMatch(/^200 text\/event-stream/);
    expect(plain[1]).toContain('"referenceTaskIds":["t-0"]');
    expect(plain[2]).toContain('"code":-32001');
    // JSON-RPC called the operations the options name, not the wrapped handler.
    expect(log.filter((k) => k === "sendMessage" || k === "sendStreamingMessage" || k === "getTask")).toEqual([]);
  });

  it("the same through the dual-version server, the generated helper and a wrapped older side", async () => {
    const bridged = bridgeToOlder(handler);
    const newer = { definition: A2AServiceV1_0, handler };
    const helper = await answers(`${await serve(dualVersionHttpHandler(handler, { jsonrpcPath: "/rpc" }))}/rpc`);
    const byHand = await answers(
      `${await serve(createDualVersionHttpHandler({ newer, older: bridged, jsonrpcPath: "/rpc" }))}/rpc`,
    );
    const older = { ...bridged, handler: logging(bridged.handler, []) };
    const wrapped = await answers(
      `${await serve(createDualVersionHttpHandler({ newer, older, jsonrpcPath: "/rpc" }))}/rpc`,
    );
    expect(byHand).toEqual(helper);
    expect(wrapped).toEqual(helper);
    expect(helper[0]).toContain('"referenceTaskIds":["t-0"]');
  });

  it("without the operations, JSON-RPC goes through the v0.3 proto, which cannot hold them", async () => {
    const { definition, handler: older } = bridgeToOlder(handler);
    const losses: string[] = [];
    const url = await serve(
      createV03HttpHandler({ handler: older, jsonrpcPath: "/rpc", onLoss: (op, l) => losses.push(`${op} ${l.path}`) }),
    );
    const [sent] = await answers(`${url}/rpc`);
    expect(definition.protocolVersion).toBe("0.3");
    expect(sent).not.toContain("referenceTaskIds");
    expect(losses).toContain("SendMessage message.referenceTaskIds");
  });

  it("client side: a spread or proxied JSON-RPC client still sends a2a.json in one pass", async () => {
    const sent: string[] = [];
    const url = await serve(async (req) => {
      const text = new TextDecoder().decode(await req.body(1 << 20));
      sent.push(text);
      const result = { kind: "task", id: "t-1", contextId: "c-1", status: { state: "completed" } };
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(text).id, result }),
      };
    });
    const request = {
      message: {
        messageId: "m-1",
        role: Role.USER,
        referenceTaskIds: ["t-0"],
        parts: [{ content: { case: "text" as const, value: "hello" }, metadata: { k: 1 } }],
      },
    };
    const client = createA2AServiceJsonRpcClient({ url });
    for (const older of [client, { ...client }, logging(client, [])]) {
      const res = await clientForOlder(older).sendMessage(request);
      expect(res.payload.case).toBe("task");
    }
    // The same params each time (the envelope ids count up: the three share one client's calls).
    const params = sent.map((body) => JSON.stringify((JSON.parse(body) as { params: unknown }).params));
    expect([params.length, new Set(params).size]).toEqual([3, 1]);
    expect(JSON.parse(params[0]!)).toMatchObject({
      message: { referenceTaskIds: ["t-0"], parts: [{ metadata: { k: 1 } }] },
    });
  });
});
