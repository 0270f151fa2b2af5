/**
 * The client bridge (a v1.0 client over a v0.3 peer: clientForOlder) against a v0.3 peer that answers what the
 * test says, on 127.0.0.1, over JSON-RPC (one pass on a2a.json) and HTTP+JSON (through the proto conversion):
 *   - an answer the v1.0 types cannot hold (an unknown state) is an A2ATransportError naming the operation, as
 *     the plain clients throw for an answer they cannot read, not a bare CompatJsonError;
 *   - a stream ends after the status update that says it is final, even when the peer keeps it open;
 *   - a v0.3 error reads under the v1.0 name of its code (JSON-RPC).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { A2AError, A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientForOlder } from "../generated-samples/a2a_compat.js";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v0.3.0/a2a_rest.js";
import { Role, TaskState } from "../generated-samples/v1.0.1/a2a_pb.js";

type Binding = "JSONRPC" | "HTTP+JSON";

/** What the peer answers next: a result (JSON-RPC) or body (HTTP+JSON), a JSON-RPC error, or stream events. */
let answer: { readonly result?: unknown; readonly error?: unknown; readonly events?: readonly unknown[] } = {};
let peer: Server;
let base: string;

beforeAll(async () => {
  peer = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      const jsonrpc = req.url === "/rpc";
      const id = jsonrpc ? (JSON.parse(body) as { id: unknown }).id : undefined;
      const wrap = (result: unknown) => (jsonrpc ? { jsonrpc: "2.0", id, result } : result);
      if (answer.error !== undefined) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id, error: answer.error }));
        return;
      }
      if (answer.events === undefined) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(wrap(answer.result)));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of answer.events) res.write(`data: ${JSON.stringify(wrap(event))}\n\n`);
      // Kept open: a comment now and then, until the client leaves.
      const keepAlive = setInterval(() => res.write(": still here\n\n"), 100);
      res.on("close", () => clearInterval(keepAlive));
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
});

afterAll(() => {
  peer.closeAllConnections();
  peer.close();
});

const bridged = (binding: Binding) =>
  clientForOlder(
    binding === "JSONRPC"
      ? createA2AServiceJsonRpcClient({ url: `${base}/rpc` })
      : createA2AServiceRestClient({ url: `${base}/rest` }),
  );

const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };

/** The peer's task, as each binding writes it (a2a.json; the v0.3 proto's JSON). */
const taskOf = (binding: Binding, state: string) =>
  binding === "JSONRPC"
    ? { kind: "task", id: "t1", contextId: "c1", status: { state } }
    : { task: { id: "t1", contextId: "c1", status: { state } } };

const finalUpdate = (binding: Binding) => {
  const update = { taskId: "t1", contextId: "c1", status: { state: "completed" }, final: true };
  return binding === "JSONRPC"
    ? { kind: "status-update", ...update }
    : { statusUpdate: { ...update, status: { state: "TASK_STATE_COMPLETED" } } };
};

describe.each<Binding>(["JSONRPC", "HTTP+JSON"])("over %s", (binding) => {
  it("an answer with a state v1.0 does not have is an A2ATransportError naming the operation", async () => {
    // a2a.json's spelling v1.0 has no value for; the v0.3 proto takes a number it has no name for, v1.0 not.
    answer = { result: taskOf(binding, binding === "JSONRPC" ? "paused" : (99 as unknown as string)) };
    const error = await bridged(binding)
      .sendMessage({ message })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(A2ATransportError);
    expect((error as A2ATransportError).operation).toBe("SendMessage");
    expect((error as Error).message).toMatch(binding === "JSONRPC" ? /unknown value "paused"/ : /unknown value 99/);
  });

  it("a stream ends after the final status update, though the peer keeps it open", async () => {
    answer = {
      events: [taskOf(binding, binding === "JSONRPC" ? "working" : "TASK_STATE_WORKING"), finalUpdate(binding)],
    };
    const seen: string[] = [];
    // Bounded: a stream that did not end by itself is aborted, and the loop throws.
    const signal = AbortSignal.timeout(5000);
    for await (const event of bridged(binding).sendStreamingMessage({ message }, { signal })) {
      const { payload } = event;
      seen.push(
        payload.case === "statusUpdate" ? `status ${TaskState[payload.value.status?.state ?? 0]}` : `${payload.case}`,
      );
    }
    expect(seen).toEqual(["task", "status COMPLETED"]);
  });
});

describe("over JSONRPC, a v0.3 error", () => {
  it("reads under the v1.0 name of its code, its message and code kept", async () => {
    answer = { error: { code: -32007, message: "no extended card here" } };
    const error = await bridged("JSONRPC")
      .getExtendedAgentCard({})
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(A2AError);
    const { type, code, message } = error as A2AError;
    expect({ type, code, message }).toEqual({
      type: "ExtendedAgentCardNotConfiguredError",
      code: -32007,
      message: "no extended card here",
    });
  });
});

describe("over JSONRPC, a loss callback that throws", () => {
  it("throws its own error to the caller, not an unreadable-answer transport error", async () => {
    answer = { result: { ...taskOf("JSONRPC", "working"), surplus: 1 } };
    const strict = new Error("strict: no losses");
    const client = clientForOlder(
      createA2AServiceJsonRpcClient({
        url: `${base}/rpc`,
        onLoss: () => {
          throw strict;
        },
      }),
    );
    const error = await client.sendMessage({ message }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBe(strict);
  });
});
