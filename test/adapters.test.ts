/**
 * The fetch-style adapter `(Request) => Response` serves the same core as
 * node:http; and the example agent runs as `npm run example` does: it prints
 * its URLs, serves its card, and stops cleanly on SIGTERM.
 */
import { describe, expect, it } from "vitest";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fetchHandler } from "@protoc-gen-a2a/runtime";
import { createA2AServiceHttpHandler } from "../generated-samples/v1.0.1/a2a_a2a.js";
import { createEchoHandler } from "../examples/echo-agent/echo-handler.js";
import { repoRoot } from "./helpers/run.js";
import {
  readJson,
  type AgentCardJson,
  type JsonRpcSuccess,
  type RestError,
  type SendMessageTaskJson,
} from "./helpers/json.js";
import { onFreePortPair } from "./helpers/ports.js";

describe("fetch adapter", () => {
  const handle = fetchHandler(
    createA2AServiceHttpHandler({ handler: createEchoHandler(), jsonrpcPath: "/rpc", restBasePath: "/rest" }),
  );
  const V = { "A2A-Version": "1.0" };

  it("serves JSON-RPC, REST, streams and errors", async () => {
    const rpc = await handle(
      new Request("http://agent.test/rpc", {
        method: "POST",
        headers: { ...V, "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "SendMessage",
          params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } },
        }),
      }),
    );
    expect((await readJson<JsonRpcSuccess<SendMessageTaskJson>>(rpc)).result.task.artifacts![0]!.parts[0]!.text).toBe(
      "hi",
    );
    const stream = await handle(
      new Request("http://agent.test/rest/message:stream", {
        method: "POST",
        headers: { ...V, "content-type": "application/a2a+json" },
        body: JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "s" }] } }),
      }),
    );
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect((await stream.text()).match(/^data:/gm)).toHaveLength(4);
    const missing = await handle(new Request("http://agent.test/rest/tasks/nope", { headers: V }));
    expect(missing.status).toBe(404);
    expect((await readJson<RestError>(missing)).error.details[0]!.reason).toBe("TASK_NOT_FOUND");
    const wrongVerb = await handle(
      new Request("http://agent.test/rest/tasks/x:cancel", { method: "DELETE", headers: V }),
    );
    expect([wrongVerb.status, wrongVerb.headers.get("allow")]).toEqual([405, "POST"]);
  });

  it("rejects an oversized body with 413", async () => {
    const big = "x".repeat((1 << 20) + 1);
    const r = await handle(
      new Request("http://agent.test/rpc", {
        method: "POST",
        headers: { ...V, "content-type": "application/json" },
        body: big,
      }),
    );
    expect(r.status).toBe(413);
  });

  it("answers a conditional GET of the card with its ETag 304 and no body", async () => {
    const cardHandle = fetchHandler(createA2AServiceHttpHandler({ handler: createEchoHandler(), agentCard }));
    const url = "http://agent.test/.well-known/agent-card.json";
    const first = await cardHandle(new Request(url, { headers: V }));
    const etag = first.headers.get("etag");
    expect(first.status).toBe(200);
    expect(etag).toBeTruthy();
    const again = await cardHandle(new Request(url, { headers: { ...V, "if-none-match": etag! } }));
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect(again.headers.get("etag")).toBe(etag);
  });
});

const agentCard = () => ({
  name: "fetch agent",
  description: "served through fetchHandler",
  version: "1",
  supportedInterfaces: [{ url: "http://agent.test/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
});

/** The example agent on PORT, once it printed its URLs; what it printed so far in `out()`. */
async function startExample(port: number): Promise<{ child: ChildProcess; port: number; out: () => string }> {
  const child = spawn(process.execPath, [join(repoRoot, "dist-examples/examples/echo-agent/main.js")], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no URLs printed: ${out}`));
    }, 15_000);
    child.stdout.on("data", () => {
      if (!out.includes("gRPC")) return;
      clearTimeout(t);
      resolve();
    });
    // 'close', not 'exit': by then all it wrote has been read (EADDRINUSE included).
    child.once("close", (code) => reject(new Error(`exited ${code}: ${out}${err}`)));
  });
  return { child, port, out: () => out };
}

describe("the example agent process", () => {
  it("prints its URLs, serves its card and stops on SIGTERM", async () => {
    const { child, port, out: printed } = await onFreePortPair(startExample);
    try {
      const out = printed();
      expect(out).toContain(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      expect(out).toContain(`127.0.0.1:${port + 1}`);
      const card = await readJson<AgentCardJson>(
        fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } }),
      );
      expect(
        card.supportedInterfaces.map(
          (i: { protocolBinding: string; protocolVersion: string }) => `${i.protocolBinding} ${i.protocolVersion}`,
        ),
      ).toEqual(["JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC 0.3"]);
      // Without A2A-Version (a v0.3 client) the card is a v0.3 card.
      const legacy = await readJson<{ url: string; preferredTransport: string; protocolVersion: string }>(
        fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`),
      );
      expect([legacy.url, legacy.preferredTransport, legacy.protocolVersion]).toEqual([
        `http://127.0.0.1:${port}/a2a/jsonrpc`,
        "JSONRPC",
        "0.3",
      ]);
      const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      expect(await exit).toBe(0);
      expect(printed()).toContain("SIGTERM: stopping");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL"); // never leave the agent running when an assertion fails
    }
  });
});
