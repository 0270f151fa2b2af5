/**
 * The client's agent card resolver (spec §8.2, §8.6.2) against real servers
 * on 127.0.0.1: a plain node:http server whose answers each test chooses and
 * whose requests it counts, and a generated v1.0 handler (its card server's
 * ETag). A fresh card (max-age) is reused without a request; a stale one is
 * revalidated with If-None-Match and a 304 reuses it; no-store and no-cache
 * ask every time; A2A-Version is sent; the card URL comes from a base URL or
 * is given; signatures are checked when asked, refused cards are not cached;
 * every failure names the URL. At most 64 cards are kept, the one fetched
 * longest ago dropped first.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  A2ATransportError,
  AgentCardVerificationError,
  createAgentCardResolver,
  nodeHttpListener,
  resolveAgentCard,
} from "@protoc-gen-a2a/runtime";
import { agentCardUrl } from "@protoc-gen-a2a/runtime/protocol";
import { agentCardVerifier, signAgentCard } from "@protoc-gen-a2a/runtime/card-signing";
import { type CryptoKey, generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { createA2AServiceHttpHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const card = {
  name: "Resolved agent",
  description: "Found at the well-known URL",
  supportedInterfaces: [{ url: "http://127.0.0.1/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1",
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "S", description: "d", tags: ["t"] }],
};

interface Answer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** What the plain server answers, per path prefix, and the requests it saw. */
const answers = new Map<string, Answer>();
const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
let plain: Server;
let base: string;
let generated: Server;
let generatedBase: string;
let cardCalls = 0;
let keys: { privateKey: CryptoKey; publicKey: CryptoKey };

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  keys = await generateKeyPair("ES256");
  plain = createServer((req, res) => {
    const path = req.url ?? "/";
    seen.push({ path, headers: req.headers });
    const answer = answers.get(path.split("/")[1] ?? "") ?? { status: 404, body: "no such card" };
    const etag = answer.headers?.etag;
    if (etag !== undefined && req.headers["if-none-match"] === etag) {
      res.writeHead(304, answer.headers).end();
      return;
    }
    res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body ?? JSON.stringify(card));
  });
  base = await listen(plain);
  const handler = createA2AServiceHttpHandler({
    handler: createEchoHandler(),
    agentCard: () => {
      cardCalls++;
      return card;
    },
    agentCardMaxAge: 0,
  });
  generated = createServer(nodeHttpListener(handler));
  generatedBase = await listen(generated);
});

afterAll(() => {
  plain.close();
  generated.close();
});

beforeEach(() => {
  answers.clear();
  seen.length = 0;
});

const requestsTo = (prefix: string) => seen.filter((r) => r.path.startsWith(`/${prefix}/`));

describe("the card URL", () => {
  it("is the base URL's .well-known/agent-card.json, or the URL given when it ends in .json", () => {
    expect(agentCardUrl("https://h.example")).toBe("https://h.example/.well-known/agent-card.json");
    expect(agentCardUrl("https://h.example/agent")).toBe("https://h.example/agent/.well-known/agent-card.json");
    expect(agentCardUrl("https://h.example/cards/a.json")).toBe("https://h.example/cards/a.json");
  });
});

describe("caching", () => {
  it("sends A2A-Version and reuses a fresh card (max-age) without a request", async () => {
    answers.set("fresh", { headers: { "cache-control": "max-age=300", etag: '"v1"' } });
    const resolver = createAgentCardResolver();
    const first = await resolver.resolve(`${base}/fresh`);
    const second = await resolver.resolve(`${base}/fresh`);
    expect(first).toMatchObject({ source: "network", etag: '"v1"', url: `${base}/fresh/.well-known/agent-card.json` });
    expect(first.card).toEqual(card);
    expect(second.source).toBe("cache");
    expect(requestsTo("fresh")).toHaveLength(1);
    expect(requestsTo("fresh")[0]?.headers["a2a-version"]).toBe("1.0");
  });

  it("keeps at most 64 cards, dropping the one fetched longest ago", async () => {
    answers.set("many", { headers: { "cache-control": "max-age=300" } });
    const resolver = createAgentCardResolver();
    for (let i = 0; i <= 64; i++) await resolver.resolve(`${base}/many/c${i}`);
    const second = await resolver.resolve(`${base}/many/c1`);
    const first = await resolver.resolve(`${base}/many/c0`);
    expect([second.source, first.source]).toEqual(["cache", "network"]);
    expect(requestsTo("many")).toHaveLength(66);
  });

  // Ten cards of a little over 900,000 bytes as served: nine fit in 8 MiB, the tenth pushes out the first. "é" is
  // two bytes in UTF-8: its cards hold as many bytes in half as many characters, and count by their bytes.
  it.each([
    ["big", "d", 900_000],
    ["wide", "é", 450_000],
  ])("keeps at most 8 MiB of cards as served (%s), dropping the one fetched longest ago", async (prefix, c, n) => {
    const big = JSON.stringify({ ...card, description: c.repeat(n) });
    expect(Buffer.byteLength(big) > 900_000 && 9 * Buffer.byteLength(big) <= 8 * 1024 * 1024).toBe(true);
    answers.set(prefix, { body: big, headers: { "cache-control": "max-age=300" } });
    const resolver = createAgentCardResolver();
    for (let i = 0; i < 10; i++) await resolver.resolve(`${base}/${prefix}/c${i}`);
    const kept = await resolver.resolve(`${base}/${prefix}/c1`);
    const dropped = await resolver.resolve(`${base}/${prefix}/c0`);
    expect([kept.source, dropped.source]).toEqual(["cache", "network"]);
  });

  it("revalidates a stale card with If-None-Match and reuses it on 304", async () => {
    answers.set("stale", { headers: { "cache-control": "max-age=0", etag: '"v2"' } });
    const resolver = createAgentCardResolver({ version: "1.0" });
    await resolver.resolve(`${base}/stale`);
    const again = await resolver.resolve(`${base}/stale`);
    expect(again.source).toBe("revalidated");
    expect(again.card).toEqual(card);
    expect(requestsTo("stale").map((r) => r.headers["if-none-match"])).toEqual([undefined, '"v2"']);
  });

  it.each([
    ["no-store", false],
    ["no-cache", true],
  ])("%s: asks every time (validator sent: %s)", async (directive, conditional) => {
    answers.set("ask", { headers: { "cache-control": `${directive}, max-age=300`, etag: '"v3"' } });
    const resolver = createAgentCardResolver();
    await resolver.resolve(`${base}/ask`);
    const again = await resolver.resolve(`${base}/ask`);
    expect(again.source).toBe(conditional ? "revalidated" : "network");
    expect(requestsTo("ask").map((r) => r.headers["if-none-match"])).toEqual([
      undefined,
      conditional ? '"v3"' : undefined,
    ]);
  });

  it("keeps the cache per resolver and per A2A-Version", async () => {
    answers.set("fresh", { headers: { "cache-control": "max-age=300" } });
    await createAgentCardResolver().resolve(`${base}/fresh`);
    await createAgentCardResolver().resolve(`${base}/fresh`);
    const resolver = createAgentCardResolver({ version: "0.3" });
    await resolver.resolve(`${base}/fresh`);
    expect(requestsTo("fresh").map((r) => r.headers["a2a-version"])).toEqual(["1.0", "1.0", "0.3"]);
  });

  it("revalidates against the generated server's card ETag (304, card not sent again)", async () => {
    const resolver = createAgentCardResolver();
    const first = await resolver.resolve(generatedBase);
    const second = await resolver.resolve(generatedBase);
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(second).toMatchObject({ source: "revalidated", etag: first.etag, card });
    expect(cardCalls).toBe(2);
  });

  it("takes a timeoutMs past what a timer holds (Infinity) as no timeout", async () => {
    expect((await resolveAgentCard(generatedBase, { timeoutMs: Number.POSITIVE_INFINITY })).card).toEqual(card);
  });
});

describe("signature verification", () => {
  it("accepts a signed card and returns what verified; refuses an unsigned one naming the URL", async () => {
    const signed = await signAgentCard(card, { key: keys.privateKey, kid: "k1" });
    answers.set("signed", { body: JSON.stringify(signed), headers: { "cache-control": "max-age=300" } });
    answers.set("unsigned", { headers: { "cache-control": "max-age=300" } });
    const resolver = createAgentCardResolver({ verify: agentCardVerifier({ key: keys.publicKey }) });
    const ok = await resolver.resolve(`${base}/signed`);
    expect(ok.verification?.verified[0]).toMatchObject({ kid: "k1", alg: "ES256" });
    const refused = resolver.resolve(`${base}/unsigned`);
    await expect(refused).rejects.toBeInstanceOf(AgentCardVerificationError);
    await expect(refused).rejects.toThrow(
      `ResolveAgentCard: the card at ${base}/unsigned/.well-known/agent-card.json was refused: ` +
        'agent card "Resolved agent": no signatures to verify',
    );
  });

  it("resolves to what the signature covers: a member added to a signed card is only in `fetched`", async () => {
    const signed = await signAgentCard(card, { key: keys.privateKey, kid: "k1" });
    const tampered = { ...signed, url: "https://evil.example/rpc", tokenUrl: "https://evil.example" };
    answers.set("tampered", { body: JSON.stringify(tampered), headers: { "cache-control": "max-age=300" } });
    const resolver = createAgentCardResolver({ verify: agentCardVerifier({ key: keys.publicKey }) });
    for (const source of ["network", "cache"]) {
      const got = await resolver.resolve(`${base}/tampered`);
      expect(got.source).toBe(source);
      expect(got.fetched).toEqual(tampered);
      expect(got.card).toBe(got.verification?.card);
      expect(got.card).toMatchObject({ name: "Resolved agent", skills: card.skills });
      expect(got.card).not.toHaveProperty("url");
      expect(got.card).not.toHaveProperty("tokenUrl");
    }
    // A verify function of its own result type: the card as served.
    const own = await createAgentCardResolver({ verify: () => ({ card: "not an object" }) }).resolve(
      `${base}/tampered`,
    );
    expect(own.card).toEqual(tampered);
  });

  it("does not cache a refused card, and verifies nothing when not asked", async () => {
    const other = await generateKeyPair("ES256");
    const signed = await signAgentCard(card, { key: other.privateKey, kid: "k2" });
    answers.set("wrong", { body: JSON.stringify(signed), headers: { "cache-control": "max-age=300" } });
    const resolver = createAgentCardResolver({ verify: agentCardVerifier({ key: keys.publicKey }) });
    await expect(resolver.resolve(`${base}/wrong`)).rejects.toThrow(/kid k2, alg ES256\): the signature does not/);
    await expect(resolver.resolve(`${base}/wrong`)).rejects.toThrow(AgentCardVerificationError);
    expect(requestsTo("wrong")).toHaveLength(2);
    const unchecked = await resolveAgentCard(`${base}/wrong`);
    expect(unchecked.verification).toBeUndefined();
    expect(unchecked.card).toEqual(signed);
    expect(unchecked.fetched).toBe(unchecked.card);
  });
});

describe("failures name the URL", () => {
  it("a status other than 200 or 304", async () => {
    const url = `${base}/missing/.well-known/agent-card.json`;
    const failure = resolveAgentCard(`${base}/missing`);
    await expect(failure).rejects.toThrow(`ResolveAgentCard: GET ${url} answered 404 Not Found`);
    await expect(failure).rejects.toMatchObject({ status: 404, url, body: "no such card" });
  });

  it("a body that is not JSON, or not an object", async () => {
    answers.set("html", { body: "<html>" });
    answers.set("list", { body: "[1]" });
    await expect(resolveAgentCard(`${base}/html`)).rejects.toThrow(
      new RegExp(`the card at ${base}/html/\\.well-known/agent-card\\.json is not JSON`),
    );
    await expect(resolveAgentCard(`${base}/list/card.json`)).rejects.toThrow(
      `ResolveAgentCard: the card at ${base}/list/card.json is not a JSON object`,
    );
  });

  it("a card whose body trickles is cut off at timeoutMs, though the garbage collector runs meanwhile", async () => {
    // Headers at once, then a space every 50 ms for good. A timeout that nothing holds is collected on Node 20
    // and never fires; the collector runs every 5 ms to make that happen.
    const trickling = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).write("{");
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const url = await listen(trickling);
    const collecting = setInterval(gc, 5);
    let watchdog: NodeJS.Timeout | undefined;
    const hung = new Promise<string>((resolve) => {
      watchdog = setTimeout(() => resolve("still reading after 4 s"), 4000);
    });
    try {
      const outcome = await Promise.race([
        resolveAgentCard(url, { timeoutMs: 300 }).then(
          () => "resolved",
          (e: Error) => e.message,
        ),
        hung,
      ]);
      expect(outcome).toBe(
        `ResolveAgentCard: reading the card at ${url}/.well-known/agent-card.json failed: ` +
          "The operation was aborted due to timeout",
      );
    } finally {
      clearInterval(collecting);
      clearTimeout(watchdog);
      trickling.closeAllConnections();
      await new Promise((resolve) => trickling.close(resolve));
    }
  });

  it("a refused connection", async () => {
    const closed = createServer();
    const url = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const failure = resolveAgentCard(url);
    await expect(failure).rejects.toBeInstanceOf(A2ATransportError);
    await expect(failure).rejects.toThrow(`ResolveAgentCard: GET ${url}/.well-known/agent-card.json failed`);
  });
});
