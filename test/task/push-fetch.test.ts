/**
 * What push delivery does on runtimes without Node's built-ins (Cloudflare Workers, browsers): IP literals
 * are told apart without node:net (ip-literal.ts, compared with node:net's isIP on generated text), and one
 * attempt goes over fetch (push-attempt.ts postOnceFetch) with the outcomes of the node:http attempt: an
 * answer with its Retry-After, a redirect not followed, a timeout, a refused connection (both retryable), a
 * request that cannot be built (not retryable), a long answer drained only so far. Against a real receiver on
 * 127.0.0.1; the node:http attempt answers the same requests alike.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ipFamily } from "../../packages/runtime/src/task/ip-literal.js";
import { type AttemptInput, postOnceFetch } from "../../packages/runtime/src/task/push-attempt.js";
import { postOnceNode } from "../../packages/runtime/src/task/push-attempt-node.js";

describe("IP literals without node:net", () => {
  it("agree with node:net's isIP on addresses and on text made of their characters", () => {
    const text = fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEFxz:.%-"), maxLength: 24 });
    const addresses = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4Extended(),
      fc.tuple(fc.ipV6(), fc.stringMatching(/^[a-z0-9.:-]{0,4}$/)).map(([a, zone]) => `${a}%${zone}`),
    );
    fc.assert(
      fc.property(fc.oneof(text, addresses), (s) => {
        expect(ipFamily(s)).toBe(isIP(s));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ["1.2.3.4", 4],
    ["01.2.3.4", 0],
    ["::", 6],
    ["1:2:3:4:5:6:7::", 6],
    ["1:2:3:4:5:6:7:8:9", 0],
    ["1::2::3", 0],
    ["::ffff:1.2.3.4", 6],
    ["1:2:3:4:5:6:7:1.2.3.4", 0],
    ["fe80::1%eth0", 6],
    ["fe80::1%", 0],
    ["[::1]", 0],
  ])("%s is %i", (s, family) => {
    expect(ipFamily(s)).toBe(family);
    expect(isIP(s)).toBe(family);
  });
});

let server: Server;
let base: string;
let hits: string[] = [];
/** The bytes the /early webhook read of each notification; negative when the connection closed before its end. */
const earlyRead: number[] = [];
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? "");
    req.resume();
    if (req.url === "/ok") res.writeHead(503, { "retry-after": "7" }).end("busy");
    else if (req.url === "/redirect") res.writeHead(302, { location: "/elsewhere" }).end();
    else if (req.url === "/hang") hanging.push(res);
    else if (req.url === "/long") {
      res.writeHead(200);
      // More than the 64 KiB an attempt reads, then never ended: the attempt must stop reading by itself.
      res.write("x".repeat(200 * 1024));
      hanging.push(res);
    } else if (req.url === "/early") {
      // Sends its status before reading the notification, then reads it: it must arrive whole.
      res.writeHead(202);
      res.flushHeaders();
      let length = 0;
      req.on("data", (chunk: Buffer) => (length += chunk.length));
      req.on("end", () => {
        earlyRead.push(length);
        res.end();
      });
      req.on("close", () => (req.complete ? undefined : earlyRead.push(-length)));
    } else if (req.url === "/trickle") {
      res.writeHead(200);
      // A byte now and then, never ended: the status decides, the attempt does not wait for the body.
      const trickle = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(trickle));
      hanging.push(res);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const attempt = (path: string, over: Partial<AttemptInput> = {}): AttemptInput => ({
  target: { url: new URL(`${base}${path}`), addresses: [] },
  headers: { "content-type": "application/json" },
  body: '{"task":1}',
  timeoutMs: 2_000,
  ...over,
});

/** An outcome without its cause's text, which each transport words its own way. */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const shape = (o: Awaited<ReturnType<typeof postOnceFetch>>) =>
  o.kind === "answered" ? o : { kind: o.kind, timedOut: o.timedOut, retryable: o.retryable };

describe.each([
  ["fetch", postOnceFetch],
  ["node:http", postOnceNode],
])("one attempt over %s", (_name, post) => {
  it("an answer, with its status and Retry-After", async () => {
    const outcome = await post(attempt("/ok"));
    expect(outcome).toEqual({
      kind: "answered",
      status: 503,
      statusText: "Service Unavailable",
      retryAfter: "7",
      closed: expect.any(Promise),
    });
    await (outcome.kind === "answered" && outcome.closed);
  });

  it("a redirect is an answer, not followed", async () => {
    hits = [];
    expect(await post(attempt("/redirect"))).toMatchObject({ kind: "answered", status: 302 });
    expect(hits).toEqual(["/redirect"]);
  });

  it("no answer in time: timed out, retryable", async () => {
    const outcome = await post(attempt("/hang", { timeoutMs: 200 }));
    expect(shape(outcome)).toEqual({ kind: "failed", timedOut: true, retryable: true });
    expect(outcome.kind === "failed" && outcome.cause.message).toBe("no answer within 200 ms");
  });

  it("a long answer is read only so far: the attempt ends", async () => {
    expect(await post(attempt("/long", { timeoutMs: 5_000 }))).toMatchObject({ kind: "answered", status: 200 });
  });

  it("a 2xx whose body trickles past the timeout is an answer, not a timeout", async () => {
    const outcome = await post(attempt("/trickle", { timeoutMs: 300 }));
    expect(outcome).toMatchObject({ kind: "answered", status: 200 });
    // The connection is closed at the timeout: the sender's turn is given back then (push.ts).
    await (outcome.kind === "answered" && outcome.closed);
  });

  it("closes a trickling answer at the timeout though the garbage collector runs meanwhile", async () => {
    // fetch's Request holds the timeout's link to the body weakly: collected, it would never end the body.
    const collecting = setInterval(gc, 5);
    let watchdog: NodeJS.Timeout | undefined;
    try {
      const outcome = await post(attempt("/trickle", { timeoutMs: 300 }));
      const stuck = new Promise<string>((resolve) => {
        watchdog = setTimeout(() => resolve("still open after 4 s"), 4000);
      });
      const closed = outcome.kind === "answered" ? outcome.closed.then(() => "closed") : "not answered";
      expect(await Promise.race([closed, stuck])).toBe("closed");
    } finally {
      clearInterval(collecting);
      clearTimeout(watchdog);
    }
  });

  it("a notification the webhook reads after answering arrives whole", async () => {
    earlyRead.length = 0;
    const body = "n".repeat(4 * 1024 * 1024);
    expect(await post(attempt("/early", { body }))).toMatchObject({ kind: "answered", status: 202 });
    await vi.waitFor(() => expect(earlyRead).toEqual([body.length]));
  });

  it("a refused connection: failed, retryable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await post(attempt("/", { target: { url: new URL(`http://127.0.0.1:${port}/`), addresses: [] } }));
    expect(shape(outcome)).toEqual({ kind: "failed", timedOut: false, retryable: true });
  });

  it("a header value with a line break cannot be sent: failed, not retryable", async () => {
    const outcome = await post(attempt("/ok", { headers: { "x-token": "a\r\nb" } }));
    expect(shape(outcome)).toEqual({ kind: "failed", timedOut: false, retryable: false });
  });
});
