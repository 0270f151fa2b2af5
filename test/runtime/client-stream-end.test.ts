/**
 * A task stream ends at the event that puts the task in a terminal or interrupted state, on the client too
 * (resubscribe.ts, streamEnd; applied by buildClient): a server that sends a COMPLETED task and keeps the
 * connection open no longer holds the caller's iterator, with resubscription off as on. A server on 127.0.0.1
 * answers SubscribeToTask so on JSON-RPC and HTTP+JSON; each wait is bounded by a watchdog.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { type HttpPeer, startHttpPeer } from "../helpers/http-peer.js";

let peer: HttpPeer;
let base: string;
const task = (state: string) => ({ task: { id: "t", contextId: "c", status: { state } } });

beforeAll(async () => {
  peer = await startHttpPeer((req, res, body) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const events = [task("TASK_STATE_WORKING"), task("TASK_STATE_COMPLETED")];
    const id = req.url === "/rpc" ? (JSON.parse(body) as { id: number }).id : undefined;
    for (const event of events) {
      const data = id === undefined ? event : { jsonrpc: "2.0", id, result: event };
      res.write(`data: ${JSON.stringify(data)}\n\n`);
    }
    // The connection stays open after the terminal event.
  });
  base = peer.url;
});

afterAll(() => peer.close());

describe.each([
  ["JSON-RPC", () => createA2AServiceJsonRpcClient({ url: `${base}/rpc` })],
  ["HTTP+JSON", () => createA2AServiceRestClient({ url: `${base}/rest` })],
])("%s", (_, client) => {
  it("ends SubscribeToTask's iterator at the COMPLETED task, the connection still open", async () => {
    const states: number[] = [];
    const read = (async () => {
      for await (const event of client().subscribeToTask({ id: "t" })) {
        if (event.payload.case === "task") states.push(event.payload.value.status?.state ?? -1);
      }
      return "ended";
    })();
    const watchdog = new Promise((resolve) => setTimeout(() => resolve("still open after 5 s"), 5000));
    expect(await Promise.race([read, watchdog])).toBe("ended");
    expect(states).toEqual([2, 3]);
  });
});
