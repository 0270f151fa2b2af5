/**
 * Resubscription (issue 11, item 4; resubscribe.ts): with the client option
 * `resubscribe`, a task stream cut before the task is done carries on through
 * a new SubscribeToTask, on JSON-RPC, HTTP+JSON and gRPC against real servers
 * on 127.0.0.1. The handler decides by task id what each subscription does:
 * "cut-*" waits after its first event until the test destroys the connection
 * (the socket, or the HTTP/2 session: the client sees the stream reset with
 * CANCEL), "end-*" ends the stream without a
 * terminal state; the next subscription completes the task. "never-*" always
 * ends early (the attempts bound), "missing-*" is TaskNotFoundError (not
 * retried). SendStreamingMessage ("sent-*" task) is resumed by subscribing to
 * its task, which completes on the first subscription. At 0.3 (the same
 * handler bridged, a v1.0 client from clientForCard over a 0.3 card) the
 * TaskSubscription under the client bridge is resumed the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, A2ATransportError, nodeHttpListener, type HandlerContext } from "@protoc-gen-a2a/runtime";
import type { A2aClientOptions } from "@protoc-gen-a2a/runtime";
import {
  createA2AServiceHttpHandler,
  type A2AServiceClient,
  type A2AServiceHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { TaskState, type StreamResponse } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { clientForCard } from "../../generated-samples/a2a_compat.js";
import { startStreamServer, type StreamServer } from "../helpers/stream-server.js";

const task = (id: string, state: TaskState) => ({
  payload: { case: "task" as const, value: { id, contextId: "c", status: { state } } },
});
const completed = (id: string) => ({
  payload: {
    case: "statusUpdate" as const,
    value: { taskId: id, contextId: "c", status: { state: TaskState.COMPLETED } },
  },
});

/** Waits until the signal aborts, at most 10 s. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", stop, { once: true });
  });

/** Subscriptions per task id, and the handler that counts them. */
function handler(subscriptions: Map<string, number>): A2AServiceHandler {
  return {
    async *subscribeToTask(req, ctx: HandlerContext) {
      const n = (subscriptions.get(req.id) ?? 0) + 1;
      subscriptions.set(req.id, n);
      if (req.id.startsWith("missing-")) throw new A2AError("TaskNotFoundError", `task ${req.id} not found`);
      yield task(req.id, TaskState.WORKING);
      if (req.id.startsWith("never-")) return;
      if (n === 1 && req.id.startsWith("cut-")) return void (await aborted(ctx.signal));
      if (n === 1 && !req.id.startsWith("sent-")) return; // "end-*": ended without a terminal state
      yield completed(req.id);
    },
    async *sendStreamingMessage(req) {
      yield task(`sent-${req.message?.messageId}`, TaskState.SUBMITTED);
    },
  };
}

interface Servers {
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
  /** Destroys every open connection of the HTTP server and every HTTP/2 session of the gRPC server. */
  cut(): void;
  close(): Promise<void>;
}

async function startServers(h: A2AServiceHandler): Promise<Servers> {
  const open = new Set<ServerResponse>();
  const listener = nodeHttpListener(createA2AServiceHttpHandler({ handler: h, jsonrpcPath: "/rpc" }));
  const http = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    listener(req, res);
  });
  const adapter = connectNodeAdapter({ routes: a2aServiceGrpcRoutes({ handler: h }), grpc: true, connect: false });
  const sessions = new Set<ServerHttp2Session>();
  const grpc = createHttp2Server(adapter);
  grpc.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const listen = (s: typeof http | typeof grpc) =>
    new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));
  const [port, grpcPort] = [await listen(http), await listen(grpc)];
  return {
    rpc: `http://127.0.0.1:${port}/rpc`,
    rest: `http://127.0.0.1:${port}/rest`,
    grpc: `http://127.0.0.1:${grpcPort}`,
    cut() {
      for (const res of open) res.socket?.destroy();
      for (const session of sessions) session.destroy();
    },
    close: async () => {
      http.closeAllConnections();
      for (const session of sessions) session.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => grpc.close(() => resolve())),
      ]);
    },
  };
}

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

function clientFor(s: Servers, binding: Binding, options: Omit<A2aClientOptions, "url">): A2AServiceClient {
  if (binding === "JSONRPC") return createA2AServiceJsonRpcClient({ ...options, url: s.rpc });
  if (binding === "HTTP+JSON") return createA2AServiceRestClient({ ...options, url: s.rest });
  return createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: s.grpc }), { ...options, url: s.grpc });
}

/** "task WORKING", "statusUpdate COMPLETED", … */
const label = (ev: StreamResponse) =>
  ev.payload.case === "task" || ev.payload.case === "statusUpdate"
    ? `${ev.payload.case} ${TaskState[ev.payload.value.status?.state ?? 0]}`
    : String(ev.payload.case);

/** Reads a stream to its end, at most 20 events; `onEvent` sees each one. */
async function read(events: AsyncIterable<StreamResponse>, onEvent: (n: number) => void = () => {}) {
  const seen: string[] = [];
  for await (const ev of events) {
    seen.push(label(ev));
    onEvent(seen.length);
    if (seen.length >= 20) break;
  }
  return seen;
}

describe("a client with resubscribe", () => {
  const subscriptions = new Map<string, number>();
  let s: Servers;
  beforeAll(async () => {
    s = await startServers(handler(subscriptions));
  });
  afterAll(() => s?.close());
  const resubscribe = { attempts: 2, backoffMs: 1 };

  describe.each(BINDINGS)("over %s", (binding) => {
    it("carries on after the connection is destroyed mid-stream, to the terminal state", async () => {
      const id = `cut-${binding}`;
      const client = clientFor(s, binding, { resubscribe });
      const seen = await read(client.subscribeToTask({ id }), (n) => n === 1 && s.cut());
      expect(seen).toEqual(["task WORKING", "task WORKING", "statusUpdate COMPLETED"]);
      expect(subscriptions.get(id)).toBe(2);
    });

    it("carries on after the stream ends without a terminal state", async () => {
      const id = `end-${binding}`;
      const seen = await read(clientFor(s, binding, { resubscribe: true }).subscribeToTask({ id }));
      expect(seen).toEqual(["task WORKING", "task WORKING", "statusUpdate COMPLETED"]);
      expect(subscriptions.get(id)).toBe(2);
    });

    it("resumes SendStreamingMessage by subscribing to the task its first event named", async () => {
      const messageId = `m-${binding}`;
      const client = clientFor(s, binding, { resubscribe });
      const seen = await read(
        client.sendStreamingMessage({
          message: { messageId, role: 1, parts: [{ content: { case: "text", value: "hi" } }] },
        }),
      );
      expect(seen).toEqual(["task SUBMITTED", "task WORKING", "statusUpdate COMPLETED"]);
      expect(subscriptions.get(`sent-${messageId}`)).toBe(1);
    });

    it("gives up after `attempts` resubscriptions, naming the task", async () => {
      const id = `never-${binding}`;
      const seen: string[] = [];
      const error = await read(clientFor(s, binding, { resubscribe }).subscribeToTask({ id }), () =>
        seen.push("ev"),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2ATransportError);
      expect((error as Error).message).toContain(`task ${id}`);
      expect(subscriptions.get(id)).toBe(3);
      expect(seen).toHaveLength(3);
    });

    it("does not retry an A2A error", async () => {
      const id = `missing-${binding}`;
      const error = await read(clientFor(s, binding, { resubscribe }).subscribeToTask({ id })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2AError);
      expect((error as A2AError).type).toBe("TaskNotFoundError");
      expect(subscriptions.get(id)).toBe(1);
    });

    it("stops when the caller aborts", async () => {
      const id = `never-abort-${binding}`;
      const controller = new AbortController();
      const client = clientFor(s, binding, { resubscribe: { attempts: 50, backoffMs: 20 } });
      const events = client.subscribeToTask({ id }, { signal: controller.signal });
      const error = await read(events, (n) => n === 2 && controller.abort()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2ATransportError);
      expect(subscriptions.get(id)).toBe(2);
    });

    it("stops when the caller breaks", async () => {
      const id = `never-break-${binding}`;
      const client = clientFor(s, binding, { resubscribe: { attempts: 50, backoffMs: 1 } });
      for await (const ev of client.subscribeToTask({ id })) {
        expect(label(ev)).toBe("task WORKING");
        break;
      }
      expect(subscriptions.get(id)).toBe(1);
    });

    it("is off by default: a stream ended early just ends", async () => {
      const id = `end-default-${binding}`;
      expect(await read(clientFor(s, binding, {}).subscribeToTask({ id }))).toEqual(["task WORKING"]);
      expect(subscriptions.get(id)).toBe(1);
    });
  });
});

describe("a v1.0 client for a v0.3 card, with resubscribe", () => {
  const subscriptions = new Map<string, number>();
  let s: StreamServer;
  beforeAll(async () => {
    s = await startStreamServer(handler(subscriptions));
  });
  afterAll(() => s?.close());

  it.each(["JSONRPC", "HTTP+JSON"] as const)("resumes the v0.3 TaskSubscription under the bridge (%s)", async (b) => {
    const url = b === "JSONRPC" ? s.urls.jsonrpc : s.urls.rest;
    const card = { protocolVersion: "0.3.0", url, preferredTransport: b };
    const { client, selected } = clientForCard(card, { resubscribe: { attempts: 2, backoffMs: 1 } });
    expect(selected.protocolVersion).toBe("0.3");
    const id = `end-03-${b}`;
    expect(await read(client.subscribeToTask({ id }))).toEqual([
      "task WORKING",
      "task WORKING",
      "statusUpdate COMPLETED",
    ]);
    expect(subscriptions.get(id)).toBe(2);
  });
});
