/**
 * An A2A error a client reads keeps the answer it came in (A2AErrorOptions.received): its HTTP status and
 * headers on JSON-RPC and HTTP+JSON (a 401's WWW-Authenticate challenge among them), its metadata on gRPC,
 * for unary calls and a stream's error event alike. Against a real v1.0 agent on 127.0.0.1, and a proxy agent
 * that rethrows what its client read: the proxy's answer carries none of the peer's headers.
 */
import { A2AError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { BINDINGS, startV10Agent, v10ClientOf as clientOf, type V10Agent as Agent } from "../helpers/v10-agent.js";

const CHALLENGE = 'Bearer error="invalid_token"';

const peerHandler: A2AServiceHandler = {
  getTask: async () => {
    throw new A2AError("UnauthenticatedError", "the token expired", { headers: { "www-authenticate": CHALLENGE } });
  },
  cancelTask: async ({ id }) => {
    throw new A2AError("TaskNotFoundError", `Task ${id} not found`);
  },
  async *sendStreamingMessage() {
    yield { payload: { case: "task", value: { id: "t", contextId: "c", status: { state: TaskState.WORKING } } } };
    throw new A2AError("TaskNotFoundError", "Task t went away");
  },
};

let peer: Agent;
let proxy: Agent;
beforeAll(async () => {
  peer = await startV10Agent(peerHandler);
  const upstream = clientOf(peer, "HTTP+JSON");
  // Rethrows what its client read, as an agent that forwards calls does.
  proxy = await startV10Agent({ getTask: (request) => upstream.getTask(request) });
});
afterAll(async () => {
  await Promise.all([peer?.close(), proxy?.close()]);
});

async function caught(call: () => Promise<unknown>): Promise<A2AError> {
  const e = await call().then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(A2AError);
  return e as A2AError;
}

const hello = {
  message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] },
};

describe.each(BINDINGS)("%s", (binding) => {
  const http = binding !== "GRPC";

  it("keeps the status and headers of a refusal, the challenge among them", async () => {
    const e = await caught(() => clientOf(peer, binding).getTask({ id: "t" }));
    expect(e.type).toBe("UnauthenticatedError");
    expect(e.options.received?.status).toBe(http ? 401 : undefined);
    expect(e.options.received?.headers.get("www-authenticate")).toBe(CHALLENGE);
  });

  it("keeps the answer of an error the binding sends with another status", async () => {
    const e = await caught(() => clientOf(peer, binding).cancelTask({ id: "t-9" }));
    expect(e.type).toBe("TaskNotFoundError");
    expect(e.options.received?.status).toBe({ JSONRPC: 200, "HTTP+JSON": 404, GRPC: undefined }[binding]);
    const type = e.options.received?.headers.get("content-type") ?? "";
    expect(type.startsWith(http ? "application/" : "application/grpc")).toBe(true);
  });

  it("keeps the stream's answer for its error event", async () => {
    const states: TaskState[] = [];
    const e = await caught(async () => {
      for await (const ev of clientOf(peer, binding).sendStreamingMessage(hello)) {
        if (ev.payload.case === "task") states.push(ev.payload.value.status?.state ?? TaskState.UNSPECIFIED);
      }
    });
    expect([e.type, states]).toEqual(["TaskNotFoundError", [TaskState.WORKING]]);
    expect(e.options.received?.status).toBe(http ? 200 : undefined);
    const type = e.options.received?.headers.get("content-type") ?? "";
    expect(type.startsWith(http ? "text/event-stream" : "application/grpc")).toBe(true);
  });

  it("sends none of a peer's answer when a handler rethrows its error", async () => {
    const e = await caught(() => clientOf(proxy, binding).getTask({ id: "t" }));
    expect(e.type).toBe("UnauthenticatedError");
    expect(e.options.received?.status).toBe(http ? 401 : undefined);
    expect(e.options.received?.headers.get("www-authenticate")).toBe(null);
  });
});
