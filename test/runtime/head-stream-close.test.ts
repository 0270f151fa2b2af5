/**
 * A HEAD on a streaming GET route (SubscribeToTask) runs the route as a GET and closes the stream unread
 * (http/head.ts): the handler's stream is closed too, its `finally` runs, though nothing ever asked it for a
 * second event. On the node:http listener (a real server on 127.0.0.1) and the fetch handler alike (in process,
 * and served by @hono/node-server, where the answer also carries no Content-Length, as the GET's has none), the
 * handler parked at its first event must not stay parked (with the task runtime, a watch of the task that
 * copies every later event) after the HEAD is answered.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { fetchHandler, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type A2AServiceHandler, createA2AServiceHttpHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";

/** The ids of the streams the handler opened, and of those it saw closed. */
const opened: string[] = [];
const closed: string[] = [];

const handler: A2AServiceHandler = {
  async *subscribeToTask({ id }) {
    opened.push(id);
    try {
      yield { payload: { case: "task", value: { id, contextId: "c", status: { state: TaskState.WORKING } } } };
      // A task nobody works on: without a close from outside, the stream waits here for good.
      await new Promise(() => {});
    } finally {
      closed.push(id);
    }
  },
};

const core = createA2AServiceHttpHandler({ handler, restBasePath: "/rest" });
let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer(nodeHttpListener(core));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** A HEAD through node:http: its status and content type. */
function head(url: string): Promise<[number, string | undefined]> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "HEAD", headers: { "a2a-version": "1.0" }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve([res.statusCode ?? 0, res.headers["content-type"]]));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("HEAD on SubscribeToTask", () => {
  it("closes a stream whose cleanup throws without an unhandled rejection (no keep-alive wrapper)", async () => {
    const rejected: unknown[] = [];
    const note = (e: unknown) => void rejected.push(e);
    process.on("unhandledRejection", note);
    try {
      const failing = createA2AServiceHttpHandler({
        handler: {
          async *subscribeToTask({ id }) {
            try {
              yield { payload: { case: "task", value: { id, contextId: "c", status: { state: TaskState.WORKING } } } };
              await new Promise(() => {});
            } finally {
              // biome-ignore lint/correctness/noUnsafeFinally: the cleanup that fails is the case under test
              throw new Error("cleanup failed");
            }
          },
        },
        restBasePath: "/rest",
        keepAliveMs: 0,
      });
      const res = await fetchHandler(failing)(
        new Request("http://agent.test/rest/tasks/c1:subscribe", { method: "HEAD", headers: { "a2a-version": "1.0" } }),
      );
      expect(res.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rejected).toEqual([]);
    } finally {
      process.off("unhandledRejection", note);
    }
  });

  it("closes the handler's stream on the node:http listener", async () => {
    const ids = ["n1", "n2", "n3"];
    for (const id of ids) expect(await head(`${base}/tasks/${id}:subscribe`)).toEqual([200, "text/event-stream"]);
    expect(opened).toEqual(expect.arrayContaining(ids));
    await vi.waitFor(() => expect(closed).toEqual(expect.arrayContaining(ids)), { timeout: 5000 });
  });

  it("closes the handler's stream on the fetch handler", async () => {
    const answer = fetchHandler(core);
    for (const id of ["f1", "f2"]) {
      const res = await answer(
        new Request(`http://agent.test/rest/tasks/${id}:subscribe`, {
          method: "HEAD",
          headers: { "a2a-version": "1.0" },
        }),
      );
      expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
      await res.body?.cancel();
    }
    await vi.waitFor(() => expect(closed).toEqual(expect.arrayContaining(["f1", "f2"])), { timeout: 5000 });
  });

  it("sends no Content-Length through a fetch server, as the GET sends none", async () => {
    const fetchServer = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: fetchHandler(core), port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server));
    });
    try {
      const { port } = fetchServer.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/rest/tasks/h1:subscribe`, {
        method: "HEAD",
        headers: { "a2a-version": "1.0" },
      });
      expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
      expect(res.headers.get("content-length")).toBeNull();
      await vi.waitFor(() => expect(closed).toContain("h1"), { timeout: 5000 });
    } finally {
      fetchServer.closeAllConnections();
      fetchServer.close();
    }
  });
});
