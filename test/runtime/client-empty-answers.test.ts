/**
 * An answer with nothing in it (a JSON-RPC result of null, an HTTP+JSON 200 with an empty body, as a gateway
 * may send) is a transport error naming the operation, except for an operation that answers nothing
 * (google.protobuf.Empty: DeleteTaskPushNotificationConfig). Before, GetTask resolved an empty Task. A server on
 * 127.0.0.1 answers every request so, echoing the JSON-RPC id.
 */
import { A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { type HttpPeer, startHttpPeer } from "../helpers/http-peer.js";

let peer: HttpPeer;
let base: string;

beforeAll(async () => {
  peer = await startHttpPeer((req, res, body) => {
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url !== "/rpc") return void res.end();
    const { id } = JSON.parse(body) as { id: number };
    res.end(JSON.stringify({ jsonrpc: "2.0", id, result: null }));
  });
  base = peer.url;
});

afterAll(() => peer.close());

describe.each([
  ["JSON-RPC, a null result", () => createA2AServiceJsonRpcClient({ url: `${base}/rpc` }), "answered a null result"],
  [
    "HTTP+JSON, an empty body",
    () => createA2AServiceRestClient({ url: `${base}/rest` }),
    "answered HTTP 200 with no body",
  ],
])("%s", (_, client, says) => {
  it("is a transport error for GetTask, naming it", async () => {
    const e = await client()
      .getTask({ id: "t-1" })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as Error).message).toMatch(new RegExp(`^GetTask: .*${says}`));
  });

  it("is DeleteTaskPushNotificationConfig's answer", async () => {
    await expect(client().deleteTaskPushNotificationConfig({ taskId: "t-1", id: "c" })).resolves.toBeDefined();
  });
});
