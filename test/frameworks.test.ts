/**
 * The echo agent's HTTP side mounted in the server frameworks users already have, in process on 127.0.0.1:
 * Express 5 (`app.use(path, expressHandler(core))`), Fastify 5 (`app.register(fastifyHandler(core), { prefix })`)
 * and Hono (`app.mount(path, fetchHandler(core))` on @hono/node-server). Each application has its own route and
 * its own JSON body parsing before the agent; per framework: that route still answers, with its body parsed;
 * the generated v1.0 clients over JSON-RPC and HTTP+JSON and the @a2a-js/sdk 1.3.0 client from the card send,
 * stream, get, cancel and list under the mount path, and an unknown task is TaskNotFoundError to each; a body
 * over the agent's limit is refused with 413 while the application's own limit is its own; a stream is sent as
 * it is produced (its first event arrives while the task still waits); a client that leaves a stream closes
 * the agent's stream. Then `npm run example -- --framework <name>` (frameworks/): its first line names the
 * framework and its version, and it serves its own route and the agent at /agent, with the request log.
 */
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallOptions, type CoreHandler, fetchHandler } from "@protoc-gen-a2a/runtime";
import { expressHandler } from "@protoc-gen-a2a/runtime/express";
import { fastifyHandler } from "@protoc-gen-a2a/runtime/fastify";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v1.0.1/a2a_rest.js";
import { echoHttpCore } from "../examples/echo-agent/http-side.js";
import { startExampleProcess } from "./helpers/example-process.js";
import { postDeclaringMore } from "./helpers/declared-body.js";
import { a2aJsClientCalls, generatedClientCalls, textMessage } from "./helpers/echo-calls.js";
import { a2aJsV10ClientFor, artifactTexts, sentTask } from "./helpers/a2a-js-peers.js";

const MOUNT = "/agent";
/** The application's own body limit: above the agent's (1 MiB), so that a body between the two reaches the agent. */
const APP_LIMIT = 4 << 20;

/** A started application: its origin, how many agent streams are open, and how to stop it. */
interface App {
  readonly origin: string;
  readonly openStreams: () => number;
  close(): Promise<void>;
}

/** The echo agent's handler, with the card at `origin` + MOUNT, counting the answer streams still open. */
function agentCore(origin: () => string): { core: CoreHandler; openStreams: () => number } {
  const inner = echoHttpCore({ base: () => `${origin()}${MOUNT}` });
  let open = 0;
  const core: CoreHandler = async (request) => {
    const out = await inner(request);
    if (typeof out.body === "string") return out;
    const body = out.body;
    async function* counted() {
      open++;
      try {
        yield* body;
      } finally {
        open--;
      }
    }
    return { ...out, body: counted() };
  };
  return { core, openStreams: () => open };
}

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

async function expressApp(): Promise<App> {
  let origin = "";
  const agent = agentCore(() => origin);
  const app = express();
  // The application's own parsing, before the agent: the agent takes the parsed body.
  app.use(express.json({ limit: APP_LIMIT }));
  app.post("/api/echo", (req, res) => void res.json({ got: req.body }));
  app.use(MOUNT, expressHandler(agent.core));
  const server = createServer(app);
  origin = await listen(server);
  return { origin, openStreams: agent.openStreams, close: () => closeServer(server) };
}

async function fastifyApp(): Promise<App> {
  let origin = "";
  const agent = agentCore(() => origin);
  const app = Fastify({ bodyLimit: APP_LIMIT });
  app.post("/api/echo", async (request) => ({ got: request.body }));
  await app.register(fastifyHandler(agent.core), { prefix: MOUNT });
  origin = await app.listen({ port: 0, host: "127.0.0.1" });
  return { origin, openStreams: agent.openStreams, close: () => app.close() };
}

async function honoApp(): Promise<App> {
  let origin = "";
  const agent = agentCore(() => origin);
  const app = new Hono();
  app.post("/api/echo", bodyLimit({ maxSize: APP_LIMIT }), async (c) => c.json({ got: await c.req.json() }));
  app.mount(MOUNT, fetchHandler(agent.core));
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, openStreams: agent.openStreams, close: () => closeServer(server) };
}

describe.each([
  ["Express 5", expressApp, true],
  ["Fastify 5", fastifyApp, false],
  ["Hono", honoApp, false],
] as const)("the echo agent mounted in %s", (_name, start, parsesFirst) => {
  let app: App;
  const jsonrpc = () => `${app.origin}${MOUNT}/a2a/jsonrpc`;

  beforeAll(async () => {
    app = await start();
  });
  afterAll(() => app.close());

  it("leaves the application's own route and body parsing as they were", async () => {
    const res = await fetch(`${app.origin}/api/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: 1 }),
    });
    expect(await res.json()).toEqual({ got: { a: 1 } });
    const big = await fetch(`${app.origin}/api/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(APP_LIMIT + 1) }),
    });
    expect(big.status).toBe(413);
    await big.body?.cancel();
  });

  it.each(["JSON-RPC", "HTTP+JSON"] as const)("generated v1.0 client over %s under the mount", async (binding) => {
    const url = binding === "JSON-RPC" ? jsonrpc() : `${app.origin}${MOUNT}/a2a/rest`;
    await generatedClientCalls(
      binding === "JSON-RPC" ? createA2AServiceJsonRpcClient({ url }) : createA2AServiceRestClient({ url }),
    );
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("@a2a-js/sdk 1.3.0 client over %s, from the card", async (binding) => {
    await a2aJsClientCalls(`${app.origin}${MOUNT}/.well-known/agent-card.json`, binding);
  });

  it("answers HEAD on a stream's route with the GET's type and no length, as the GET has none", async () => {
    const client = createA2AServiceJsonRpcClient({ url: jsonrpc() });
    const sent = await client.sendMessage({ message: textMessage("wait"), configuration: { returnImmediately: true } });
    const id = sent.payload.case === "task" ? sent.payload.value.id : "";
    const res = await fetch(`${app.origin}${MOUNT}/a2a/rest/tasks/${id}:subscribe`, {
      method: "HEAD",
      headers: { "a2a-version": "1.0" },
    });
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    expect(res.headers.get("content-length")).toBeNull();
    expect(await res.text()).toBe("");
  });

  it("refuses a body over the agent's limit (1 MiB) with 413", async () => {
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    if (parsesFirst) {
      // The application's parser reads the whole body first; the agent then refuses what it was handed.
      const pad = "x".repeat(2 << 20);
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { pad } });
      const res = await fetch(jsonrpc(), { method: "POST", headers, body });
      expect(res.status).toBe(413);
      await res.body?.cancel();
      return;
    }
    const status = await postDeclaringMore(jsonrpc(), headers, 2 << 20);
    expect(status).toBe(413);
  });

  it("streams as it goes, and closes the agent's stream when the client leaves", async () => {
    const client = createA2AServiceJsonRpcClient({ url: jsonrpc() });
    const abort = new AbortController();
    const options: CallOptions = { signal: abort.signal };
    // The task waits after its first events: they can only arrive if nothing buffers the stream.
    for await (const e of client.sendStreamingMessage({ message: textMessage("wait") }, options)) {
      expect(e.payload.case).toBe("task");
      expect(app.openStreams()).toBe(1);
      abort.abort();
      break;
    }
    await expect.poll(() => app.openStreams(), { timeout: 10_000 }).toBe(0);
    const again = await client.sendMessage({ message: textMessage("still here") });
    expect(again.payload.case).toBe("task");
  });
});

describe("the framework adapters' options", () => {
  it("hand stallTimeoutMs to nodeHttpListener, which checks it", () => {
    const core: CoreHandler = async () => ({ status: 204, headers: {}, body: "" });
    const refused = `nodeHttpListener: stallTimeoutMs must be > 0 and at most ${2 ** 31 - 1}; got 0`;
    expect(() => expressHandler(core, { stallTimeoutMs: 0 })).toThrow(refused);
    expect(() => fastifyHandler(core, { stallTimeoutMs: 0 })).toThrow(refused);
    expect(() => expressHandler(core, { stallTimeoutMs: 5000 })).not.toThrow();
  });
});

describe("the echo agent under Fastify's prefix", () => {
  it("is reached through the prefix as sent, encoded or not, and by the prefix with a query alone", async () => {
    const app = await fastifyApp();
    try {
      for (const mount of [MOUNT, "/%61gent", "/%61%67%65%6e%74"]) {
        const res = await fetch(`${app.origin}${mount}/.well-known/agent-card.json`, {
          headers: { "a2a-version": "1.0" },
        });
        expect(res.status, mount).toBe(200);
        expect(((await res.json()) as { name: string }).name).toBe("Echo agent");
      }
      const root = await fetch(`${app.origin}${MOUNT}?x=1`);
      expect(root.status).toBe(404);
      await root.body?.cancel();
    } finally {
      await app.close();
    }
  });
});

describe.each([
  ["express", /^echo agent in Express 5\.\d+\.\d+ on Node /],
  ["fastify", /^echo agent in Fastify 5\.\d+\.\d+ on Node /],
  ["hono", /^echo agent in Hono \d+\.\d+\.\d+ on Node /],
] as const)("npm run example -- --framework %s", (framework, firstLine) => {
  it("names the framework and its version, serves its own route and the agent at its mount", async () => {
    const agent = await startExampleProcess({}, { framework });
    try {
      expect(agent.out()).toMatch(firstLine);
      const home = await fetch(new URL("/", agent.urls.card));
      expect(await home.text()).toContain(`mounted at ${MOUNT}`);
      const client = await a2aJsV10ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" });
      expect(artifactTexts(sentTask(await client.sendText("hello")))).toEqual(["hello"]);
      await expect.poll(() => agent.out()).toMatch(/POST \/agent\/a2a\/jsonrpc v1\.0 200 /);
    } finally {
      await agent.stop();
    }
  });
});
