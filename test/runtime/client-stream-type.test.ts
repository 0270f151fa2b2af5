/**
 * A streaming call's answer is an event stream when its media type is text/event-stream in any case and with
 * any parameters (RFC 9110 §8.3.1): a peer on 127.0.0.1 answers "Text/Event-Stream; charset=utf-8" with one
 * event and then holds the stream open, and both HTTP clients hand the event on at once rather than waiting
 * for the body to end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { type HttpPeer, startHttpPeer } from "../helpers/http-peer.js";

const task = { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } };

let peer: HttpPeer;
beforeAll(async () => {
  peer = await startHttpPeer((req, res, body) => {
    const rpc = req.url === "/rpc";
    const event = rpc ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: unknown }).id, result: { task } } : { task };
    res.writeHead(200, { "content-type": "Text/Event-Stream; charset=utf-8" });
    // The stream stays open: a client that took it for one JSON body would wait for its end.
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  });
});
afterAll(() => peer.close());

describe.each([
  ["JSON-RPC", () => createA2AServiceJsonRpcClient({ url: `${peer.url}/rpc` })],
  ["HTTP+JSON", () => createA2AServiceRestClient({ url: `${peer.url}/rest` })],
] as const)("%s client", (_name, makeClient) => {
  it("reads a Text/Event-Stream answer as a stream", async () => {
    const stop = new AbortController();
    const events = makeClient().subscribeToTask({ id: "t" }, { signal: stop.signal });
    const first = await events[Symbol.asyncIterator]().next();
    stop.abort();
    expect(first.done).toBe(false);
    expect(first.value?.payload.case).toBe("task");
  });
});
