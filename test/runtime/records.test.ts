/**
 * Objects built by assignment (packages/runtime/src/core/records.ts): a copy with names added, the added value
 * winning, the base untouched; a copy without its undefined names; the names of every record in order, a later value winning; "__proto__" kept as an own name, not taken for the prototype; names dropped by a
 * test. And through node:http: an answer whose core headers carry a Content-Length of their own goes out with
 * the body's length, once, and the handler's other headers as they were.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { definedNames, headerRecord, headersWithout, withNames } from "../../packages/runtime/src/core/records.js";

describe("withNames", () => {
  it("copies the base with the names added, an added value winning, and leaves the base as it was", () => {
    const base = { a: 1, b: "x" };
    const out = withNames(base, { b: "y", c: true });
    expect(out).toEqual({ a: 1, b: "y", c: true });
    expect(base).toEqual({ a: 1, b: "x" });
    expect(out).not.toBe(base);
  });
});

describe("definedNames", () => {
  it("keeps the names whose value is not undefined, null, 0 and empty strings included", () => {
    const out = definedNames({ a: undefined, b: null, c: 0, d: "", e: "x" });
    expect(out).toEqual({ b: null, c: 0, d: "", e: "x" });
    expect(Object.keys(out)).toEqual(["b", "c", "d", "e"]);
  });
});

describe("headerRecord", () => {
  it("holds every record's names in order, a later value winning", () => {
    const out = headerRecord({ a: "1", b: "2" }, { c: "3" }, { a: "4" });
    expect(Object.entries(out)).toEqual([
      ["a", "4"],
      ["b", "2"],
      ["c", "3"],
    ]);
  });

  it("keeps __proto__ as an own name and leaves the prototype alone", () => {
    const named = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    const out = headerRecord({ a: "1" }, named);
    expect(Object.keys(out)).toEqual(["a", "__proto__"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toBe("x");
  });

  it("drops the names the test accepts", () => {
    const out = headersWithout({ Vary: "Accept", etag: "e", vary: "x" }, (n) => n.toLowerCase() === "vary");
    expect(out).toEqual({ etag: "e" });
  });
});

describe("the node:http adapter's Content-Length", () => {
  it("replaces one the core headers carry, once, and sends the others", async () => {
    const body = "héllo"; // 6 bytes in UTF-8
    const listener = nodeHttpListener(async () => ({
      status: 200,
      headers: { "content-type": "text/plain", "content-length": "999", "x-kept": "yes" },
      body,
    }));
    const server = createServer(listener);
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.headers.get("content-length")).toBe("6");
      expect(res.headers.get("x-kept")).toBe("yes");
      expect(await res.text()).toBe(body);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});
