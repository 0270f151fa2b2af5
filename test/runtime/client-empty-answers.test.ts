/**
 * An answer with nothing in it (a JSON-RPC result of null, an HTTP+JSON 200 with an empty body, as a gateway
 * may send) is a transport error naming the operation, except for an operation that answers nothing
 * (google.protobuf.Empty: DeleteTaskPushNotificationConfig). Before, GetTask resolved an empty Task. A server on
 * 127.0.0.1 answers every request so, echoing the JSON-RPC id.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      if (req.url === "/rpc") {
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id, result: null }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

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
