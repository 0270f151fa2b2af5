import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { compilePathMatcher } from "../../packages/runtime/src/http/path-matcher.js";
import { unmatchedResponse } from "../../packages/runtime/src/http/unmatched.js";
import { readRoutes } from "../helpers/samples.js";

// A real node:http server on 127.0.0.1 routing by the generated v1.0.1 table.
const table = readRoutes("v1.0.1");
const matcher = compilePathMatcher([...table.routes, ...table.aliases]);
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const m = matcher.match(req.method ?? "GET", url.pathname);
    if (m.status === 200) {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ operation: m.route.operation, params: m.params }));
      return;
    }
    const u = unmatchedResponse(m);
    res.writeHead(u.status, u.headers).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("routing over HTTP", () => {
  it("serves a route", async () => {
    const r = await fetch(`${base}/acme/tasks/t%2F1`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ operation: "GetTask", params: { tenant: "acme", id: "t/1" } });
  });
  it("answers 405 with Allow for a known path and a wrong method", async () => {
    const r = await fetch(`${base}/tasks/t1:cancel`, { method: "GET" });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST");
  });
  it("answers a bare 404 for an unknown path", async () => {
    // (/v1/message:send would reach the tenant route with tenant "v1".)
    const r = await fetch(`${base}/v1/a/b/c/d/message:send`, { method: "POST" });
    expect(r.status).toBe(404);
    expect(r.headers.get("allow")).toBeNull();
    expect(await r.text()).toBe("");
  });
});
