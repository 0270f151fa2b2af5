/**
 * The cors option (packages/runtime/src/http/cors.ts) on a handler, through the fetch adapter: what a preflight
 * from an allowed and from another origin gets, what an actual call gets, that a request without Origin is
 * untouched, that Vary keeps the handler's own names, and the refused combination of "*" and credentials.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { fetchHandler, nodeHttpListener, type CoreHandler } from "@protoc-gen-a2a/runtime";
import { withCors } from "../../packages/runtime/src/http/cors.js";

let reached = 0;
const inner: CoreHandler = async () => {
  reached++;
  return { status: 200, headers: { "content-type": "text/plain", vary: "A2A-Version" }, body: "ok" };
};
const serve = (origins: readonly string[] | "*", credentials = false) =>
  fetchHandler(withCors(inner, { origins, credentials }));
const call = (origin: string | null, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  if (origin !== null) headers.set("origin", origin);
  return new Request("http://agent.test/a2a/jsonrpc", { ...init, headers });
};
const preflight = (origin: string) =>
  call(origin, { method: "OPTIONS", headers: { "access-control-request-method": "POST" } });

describe("cors", () => {
  it("answers a preflight from an allowed origin itself, with the methods, headers and max age", async () => {
    reached = 0;
    const res = await serve(["https://app.test"])(preflight("https://app.test"));
    expect(res.status).toBe(204);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      "access-control-allow-origin": "https://app.test",
      "access-control-allow-methods": "GET, POST, DELETE",
      "access-control-allow-headers":
        "Content-Type, Authorization, A2A-Version, A2A-Extensions, X-A2A-Extensions, X-API-Key",
      "access-control-max-age": "600",
      vary: "Origin",
    });
    expect(reached).toBe(0);
  });

  it("answers a preflight through node:http with no Content-Length, as a 204 must (RFC 9110 §8.6)", async () => {
    const server = createServer(nodeHttpListener(withCors(inner, { origins: ["https://app.test"] })));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/a2a/jsonrpc`, {
        method: "OPTIONS",
        headers: { origin: "https://app.test", "access-control-request-method": "POST" },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://app.test");
      expect(res.headers.get("content-length")).toBeNull();
    } finally {
      server.close();
    }
  });

  it("refuses a preflight from another origin, without CORS headers", async () => {
    const res = await serve(["https://app.test"])(preflight("https://evil.test"));
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("marks an allowed call's answer readable, keeping the handler's Vary", async () => {
    const res = await serve(["https://app.test"])(call("https://app.test", { method: "POST", body: "{}" }));
    expect(await res.text()).toBe("ok");
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.test");
    expect(res.headers.get("access-control-expose-headers")).toBe(
      "A2A-Version, A2A-Extensions, X-A2A-Extensions, Retry-After",
    );
    expect(res.headers.get("vary")).toBe("A2A-Version, Origin");
  });

  it("answers a call from another origin without CORS headers, and one without Origin as it is", async () => {
    const other = await serve(["https://app.test"])(call("https://evil.test"));
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("vary")).toBe("A2A-Version, Origin");
    const plain = await serve(["https://app.test"])(call(null));
    expect(plain.headers.get("vary")).toBe("A2A-Version");
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
  });

  it('allows any origin with "*", and refuses "*" with credentials', async () => {
    const res = await serve("*")(call("https://any.test"));
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const credentialed = await serve(["https://app.test"], true)(call("https://app.test"));
    expect(credentialed.headers.get("access-control-allow-credentials")).toBe("true");
    expect(() => serve("*", true)).toThrow('cors: credentials need listed origins, not origins: "*"');
  });
});
