/**
 * HEAD is GET without the body (RFC 9110 §9.3.2), Content-Length included
 * (issue 24, item 6): on the agent card (one version, the other, both merged)
 * and on every GET route of both versions' route tables (tenant variants
 * included), HEAD answers the GET's status, Content-Type and Content-Length,
 * and no body; a stream's GET has no length, and neither has its HEAD. Also
 * the dual-version server's 404 that names the newer version. The example
 * agent runs on 127.0.0.1, at both versions and at 1.0 only.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandPath, type Route } from "@protoc-gen-a2a/runtime/protocol";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { A2AServiceV0_3 } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";

interface Head {
  readonly status: number;
  readonly type: string | undefined;
  readonly length: string | undefined;
  /** The body's bytes; for a stream, only what came with the headers' read (the request is then dropped). */
  readonly bytes: number;
}

/** One request on a new connection; a text/event-stream answer is dropped once its headers are in. */
function ask(method: "GET" | "HEAD", url: string, headers: Record<string, string>): Promise<Head> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const head = {
        status: res.statusCode ?? 0,
        type: res.headers["content-type"],
        length: res.headers["content-length"],
      };
      if (method === "GET" && head.type === "text/event-stream") {
        res.destroy();
        resolve({ ...head, bytes: -1 });
        return;
      }
      let bytes = 0;
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", () => resolve({ ...head, bytes }));
      res.on("error", reject);
    });
    req.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? undefined : reject(e)));
    req.end();
  });
}

/** GET and HEAD of one URL agree but for the body, which HEAD leaves out. */
async function expectHeadLikeGet(url: string, headers: Record<string, string>): Promise<Head> {
  const get = await ask("GET", url, headers);
  const head = await ask("HEAD", url, headers);
  expect({ status: head.status, type: head.type, length: head.length }, url).toEqual({
    status: get.status,
    type: get.type,
    length: get.length,
  });
  expect(head.bytes).toBe(0);
  if (get.type !== "text/event-stream") expect(Number(get.length), url).toBe(get.bytes);
  return get;
}

let dual: RunningAgent;
let only10: RunningAgent;
let working: string;

beforeAll(async () => {
  [dual, only10] = await Promise.all([startEchoAgent(), startEchoAgent({ only10: true })]);
  const res = await fetch(dual.urls.jsonrpc, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: { messageId: "w", role: "ROLE_USER", parts: [{ text: "wait" }] },
        configuration: { returnImmediately: true },
      },
    }),
  });
  working = ((await res.json()) as { result: { task: { id: string } } }).result.task.id;
});
afterAll(() => Promise.all([dual?.close(), only10?.close()]));

describe("the agent card", () => {
  it.each<[string, Record<string, string>]>([
    ["without A2A-Version (both cards merged)", {}],
    ["at 1.0", { "A2A-Version": "1.0" }],
    ["at 0.3", { "A2A-Version": "0.3" }],
  ])("dual-version server, %s: HEAD has the GET's Content-Length", async (_n, headers) => {
    const get = await expectHeadLikeGet(dual.urls.card, headers);
    expect(get.status).toBe(200);
    expect(Number(get.length)).toBeGreaterThan(100);
  });

  it("1.0-only server: HEAD has the GET's Content-Length", async () => {
    const get = await expectHeadLikeGet(only10.urls.card, {});
    expect(get.status).toBe(200);
    expect(Number(get.length)).toBeGreaterThan(100);
  });
});

/** A concrete URL of a route: each `*` of a variable is the working task's id, a tenant is "t-head". */
function urlOf(route: Route, base: string): string {
  const values: Record<string, string> = {};
  for (const v of route.variables) {
    const segments = route.segments.slice(v.start, v.end);
    values[v.field] = v.field === "tenant" ? "t-head" : segments.map((s) => (s === "*" ? working : s)).join("/");
  }
  return base + expandPath(route, values);
}

describe.each(["1.0", "0.3"] as const)("every GET route at %s", (version) => {
  const def = version === "1.0" ? A2AServiceV1_0 : A2AServiceV0_3;
  const routes = [...def.routes, ...def.aliases].filter((r) => r.method === "GET");
  const headers: Record<string, string> = version === "1.0" ? { "A2A-Version": "1.0" } : {};
  it.each(routes.map((r) => [`${r.operation} ${r.template}`, r] as const))("%s", async (_n, route) => {
    const get = await expectHeadLikeGet(urlOf(route, dual.urls.rest), headers);
    // The working task lives in no tenant: its stream is served without one, TaskNotFound in "t-head".
    if (route.streaming && !route.tenantVariant) expect([get.status, get.length]).toEqual([200, undefined]);
    else expect(Number(get.length)).toBeGreaterThan(0);
  });
});

it("the dual-version server's 404 naming the newer version: HEAD has the GET's Content-Length", async () => {
  const get = await expectHeadLikeGet(`${dual.urls.rest}/tasks`, {});
  expect(get.status).toBe(404);
  expect(Number(get.length)).toBeGreaterThan(0);
});
