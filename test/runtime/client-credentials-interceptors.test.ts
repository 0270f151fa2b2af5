/**
 * Client interceptors (client/client-interceptor.ts), the ground the
 * credentials stand on: on the JSON-RPC, HTTP+JSON and gRPC clients alike an
 * interceptor sees the operation, the typed request, the headers the binding
 * sends (its changes reach the server, as HTTP headers or gRPC metadata), the
 * interface URL, binding and version; it can answer without a request, refuse,
 * retry, and change a unary result or a stream's events. A v0.3 JSON-RPC
 * client under the version bridge runs them too. Against a real agent on
 * 127.0.0.1 (test/helpers/credentials-agent.ts).
 */
import { create, isMessage } from "@bufbuild/protobuf";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  A2AError,
  A2ATransportError,
  type A2aClientCall,
  type A2aClientOptions,
  type ClientInterceptor,
} from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clientForCard } from "../../generated-samples/a2a_compat.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import {
  GetTaskRequestSchema,
  Role,
  TaskSchema,
  TaskState,
  type StreamResponse,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { startCredentialsAgent, type CredentialsAgent } from "../helpers/credentials-agent.js";
import { startV03EchoAgent, type RunningV03Agent } from "../helpers/v03-echo-agent.js";

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

let agent: CredentialsAgent;
beforeAll(async () => {
  // Refuses a call that asks to be refused (x-refuse), as an authenticating server refuses one.
  agent = await startCredentialsAgent({ refuse: (h) => h.get("x-refuse") ?? undefined });
});
afterAll(() => agent?.close());
beforeEach(() => {
  agent.seen.length = 0;
});

const urlOf = (b: Binding) => (b === "JSONRPC" ? agent.rpc : b === "HTTP+JSON" ? agent.rest : agent.grpc);
const viaOf = (b: Binding) => (b === "GRPC" ? "grpc" : "http");

function clientFor(binding: Binding, interceptors: readonly ClientInterceptor[]): A2AServiceClient {
  const options: A2aClientOptions = { url: urlOf(binding), interceptors, extensions: ["urn:x:ext"] };
  if (binding === "JSONRPC") return createA2AServiceJsonRpcClient(options);
  if (binding === "HTTP+JSON") return createA2AServiceRestClient(options);
  return createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: agent.grpc }), options);
}

const hello = (text: string) => ({
  message: { messageId: text, role: Role.USER, parts: [{ content: { case: "text" as const, value: text } }] },
});

describe.each(BINDINGS)("%s", (binding) => {
  it("sees the call, and the headers it sets reach the server", async () => {
    const calls: A2aClientCall[] = [];
    const watch: ClientInterceptor = (next) => async (call) => {
      calls.push(call);
      call.headers.set("x-trace", "trace-1");
      return next(call);
    };
    const task = await clientFor(binding, [watch]).getTask({ id: "t-1" }, { headers: { "x-call": "c" } });
    expect(task.id).toBe("t-1");
    const [call] = calls;
    expect(call!.operation.name).toBe("GetTask");
    expect(isMessage(call!.request, GetTaskRequestSchema) && call!.request.id).toBe("t-1");
    expect([call!.url, call!.binding, call!.protocolVersion]).toEqual([urlOf(binding), binding, "1.0"]);
    expect([
      call!.headers.get("a2a-version"),
      call!.headers.get("a2a-extensions"),
      call!.headers.get("x-call"),
    ]).toEqual(["1.0", "urn:x:ext", "c"]);
    const seen = agent.seen.filter((r) => r.via === viaOf(binding)).at(-1)!;
    expect([seen.headers.get("x-trace"), seen.headers.get("x-call")]).toEqual(["trace-1", "c"]);
  });

  it("refuses: an A2AError reaches the caller as it is, else a transport error; nothing is sent", async () => {
    const denied = new A2AError("PermissionDeniedError", "not on my watch");
    const refuseA2a: ClientInterceptor = () => async () => {
      throw denied;
    };
    await expect(clientFor(binding, [refuseA2a]).getTask({ id: "t-1" })).rejects.toBe(denied);
    const refuseOther: ClientInterceptor = () => async () => {
      throw new RangeError("out of budget");
    };
    const e = await clientFor(binding, [refuseOther])
      .getTask({ id: "t-1" })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as A2ATransportError).message).toBe(`GetTask: ${urlOf(binding)} failed: out of budget`);
    expect((e as A2ATransportError).cause).toBeInstanceOf(RangeError);
    expect(agent.seen).toEqual([]);
  });

  it("answers without a request, and changes a unary result", async () => {
    const cache: ClientInterceptor = (next) => async (call) =>
      isMessage(call.request, GetTaskRequestSchema) && call.request.id === "cached"
        ? { kind: "unary", message: create(TaskSchema, { id: "cached", status: { state: TaskState.COMPLETED } }) }
        : next(call);
    const relabel: ClientInterceptor = (next) => async (call) => {
      const result = await next(call);
      if (result.kind === "unary" && isMessage(result.message, TaskSchema)) result.message.contextId = "relabelled";
      return result;
    };
    const client = clientFor(binding, [cache, relabel]);
    expect((await client.getTask({ id: "cached" })).status?.state).toBe(TaskState.COMPLETED);
    expect(agent.seen).toEqual([]);
    expect((await client.getTask({ id: "t-2" })).contextId).toBe("relabelled");
  });

  it("retries a refused call with other headers; on a stream next rejects before the first event", async () => {
    const refusals: unknown[] = [];
    const retry: ClientInterceptor = (next) => async (call) => {
      call.headers.set("x-refuse", "first attempt");
      try {
        return await next(call);
      } catch (e) {
        refusals.push(e);
        call.headers.delete("x-refuse");
        return next(call);
      }
    };
    const client = clientFor(binding, [retry]);
    expect((await client.getTask({ id: "t-1" })).id).toBe("t-1");
    const events: string[] = [];
    for await (const ev of client.sendStreamingMessage(hello("m-1"))) events.push(String(ev.payload.case));
    expect(events).toEqual(["task", "statusUpdate"]);
    expect(refusals.map((e) => (e as A2AError).type)).toEqual(["UnauthenticatedError", "UnauthenticatedError"]);
    expect(agent.seen.filter((r) => r.via === viaOf(binding)).map((r) => r.headers.get("x-refuse"))).toEqual([
      "first attempt",
      null,
      "first attempt",
      null,
    ]);
  });

  it("changes a stream's events, and runs the first interceptor outermost", async () => {
    const log: string[] = [];
    const named =
      (name: string): ClientInterceptor =>
      (next) =>
      async (call) => {
        log.push(`${name} in`);
        const result = await next(call);
        log.push(`${name} out`);
        return result;
      };
    const tag: ClientInterceptor = (next) => async (call) => {
      const result = await next(call);
      if (result.kind !== "stream") return result;
      const messages = (async function* () {
        for await (const ev of result.messages) {
          const e = ev as StreamResponse;
          if (e.payload.case === "task") e.payload.value.contextId = "tagged";
          yield e;
        }
      })();
      return { kind: "stream", messages };
    };
    const client = clientFor(binding, [named("outer"), named("inner"), tag]);
    const first = (await client.sendStreamingMessage(hello("m-2"))[Symbol.asyncIterator]().next()).value;
    expect(first?.payload.case === "task" && first.payload.value.contextId).toBe("tagged");
    expect(log).toEqual(["outer in", "inner in", "inner out", "outer out"]);
  });
});

describe("under the version bridge", () => {
  let v03: RunningV03Agent;
  beforeAll(async () => {
    v03 = await startV03EchoAgent();
  });
  afterAll(() => v03?.close());

  it("a v0.3 JSON-RPC client runs them on its own messages, at 0.3", async () => {
    const calls: A2aClientCall[] = [];
    const watch: ClientInterceptor = (next) => async (call) => {
      calls.push(call);
      return next(call);
    };
    const { client, bridged } = clientForCard(v03.card, { bindings: ["JSONRPC"], interceptors: [watch] });
    expect(bridged).toBe(true);
    const res = await client.sendMessage({ ...hello("over 0.3"), configuration: { returnImmediately: false } });
    expect(res.payload.case).toBe("task");
    expect(calls.map((c) => [c.operation.name, c.protocolVersion, c.binding, c.request.$typeName])).toEqual([
      ["SendMessage", "0.3", "JSONRPC", "a2a.v1.SendMessageRequest"],
    ]);
  });
});
