/**
 * The JSON-RPC client reads only a JSON-RPC 2.0 response to the request it sent: "jsonrpc": "2.0", exactly
 * one of result and error, an error with an integer code and a message, and the request's id (an error may
 * carry null). Anything else is an A2ATransportError saying what was wrong, never a result or an A2AError;
 * a non-2xx answer whose JSON is no such response (a gateway's error page) is a transport error with its
 * status. A peer on 127.0.0.1 answers each request with the envelope the test gives it.
 */
import { A2AError, A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { type HttpPeer, startHttpPeer } from "../helpers/http-peer.js";

/** The next answer: a status and the body made from the request's id. */
let answer: (id: unknown) => { status: number; body: unknown } = () => ({ status: 200, body: {} });

let peer: HttpPeer;
let url = "";
beforeAll(async () => {
  peer = await startHttpPeer((_req, res, body) => {
    const { id } = JSON.parse(body) as { id: unknown };
    const a = answer(id);
    res.writeHead(a.status, { "content-type": "application/json" });
    res.end(JSON.stringify(a.body));
  });
  url = peer.url;
});
afterAll(() => peer.close());

const task = { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } };

async function failure(): Promise<unknown> {
  return createA2AServiceJsonRpcClient({ url })
    .getTask({ id: "t" })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
}

describe("a 200 answer", () => {
  it.each<[string, (id: unknown) => unknown, string]>([
    ["for another request", (id) => ({ jsonrpc: "2.0", id: Number(id) + 100, result: task }), "(id "],
    ["with the id as a string", (id) => ({ jsonrpc: "2.0", id: String(id), result: task }), "(id "],
    ["without jsonrpc", (id) => ({ id, result: task }), 'without "jsonrpc": "2.0"'],
    ['with "jsonrpc": "1.0"', (id) => ({ jsonrpc: "1.0", id, result: task }), 'without "jsonrpc": "2.0"'],
    [
      "with a result and an error",
      (id) => ({ jsonrpc: "2.0", id, result: task, error: { code: 1, message: "x" } }),
      "both",
    ],
    ["with neither", (id) => ({ jsonrpc: "2.0", id }), "no result"],
    ["with an error code 1.5", (id) => ({ jsonrpc: "2.0", id, error: { code: 1.5, message: "x" } }), "integer code"],
    ['with an error "boom"', (id) => ({ jsonrpc: "2.0", id, error: "boom" }), "integer code"],
    ["with an error without message", (id) => ({ jsonrpc: "2.0", id, error: { code: -32001 } }), "integer code"],
    ["that is an array", () => [], "no JSON-RPC response"],
  ])("%s is a transport error saying so", async (_name, body, said) => {
    answer = (id) => ({ status: 200, body: body(id) });
    const e = await failure();
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as Error).message).toContain(said);
  });

  it("with the request's id is read, and an error may carry id null", async () => {
    answer = (id) => ({ status: 200, body: { jsonrpc: "2.0", id, result: task } });
    expect((await createA2AServiceJsonRpcClient({ url }).getTask({ id: "t" })).id).toBe("t");
    answer = () => ({ status: 200, body: { jsonrpc: "2.0", id: null, error: { code: -32001, message: "gone" } } });
    const e = await failure();
    expect(e).toBeInstanceOf(A2AError);
    expect([(e as A2AError).type, (e as A2AError).message]).toEqual(["TaskNotFoundError", "gone"]);
  });
});

describe("a non-2xx answer", () => {
  it("whose JSON is a gateway's error, not a JSON-RPC response, is a transport error with its status", async () => {
    const gateway = { error: { code: 503, message: "The service is currently unavailable.", status: "UNAVAILABLE" } };
    answer = () => ({ status: 503, body: gateway });
    const e = await failure();
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as A2ATransportError).status).toBe(503);
  });

  it("that is a JSON-RPC error response to the request is that error", async () => {
    answer = (id) => ({ status: 401, body: { jsonrpc: "2.0", id, error: { code: -32001, message: "gone" } } });
    expect(await failure()).toBeInstanceOf(A2AError);
  });
});
