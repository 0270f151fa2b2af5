/**
 * A client reads at most maxResponseBytes (default 64 MiB) of a response body, or of one event of a stream,
 * on JSON-RPC and HTTP+JSON: past it the call is an A2ATransportError saying so, the rest never read, so a
 * hostile or broken server cannot make the client hold what it sends without end. A peer on 127.0.0.1 answers
 * 2 MiB where the client takes 1 MiB; the same answer under the bound is read. An HTTP+JSON stream answered
 * with another Content-Type is a transport error too, not an empty stream.
 */
import { A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type HttpPeer, startHttpPeer } from "../helpers/http-peer.js";

const MIB = 1 << 20;
const big = "x".repeat(2 * MIB);
const task = { id: "t", contextId: "c", metadata: { big } };

let peer: HttpPeer;
let url = "";
beforeAll(async () => {
  peer = await startHttpPeer((req, res, body) => {
    const rpc = req.url === "/rpc";
    const id = rpc ? (JSON.parse(body) as { id: unknown }).id : undefined;
    const answer = (result: unknown) => (rpc ? { jsonrpc: "2.0", id, result } : result);
    if ((req.headers.accept ?? "").includes("event-stream") && req.headers["x-answer"] !== "json") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const event = answer({ task });
      res.end(`data: ${JSON.stringify(event)}\n\n`);
      return;
    }
    res.writeHead(200, { "content-type": rpc ? "application/json" : "application/a2a+json" });
    res.end(JSON.stringify(answer(task)));
  });
  url = peer.url;
});
afterAll(() => peer.close());

const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };

const clients = (maxResponseBytes?: number) =>
  [
    [
      "JSON-RPC",
      createA2AServiceJsonRpcClient({ url: `${url}/rpc`, ...(maxResponseBytes ? { maxResponseBytes } : {}) }),
    ],
    [
      "HTTP+JSON",
      createA2AServiceRestClient({ url: `${url}/rest`, ...(maxResponseBytes ? { maxResponseBytes } : {}) }),
    ],
  ] as const;

describe.each([0, 1])("binding %#", (index) => {
  it("refuses a body over maxResponseBytes, naming the bound", async () => {
    const [, client] = clients(MIB)[index]!;
    const e = await client.getTask({ id: "t" }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as Error).message).toContain(`answered a body over ${MIB} bytes`);
  });

  it("refuses a stream event over maxResponseBytes", async () => {
    const [, client] = clients(MIB)[index]!;
    const read = async () => {
      for await (const _ of client.sendStreamingMessage({ message })) {
        // nothing: the first event is over the bound
      }
    };
    const e = await read().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as Error).message).toContain(`longer than ${MIB} characters`);
  });

  it("reads the same answers under the default bound", async () => {
    const [, client] = clients()[index]!;
    expect((await client.getTask({ id: "t" })).metadata?.["big"]).toHaveLength(2 * MIB);
    for await (const event of client.sendStreamingMessage({ message })) {
      expect(event.payload.case).toBe("task");
    }
  });
});

it("HTTP+JSON refuses a stream answered with another Content-Type, as a transport error", async () => {
  const client = createA2AServiceRestClient({ url: `${url}/rest` });
  const read = async () => {
    for await (const _ of client.sendStreamingMessage({ message }, { headers: { "x-answer": "json" } })) {
      // none: the answer is no stream
    }
  };
  const e = await read().then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(A2ATransportError);
  expect((e as Error).message).toContain("answered application/a2a+json, not a stream");
});
