/**
 * Operation mapping between the versions in every binding, and the errors a
 * v0.3 peer receives from a v1.0 handler through the bridge: -32007 renamed,
 * -32008 and -32009 (v1.0 only) as JSON-RPC server errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { A2AError, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { createDualVersionHttpHandler } from "@protoc-gen-a2a/runtime/protocol";
import { a2aOperations, bridgeToOlder } from "../generated-samples/a2a_compat.js";
import { A2AServiceV1_0, type A2AServiceHandler } from "../generated-samples/v1.0.1/a2a_a2a.js";
import { createEchoHandler } from "../examples/echo-agent/echo-handler.js";
import { readJson, type JsonRpcFailure } from "./helpers/json.js";

describe("operation mapping", () => {
  it.each([
    ["JSONRPC", "message/send", "SendMessage"],
    ["JSONRPC", "tasks/resubscribe", "SubscribeToTask"],
    ["JSONRPC", "agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"],
    ["GRPC", "/a2a.v1.A2AService/TaskSubscription", "/lf.a2a.v1.A2AService/SubscribeToTask"],
    ["GRPC", "/a2a.v1.A2AService/SendMessage", "/lf.a2a.v1.A2AService/SendMessage"],
  ] as const)("%s %s ↔ %s", (binding, older, newer) => {
    expect(a2aOperations.counterpart(binding, older)).toBe(newer);
    expect(a2aOperations.counterpart(binding, newer)).toBe(older);
  });

  it("HTTP+JSON routes map to the other version's routes", () => {
    expect(a2aOperations.counterpart("HTTP+JSON", "POST /v1/message:send")).toEqual([
      "POST /message:send",
      "POST /{tenant}/message:send",
    ]);
    expect(a2aOperations.counterpart("HTTP+JSON", "GET /tasks/{id=*}:subscribe")).toEqual([
      "GET /v1/{name=tasks/*}:subscribe",
      "POST /v1/{name=tasks/*}:subscribe",
    ]);
  });

  it("ListTasks has no v0.3 counterpart in any binding", () => {
    expect(a2aOperations.counterpart("JSONRPC", "ListTasks")).toBeNull();
    expect(a2aOperations.counterpart("GRPC", "/lf.a2a.v1.A2AService/ListTasks")).toBeNull();
    expect(a2aOperations.counterpart("HTTP+JSON", "GET /tasks")).toBeNull();
  });
});

describe("errors through the bridge", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const handler: A2AServiceHandler = {
      ...createEchoHandler(),
      async getExtendedAgentCard() {
        throw new A2AError("ExtendedAgentCardNotConfiguredError");
      },
      async getTask(req) {
        if (req.id === "ext") throw new A2AError("ExtensionSupportRequiredError", "declare urn:x");
        throw new A2AError("VersionNotSupportedError", "no");
      },
    };
    server = createServer(
      nodeHttpListener(
        createDualVersionHttpHandler({
          newer: { definition: A2AServiceV1_0, handler },
          older: bridgeToOlder(handler),
          jsonrpcPath: "/rpc",
          restBasePath: "/rest",
        }),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const call = async (method: string, params: unknown) =>
    (
      await readJson<JsonRpcFailure>(
        fetch(`${url}/rpc`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        }),
      )
    ).error;

  it("-32007 reaches a v0.3 peer under its v0.3 name and message, without ErrorInfo", async () => {
    expect(await call("agent/getAuthenticatedExtendedCard", undefined)).toEqual({
      code: -32007,
      message: "Authenticated Extended Card is not configured",
    });
  });
  it("-32008 and -32009, which v0.3 does not define, arrive as server errors with their code and message", async () => {
    expect(await call("tasks/get", { id: "ext" })).toEqual({ code: -32008, message: "declare urn:x" });
    expect(await call("tasks/get", { id: "v" })).toEqual({ code: -32009, message: "no" });
    const rest = await fetch(`${url}/rest/v1/tasks/ext`);
    expect(rest.status).toBe(400);
    expect(await rest.json()).toEqual({ code: -32008, message: "declare urn:x" });
  });
});
