/**
 * Blocking across the version bridge. v1.0 SendMessage blocks unless
 * `returnImmediately` is true (absent: blocking, P10); v0.3 blocks only when
 * `blocking` is true (P03 bool, default false: absent is non-blocking; FACTS
 * B.1, C.11). The override `send-message-configuration` maps
 * `return_immediately = !blocking`.
 *
 *   server bridge  v0.3 callers (raw JSON-RPC and HTTP+JSON bodies, the
 *                  generated v0.3 gRPC client) → the dual-version example →
 *                  its v1.0 handler, with "wait" (working until canceled): a
 *                  blocking send is answered only after a cancel, with the
 *                  canceled task; a non-blocking one at once, still working
 *   client bridge  the v1.0 client API (clientForOlder) → a v0.3 server that
 *                  records each SendMessage request as it arrives (raw body
 *                  and decoded), in the three bindings
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { createGrpcTransport, connectNodeAdapter } from "@connectrpc/connect-node";
import { fetchHandler } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WAIT_TEXT } from "../../examples/echo-agent/echo-handler.js";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import { clientForOlder } from "../../generated-samples/a2a_compat.js";
import * as v03 from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { createA2AServiceJsonRpcClient as v03JsonRpcClient } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { createA2AServiceRestClient as v03RestClient } from "../../generated-samples/v0.3.0/a2a_rest.js";
import {
  Role as V03Role,
  TaskState as V03TaskState,
  type SendMessageConfiguration as V03SendMessageConfiguration,
} from "../../generated-samples/v0.3.0/a2a_pb.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { Role, TaskState, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createV03EchoHandler } from "../helpers/v03-echo-agent.js";

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
/** Bounds each wait (never a timing assertion: a loaded machine only waits longer). */
const WAIT = { timeout: 20_000, interval: 20 };

/** The v0.3 configuration a test sends: none at all, or these fields. */
type Configuration = "absent" | { blocking?: boolean; acceptedOutputModes?: string[] };

/** A task state in one spelling, whatever the binding wrote: "working", "canceled", ... */
function stateName(state: string | number): string {
  const name = typeof state === "number" ? V03TaskState[state]! : state;
  return name
    .toLowerCase()
    .replace(/^task_state_/, "")
    .replace("cancelled", "canceled")
    .replace("_", "-");
}

/** The answer's promise, failing (not hanging) when no answer comes within WAIT.timeout. */
function bounded<T>(what: string, answer: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT.timeout} ms`)), WAIT.timeout);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------
// Server bridge: v0.3 callers → the dual-version example → its v1.0 handler
// ---------------------------------------------------------------------------

/** One v0.3 SendMessage of `text` in `contextId`; resolves with the answered task's state. */
type V03Send = (text: string, contextId: string, configuration: Configuration) => Promise<string>;

function jsonRpcSend(url: string): V03Send {
  return async (text, contextId, configuration) => {
    const message = {
      kind: "message",
      messageId: crypto.randomUUID(),
      role: "user",
      contextId,
      parts: [{ kind: "text", text }],
    };
    const params = configuration === "absent" ? { message } : { message, configuration };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params });
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    const reply = (await res.json()) as { result?: { kind: string; status: { state: string } } };
    expect(reply.result?.kind, JSON.stringify(reply)).toBe("task");
    return stateName(reply.result!.status.state);
  };
}

function restSend(base: string): V03Send {
  return async (text, contextId, configuration) => {
    const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, content: [{ text }] };
    const body = JSON.stringify(configuration === "absent" ? { message } : { message, configuration });
    const res = await fetch(`${base}/v1/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const reply = (await res.json()) as { task?: { status: { state: string } } };
    expect(reply.task, JSON.stringify(reply)).toBeDefined();
    return stateName(reply.task!.status.state);
  };
}

function grpcSend(address: string): V03Send {
  const client = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://${address}` }), {});
  return async (text, contextId, configuration) => {
    const request = {
      messageId: crypto.randomUUID(),
      role: V03Role.USER,
      contextId,
      content: [{ part: { case: "text" as const, value: text } }],
    };
    // An empty configuration still goes on the wire (a present message field, all defaults).
    const res = await client.sendMessage(configuration === "absent" ? { request } : { request, configuration });
    expect(res.payload.case).toBe("task");
    const task = res.payload.value as { status?: { state: number } };
    return stateName(task.status?.state ?? 0);
  };
}

describe("server bridge: a v0.3 SendMessage reaches the example's v1.0 handler", () => {
  let agent: RunningAgent;
  let v10: A2AServiceClient;
  beforeAll(async () => {
    agent = await startEchoAgent();
    v10 = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
  });
  afterAll(() => agent?.close());

  /** The one task of `contextId`, once it is working. */
  async function workingTask(contextId: string): Promise<Task> {
    return vi.waitFor(async () => {
      const [task] = (await v10.listTasks({ contextId })).tasks;
      expect(task?.status?.state).toBe(TaskState.WORKING);
      return task!;
    }, WAIT);
  }

  /** Sends "wait"; the answer must come only after the task was canceled, and say canceled. */
  async function expectBlocking(send: V03Send, configuration: Configuration) {
    const contextId = crypto.randomUUID();
    const answer = send(WAIT_TEXT, contextId, configuration);
    const task = await workingTask(contextId);
    expect((await v10.cancelTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
    expect(await bounded("the blocking send", answer)).toBe("canceled");
  }

  /** Sends "wait"; the answer comes at once, with the task not yet done. */
  async function expectNonBlocking(send: V03Send, configuration: Configuration) {
    const contextId = crypto.randomUUID();
    const state = await bounded("the non-blocking send", send(WAIT_TEXT, contextId, configuration));
    expect(["submitted", "working"]).toContain(state);
    await v10.cancelTask({ id: (await workingTask(contextId)).id });
  }

  describe.each(BINDINGS)("over %s", (binding) => {
    let send: V03Send;
    beforeAll(() => {
      send =
        binding === "JSONRPC"
          ? jsonRpcSend(agent.urls.jsonrpc)
          : binding === "HTTP+JSON"
            ? restSend(agent.urls.rest)
            : grpcSend(agent.urls.grpc);
    });

    it("blocking: true is a blocking v1.0 send (answered once the task is canceled)", () =>
      expectBlocking(send, { blocking: true }));
    it("blocking: false is returnImmediately (answered at once, working)", () =>
      expectNonBlocking(send, { blocking: false }));
    it("a configuration without blocking takes v0.3's default, false: answered at once", () =>
      expectNonBlocking(send, { acceptedOutputModes: ["text/plain"] }));
    // No configuration at all reaches the v1.0 handler without one, so it blocks (v1.0's default, and how
    // @a2a-js/sdk 0.3 servers read a missing `blocking`); v0.3's proto default would answer at once.
    it("no configuration at all: blocks, as the v1.0 default (and @a2a-js/sdk 0.3 servers) would", () =>
      expectBlocking(send, "absent"));
  });
});

// ---------------------------------------------------------------------------
// Client bridge: the v1.0 client API → a v0.3 server that records the requests
// ---------------------------------------------------------------------------

interface Arrival {
  /** The decoded v0.3 request's configuration (every binding). */
  readonly configuration: V03SendMessageConfiguration | undefined;
  /** The JSON request body as it came (JSON-RPC: its params), for the HTTP bindings. */
  readonly body?: Record<string, unknown>;
}

interface RecordingAgent {
  readonly urls: { readonly jsonrpc: string; readonly rest: string; readonly grpc: string };
  readonly arrivals: Arrival[];
  close(): Promise<void>;
}

const listen = (server: Server | Http2Server) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The v0.3 echo agent of test/helpers, its SendMessage requests recorded on the way in. */
async function startRecordingV03Agent(): Promise<RecordingAgent> {
  const arrivals: Arrival[] = [];
  let body: Record<string, unknown> | undefined;
  const echo = createV03EchoHandler();
  const handler: v03.A2AServiceHandler = {
    ...echo,
    sendMessage: (req, ctx) => {
      arrivals.push({ configuration: req.configuration, ...(body ? { body } : {}) });
      return echo.sendMessage!(req, ctx);
    },
  };
  const core = fetchHandler(
    v03.createA2AServiceHttpHandler({ handler, jsonrpcPath: "/a2a/jsonrpc", restBasePath: "/a2a/rest" }),
  );
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const bytes = await readBody(req);
      const json = bytes.length > 0 ? (JSON.parse(bytes.toString()) as Record<string, unknown>) : undefined;
      body = (json?.["params"] as Record<string, unknown> | undefined) ?? json;
      const headers = new Headers(req.headers as Record<string, string>);
      const method = req.method ?? "GET";
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method,
        headers,
        ...(bytes.length > 0 ? { body: bytes } : {}),
      });
      const answer = await core(request);
      body = undefined; // gRPC calls come without one
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    })();
  });
  const grpc = createHttp2Server(
    connectNodeAdapter({ routes: a2aServiceGrpcRoutes({ handler }), grpc: true, connect: false, grpcWeb: false }),
  );
  const sessions = new Set<ServerHttp2Session>();
  grpc.on("session", (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  const [port, grpcPort] = await Promise.all([listen(http), listen(grpc)]);
  const base = `http://127.0.0.1:${port}`;
  return {
    urls: { jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest`, grpc: `127.0.0.1:${grpcPort}` },
    arrivals,
    close: async () => {
      http.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => grpc.close(() => resolve())),
      ]);
    },
  };
}

describe("client bridge: a v1.0 SendMessage as a v0.3 server receives it", () => {
  let peer: RecordingAgent;
  beforeAll(async () => {
    peer = await startRecordingV03Agent();
  });
  afterAll(() => peer?.close());

  const text = (t: string) => ({
    messageId: crypto.randomUUID(),
    role: Role.USER,
    parts: [{ content: { case: "text" as const, value: t } }],
  });

  describe.each(BINDINGS)("over %s", (binding) => {
    let client: A2AServiceClient;
    beforeAll(() => {
      const old =
        binding === "JSONRPC"
          ? v03JsonRpcClient({ url: peer.urls.jsonrpc })
          : binding === "HTTP+JSON"
            ? v03RestClient({ url: peer.urls.rest })
            : createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://${peer.urls.grpc}` }), {});
      client = clientForOlder(old);
    });

    /** What the v0.3 server received for one v1.0 send of `configuration`. */
    async function arrival(configuration?: { returnImmediately: boolean }): Promise<Arrival> {
      const before = peer.arrivals.length;
      await client.sendMessage({ message: text("hello"), ...(configuration ? { configuration } : {}) });
      expect(peer.arrivals).toHaveLength(before + 1);
      return peer.arrivals.at(-1)!;
    }

    /** The v0.3 request asked for blocking: decoded, and (HTTP bindings) in the JSON that came. */
    function expectBlocking(got: Arrival, blocking: boolean) {
      expect(got.configuration?.blocking ?? false).toBe(blocking);
      if (binding === "GRPC") return;
      const sent = got.body?.["configuration"] as Record<string, unknown> | undefined;
      expect(sent?.["blocking"] ?? false).toBe(blocking);
    }

    it("returnImmediately: false arrives as blocking: true", async () => {
      expectBlocking(await arrival({ returnImmediately: false }), true);
    });
    it("returnImmediately: true arrives as blocking: false", async () => {
      expectBlocking(await arrival({ returnImmediately: true }), false);
    });
    // A v1.0 request without a configuration blocks (S10 §3.2.2 l.444); v0.3's default is blocking: false
    // (P03:127-131), so the bridge sends configuration { blocking: true } (override send-message-request).
    it("no configuration (v1.0 default: blocking) arrives as blocking: true", async () => {
      const got = await arrival();
      expect(got.configuration, "the v0.3 request has a configuration").toBeDefined();
      expectBlocking(got, true);
    });
  });
});
