/**
 * The echo agent's HTTP side runs unchanged on Bun, Deno and workerd (Miniflare), each from npm, started as
 * `npm run example -- --runtime <name>` starts it (main.js --runtime, runtimes/): per runtime, the generated
 * v1.0 clients over JSON-RPC and HTTP+JSON and the @a2a-js/sdk 1.3.0 client, each through the agent card,
 * send, stream, get, cancel and list; an unknown task is TaskNotFoundError to each; a body declared over the
 * limit is refused before it is read; a client that leaves a stream is seen by the agent (its request line ends
 * "(closed early)"; on workerd only once the stream next writes) and the agent goes on serving. A runtime that
 * cannot start fails its tests: nothing is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallOptions } from "@protoc-gen-a2a/runtime";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v1.0.1/a2a_rest.js";
import { postDeclaringMore } from "./helpers/declared-body.js";
import { a2aJsClientCalls, generatedClientCalls, textMessage } from "./helpers/echo-calls.js";
import { type ExampleProcess, startExampleProcess, stopAllExampleProcesses } from "./helpers/example-process.js";

const RUNTIMES = ["bun", "deno", "workerd"] as const;

afterAll(() => stopAllExampleProcesses());

describe.each(RUNTIMES)("the echo agent on %s", (runtime) => {
  let agent: ExampleProcess;

  beforeAll(async () => {
    agent = await startExampleProcess({}, { runtime });
  });

  it("names the runtime and its version in its first line", () => {
    const names = {
      bun: /^echo agent on Bun \d+\.\d+/,
      deno: /^echo agent on Deno \d+\.\d+/,
      workerd: /^echo agent on workerd \d/,
    };
    expect(agent.out()).toMatch(names[runtime]);
  });

  it.each(["JSON-RPC", "HTTP+JSON"] as const)("generated v1.0 client over %s", async (binding) => {
    const options = { url: binding === "JSON-RPC" ? agent.urls.jsonrpc : agent.urls.rest };
    const client =
      binding === "JSON-RPC" ? createA2AServiceJsonRpcClient(options) : createA2AServiceRestClient(options);
    await generatedClientCalls(client);
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("@a2a-js/sdk 1.3.0 client over %s, from the card", async (binding) => {
    await a2aJsClientCalls(agent.urls.card, binding);
  });

  it("refuses a body declared over the limit (1 MiB) without reading it", async () => {
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    const status = await postDeclaringMore(agent.urls.jsonrpc, headers, 2 << 20);
    expect(status).toBe(413);
  });

  it("sees a client leave a stream, and serves on", async () => {
    const client = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
    const abort = new AbortController();
    const options: CallOptions = { signal: abort.signal };
    const stream = client.sendStreamingMessage({ message: textMessage("wait") }, options);
    for await (const e of stream) {
      expect(e.payload.case).toBe("task");
      abort.abort();
      break;
    }
    // workerd notices a client that left only when it next writes to the stream, and a waiting task writes
    // nothing: there the stream stays open inside until the task ends (README: Runtimes).
    if (runtime !== "workerd")
      await expect
        .poll(() => agent.out(), { timeout: 10_000 })
        .toMatch(/POST \/a2a\/jsonrpc v1\.0 200 \S+ \(closed early\)/);
    const again = await client.sendMessage({ message: textMessage("still here") });
    expect(again.payload.case).toBe("task");
  });
});
