/**
 * Long streams (issue 9, item 11). A client that goes away while the server
 * waits on backpressure ('drain') closes the stream: the handler's iterator
 * returns (its finally runs) and its signal aborts. A stream silent for
 * keepAliveMs after its first event gets ": keep-alive" comment lines, which
 * the generated and the reference clients skip. Checked at 1.0 and, through
 * the generated bridge and the dual-version handler, at 0.3, on JSON-RPC and
 * HTTP+JSON, with raw sockets and real clients on 127.0.0.1; every wait is
 * bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import type { HandlerContext } from "@protoc-gen-a2a/runtime";
import type { A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import * as v03Jsonrpc from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import * as v03Rest from "../../generated-samples/v0.3.0/a2a_rest.js";
import { TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { a2aJsV03ClientFor, a2aJsV10ClientFor, collectEvents } from "../helpers/a2a-js-peers.js";
import {
  SIDES,
  dataLines,
  rawHttp,
  send,
  startStreamServer,
  subscribeRequest,
  type Side,
  type StreamServer,
  type Urls,
} from "../helpers/stream-server.js";

const KEEP_ALIVE = ": keep-alive\n\n";
/** Streams per version and binding in the disconnect test. */
const N = 20;
const BIG = "x".repeat(64 * 1024);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 20 ms until it holds; fails after `ms`. */
async function until(what: string, ms: number, done: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}

/** What became of one subscription's handler call. */
interface Seen {
  yielded: number;
  finallyRan: boolean;
  abortEvent: boolean;
  abortedInFinally: boolean;
}

const task = (id: string, contextId = "c") => ({
  payload: { case: "task" as const, value: { id, contextId, status: { state: TaskState.WORKING } } },
});

/** Waits `ms`, or less if the signal aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * SubscribeToTask by task id: "big-*" yields 64 KiB events forever, recording what it sees in `seen`;
 * "two" yields, waits 300 ms, yields again; "late" waits 300 ms, then yields once.
 */
function streamingHandler(seen: Map<string, Seen>): A2AServiceHandler {
  return {
    ...createEchoHandler(),
    async *subscribeToTask(req, ctx: HandlerContext) {
      if (req.id === "two") {
        yield task("two");
        await pause(300, ctx.signal);
        yield task("two");
        return;
      }
      if (req.id === "late") {
        await pause(300, ctx.signal);
        yield task("late");
        return;
      }
      const s: Seen = { yielded: 0, finallyRan: false, abortEvent: false, abortedInFinally: false };
      seen.set(req.id, s);
      ctx.signal.addEventListener("abort", () => (s.abortEvent = true), { once: true });
      try {
        for (;;) {
          s.yielded++;
          yield task(req.id, BIG);
        }
      } finally {
        s.finallyRan = true;
        s.abortedInFinally = ctx.signal.aborted;
      }
    },
  };
}

/** Opens a socket, sends the request and never reads: the server soon waits for 'drain'. */
function neverReading(urls: Urls, side: Side, id: string): Promise<Socket> {
  const r = subscribeRequest(urls, side, id);
  const url = new URL(r.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(rawHttp(r));
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

describe("a client that goes away while the server waits for 'drain'", () => {
  const seen = new Map<string, Seen>();
  let server: StreamServer;
  beforeAll(async () => {
    server = await startStreamServer(streamingHandler(seen));
  });
  afterAll(() => server?.close());

  it.each(SIDES)(`closes the handler's stream and aborts its signal, for ${N} streams ($name)`, async (side) => {
    const ids = Array.from({ length: N }, (_, i) => `big-${side.version}-${side.binding}-${i}`);
    const sockets = await Promise.all(ids.map((id) => neverReading(server.urls, side, id)));
    try {
      await until(`${N} responses waiting for 'drain'`, 10_000, () => {
        const open = [...server.responses];
        return open.length === N && open.every((r) => r.writableNeedDrain);
      });
      // Blocked, not merely slow: no handler yields any more.
      const before = ids.map((id) => seen.get(id)!.yielded);
      await sleep(100);
      expect(ids.map((id) => seen.get(id)!.yielded)).toEqual(before);
      expect(ids.filter((id) => seen.get(id)!.finallyRan)).toEqual([]);
    } finally {
      for (const s of sockets) s.destroy();
    }
    await until(`${N} handlers closed`, 5_000, () => ids.every((id) => seen.get(id)!.finallyRan));
    for (const id of ids) expect(seen.get(id)).toMatchObject({ abortEvent: true, abortedInFinally: true });
    await until("all responses closed", 5_000, () => server.responses.size === 0);
  });
});

describe("keep-alive comments", () => {
  let fast: StreamServer;
  let off: StreamServer;
  let defaults: StreamServer;
  beforeAll(async () => {
    const handler = streamingHandler(new Map());
    [fast, off, defaults] = await Promise.all([
      startStreamServer(handler, { keepAliveMs: 50 }),
      startStreamServer(handler, { keepAliveMs: 0 }),
      startStreamServer(handler),
    ]);
  });
  afterAll(() => Promise.all([fast?.close(), off?.close(), defaults?.close()]));

  describe.each(SIDES)("over $name", (side) => {
    it("go between events of a stream silent for longer than keepAliveMs", async () => {
      const res = await send(subscribeRequest(fast.urls, side, "two"));
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/^data: /);
      // Event, keep-alive comments, event: each piece ends with a blank line.
      const pieces = text.split(/(?<=\n\n)/);
      expect(pieces[0]).toMatch(/^data: .*\n\n$/);
      expect(pieces.at(-1)).toMatch(/^data: .*\n\n$/);
      const middle = pieces.slice(1, -1);
      expect(new Set(middle)).toEqual(new Set([KEEP_ALIVE]));
      expect(middle.length).toBeGreaterThanOrEqual(3);
      expect(dataLines(text)).toHaveLength(2);
    });

    it("are not sent before the first event: the headers wait for it", async () => {
      const t0 = performance.now();
      const res = await send(subscribeRequest(fast.urls, side, "late"));
      expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
      const text = await res.text();
      expect(text).not.toContain(KEEP_ALIVE);
      expect(dataLines(text)).toHaveLength(1);
    });

    it("are off with keepAliveMs 0, and not due within 300 ms by default", async () => {
      for (const server of [off, defaults]) {
        const text = await (await send(subscribeRequest(server.urls, side, "two"))).text();
        expect(text).not.toContain(KEEP_ALIVE);
        expect(dataLines(text)).toHaveLength(2);
      }
    });

    it("are skipped by the generated client", async () => {
      const url = side.binding === "JSONRPC" ? fast.urls.jsonrpc : fast.urls.rest;
      const events: unknown[] = [];
      if (side.version === "1.0") {
        const client =
          side.binding === "JSONRPC" ? createA2AServiceJsonRpcClient({ url }) : createA2AServiceRestClient({ url });
        for await (const ev of client.subscribeToTask({ id: "two" })) events.push(ev.payload.case);
      } else {
        const client =
          side.binding === "JSONRPC"
            ? v03Jsonrpc.createA2AServiceJsonRpcClient({ url })
            : v03Rest.createA2AServiceRestClient({ url });
        for await (const ev of client.taskSubscription({ name: "tasks/two" })) events.push(ev.payload.case);
      }
      expect(events).toEqual(["task", "task"]);
    });

    it("are skipped by the @a2a-js/sdk client of the version", async () => {
      const target = { url: side.binding === "JSONRPC" ? fast.urls.jsonrpc : fast.urls.rest, binding: side.binding };
      const events =
        side.version === "1.0"
          ? await collectEvents((await a2aJsV10ClientFor(target)).subscribe("two"), 5_000)
          : await collectEvents((await a2aJsV03ClientFor(target)).subscribe("two"), 5_000);
      expect(events).toHaveLength(2);
    });
  });
});
