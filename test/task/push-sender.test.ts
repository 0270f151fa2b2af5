/**
 * Push delivery (issue 11): createPushSender against a real webhook receiver (node:http on 127.0.0.1).
 * Proves the request (POST, content type per version, X-A2A-Notification-Token, Authorization, body as
 * given), the retry policy (503 twice then 200; no retry on 400, 3xx, a refused request; timeouts and
 * refused connections retried; Retry-After honoured and capped), onError naming URL, task, config,
 * attempts and status or cause, order per config, the queue bound, the limits per webhook host (turns and
 * bytes, a second receiver on another port being another host), idle(), close(), and the SSRF screening of
 * checkUrl and of each delivery, with its allow options (allowPrivateNetworks, allowHosts, allowNetworks:
 * read when the sender is created, matched against every address) and the acceptance of a host that does
 * not resolve at creation (delivery retries it). Backoffs are a few ms; no timing is asserted.
 */
import { spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { A2AError } from "../../packages/runtime/src/core/a2a-error.js";
import type { TaskPushNotificationConfig } from "../../packages/runtime/src/task/a2a-types.js";
import {
  createPushSender,
  type PushDeliveryError,
  type PushSenderOptions,
} from "../../packages/runtime/src/task/push.js";
import { parseRetryAfter } from "../../packages/runtime/src/core/retry-after.js";
import type { PushDelivery, PushSender, PushTrace } from "../../packages/runtime/src/task/push-types.js";
import { webhookHost } from "../../packages/runtime/src/task/push-shares.js";
import { readRetrySettings } from "../../packages/runtime/src/task/push-policy.js";
import { pinnedLookup } from "../../packages/runtime/src/task/push-attempt-node.js";

interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

type Answer = (req: Received, res: ServerResponse) => unknown;

let server: Server;
let base: string;
let received: Received[] = [];
let answer: Answer = (_req, res) => res.end();
/** Answers left hanging by a test; ended after it. */
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const got = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(got);
      void answer(got, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  received = [];
  answer = (_req, res) => res.end();
  for (const res of hanging.splice(0)) res.destroy();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function config(url: string, more: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig {
  return {
    $typeName: "lf.a2a.v1.TaskPushNotificationConfig",
    tenant: "",
    id: "cfg-1",
    taskId: "task-1",
    url,
    token: "",
    ...more,
  };
}

function delivery(body: string, more: Partial<TaskPushNotificationConfig> = {}, version = "1.0"): PushDelivery {
  return { config: config(`${base}/hook`, more), protocolVersion: version, body };
}

/** A delivery trace that records its end as "<id> <outcome>" in `ends`; attempts add no headers. */
function endsTo(ends: string[], id: string): PushTrace {
  return {
    attempt: () => ({ headers: {}, end: () => {} }),
    end: (outcome) => ends.push(`${id} ${outcome}`),
  };
}

/** A sender for the local receiver, with ms backoffs, and the errors it reported. */
function localSender(options: PushSenderOptions = {}): { sender: PushSender; errors: PushDeliveryError[] } {
  const errors: PushDeliveryError[] = [];
  const sender = createPushSender({
    allowHosts: ["127.0.0.1"],
    attempts: 3,
    initialBackoffMs: 1,
    maxBackoffMs: 4,
    timeoutMs: 5_000,
    onError: (e) => errors.push(e),
    ...options,
  });
  return { sender, errors };
}

/** Sends `body` to `url` for `owner`, under a config whose id is the body (so the receiver's order names it). */
function sendAs(sender: PushSender) {
  return (body: string, url: string | undefined, owner: string) =>
    sender.send({ config: config(url!, { id: body }), protocolVersion: "1.0", body, owner });
}

/** Lets the held attempt go, waits for the sender to be idle with no error: the bodies in the order received. */
async function releasedOrder(held: { release(): void }, sender: PushSender, errors: PushDeliveryError[]) {
  held.release();
  await sender.idle();
  expect(errors).toEqual([]);
  return received.map((r) => r.body);
}

/** A limit in all, and the same limit for the one host the local receiver is: the tests of the limits in all. */
function oneHost(limit: { maxConcurrent: number } | { maxQueuedBytes: number }): PushSenderOptions {
  return "maxConcurrent" in limit
    ? { ...limit, maxConcurrentPerHost: limit.maxConcurrent }
    : { ...limit, maxQueuedBytesPerHost: limit.maxQueuedBytes };
}

/** Answers with the statuses in turn (then 200); a status may come with headers. */
function script(...steps: (number | readonly [number, Record<string, string>])[]): Answer {
  return (_req, res) => {
    const step = steps.shift() ?? 200;
    const [status, headers] = typeof step === "number" ? [step, {}] : step;
    res.writeHead(status, headers).end();
  };
}

/** A gate that also counts the requests it holds at once: peak() is the most there were. */
function countedGate(): { release: () => void; answer: Answer; peak: () => number } {
  const held = gate();
  let open = 0;
  let peak = 0;
  return {
    release: held.release,
    peak: () => peak,
    answer: async (req, res) => {
      open += 1;
      peak = Math.max(peak, open);
      await held.answer(req, res);
      open -= 1;
    },
  };
}

/** A second receiver (another host: another port) that answers 200 at once, with configs pointing at it. */
async function otherReceiver(): Promise<{
  bodies: string[];
  config: (i: number) => TaskPushNotificationConfig;
  close: () => Promise<void>;
}> {
  const bodies: string[] = [];
  const other = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.end();
    });
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}/hook`;
  return {
    bodies,
    config: (i) => config(url, { id: `other-${i}` }),
    close: async () => {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    },
  };
}

/** `n` more hosts (ports) served like the shared receiver: what they get goes to `received`, answered by `answer`. */
async function moreHosts(n: number): Promise<{ urls: string[]; close: () => Promise<void> }> {
  const listener = server.listeners("request")[0] as (req: IncomingMessage, res: ServerResponse) => void;
  const servers = await Promise.all(
    Array.from({ length: n }, async () => {
      const more = createServer(listener);
      await new Promise<void>((resolve) => more.listen(0, "127.0.0.1", resolve));
      return more;
    }),
  );
  return {
    urls: servers.map((more) => `http://127.0.0.1:${(more.address() as AddressInfo).port}/hook`),
    close: async () => {
      for (const more of servers) more.closeAllConnections();
      await Promise.all(servers.map((more) => new Promise((resolve) => more.close(resolve))));
    },
  };
}

/** A gate the receiver waits on, and a promise that resolves once a request arrived. */
function gate(): { arrived: Promise<void>; release: () => void; answer: Answer } {
  let release = () => {};
  let arrive = () => {};
  const opened = new Promise<void>((resolve) => (release = resolve));
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  return {
    arrived,
    release,
    answer: async (_req, res) => {
      arrive();
      await opened;
      res.end();
    },
  };
}

describe("the webhook request", () => {
  it("posts the body as given with the v1.0 content type, token and Authorization headers", async () => {
    const { sender, errors } = localSender();
    const body = '{"statusUpdate":{"taskId":"task-1","note":"h\u00e9llo \u2713"}}';
    const auth = { $typeName: "lf.a2a.v1.AuthenticationInfo" as const, scheme: "Bearer", credentials: "cred-42" };
    sender.send({
      config: config(`${base}/hook?x=1`, { token: "tok-7", authentication: auth }),
      protocolVersion: "1.0",
      body,
    });
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got?.method).toBe("POST");
    expect(got?.path).toBe("/hook?x=1");
    expect(got?.body).toBe(body);
    expect(got?.headers["content-type"]).toBe("application/a2a+json");
    expect(got?.headers["x-a2a-notification-token"]).toBe("tok-7");
    expect(got?.headers.authorization).toBe("Bearer cred-42");
  });

  it("uses application/json for v0.3 and leaves out the token and Authorization headers when unset", async () => {
    const { sender, errors } = localSender();
    sender.send(delivery('{"id":"task-1","kind":"task"}', {}, "0.3"));
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received[0]?.headers["content-type"]).toBe("application/json");
    expect(received[0]?.headers).not.toHaveProperty("x-a2a-notification-token");
    expect(received[0]?.headers).not.toHaveProperty("authorization");
  });

  it("refuses, without retrying, credentials that would break the header", async () => {
    const { sender, errors } = localSender();
    const auth = {
      $typeName: "lf.a2a.v1.AuthenticationInfo" as const,
      scheme: "Bearer",
      credentials: "x\r\nX-Evil: 1",
    };
    sender.send(delivery("{}", { authentication: auth }));
    await sender.idle();
    expect(received).toHaveLength(0);
    expect(errors.map((e) => [e.failure, e.attempts])).toEqual([["request-refused", 1]]);
  });
});

describe("retries", () => {
  it("retries 503 twice, then delivers", async () => {
    answer = script(503, 503);
    const { sender, errors } = localSender();
    sender.send(delivery('{"n":1}'));
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received.map((r) => r.body)).toEqual(['{"n":1}', '{"n":1}', '{"n":1}']);
  });

  it("gives up after the last attempt and reports URL, task, config, attempts and status", async () => {
    answer = script(500, 502, 503, 504);
    const { sender, errors } = localSender({ attempts: 3 });
    sender.send(delivery("{}"));
    await sender.idle();
    expect(received).toHaveLength(3);
    expect(errors).toHaveLength(1);
    const [e] = errors;
    expect(e).toMatchObject({ failure: "http-status", status: 503, attempts: 3, taskId: "task-1", configId: "cfg-1" });
    expect(e?.url).toBe(`${base}/hook`);
    expect(e?.message).toContain(
      `push delivery to ${base}/hook for task task-1 (config cfg-1) failed after 3 attempts`,
    );
    expect(e?.message).toContain("HTTP 503");
  });

  it.each([400, 401, 404, 410, 302])("does not retry HTTP %i", async (status) => {
    answer = script([status, { Location: "http://127.0.0.1:1/elsewhere" }]);
    const { sender, errors } = localSender();
    sender.send(delivery("{}"));
    await sender.idle();
    expect(received).toHaveLength(1);
    expect(errors.map((e) => [e.failure, e.status, e.attempts])).toEqual([["http-status", status, 1]]);
    expect(errors[0]?.message).toContain("after 1 attempt:");
  });

  it("shows a webhook's reason phrase without its control characters", async () => {
    // node:http writes no such phrase: the webhook answers on a bare socket.
    const raw = createNetServer((socket) => {
      socket.once("data", () =>
        socket.end("HTTP/1.1 400 \u001b[31mFAKE\u001b[0m \u0007x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
      );
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    try {
      const { sender, errors } = localSender();
      const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/hook`;
      sender.send({ config: config(url), protocolVersion: "1.0", body: "{}" });
      await sender.idle();
      expect(errors.map((e) => e.message.split(": ").pop())).toEqual(["HTTP 400 ?[31mFAKE?[0m ?x"]);
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it("retries 408 and 429", async () => {
    answer = script(408, 429);
    const { sender, errors } = localSender();
    sender.send(delivery("{}"));
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received).toHaveLength(3);
  });

  it("retries an attempt that timed out", async () => {
    let first = true;
    answer = (_req, res) => {
      if (first) hanging.push(res);
      else res.end();
      first = false;
    };
    const { sender, errors } = localSender({ timeoutMs: 200 });
    sender.send(delivery("{}"));
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received).toHaveLength(2);
  });

  it("reports a timeout when no attempt is answered", async () => {
    answer = (_req, res) => void hanging.push(res);
    const { sender, errors } = localSender({ timeoutMs: 100, attempts: 2 });
    sender.send(delivery("{}"));
    await sender.idle();
    expect(received).toHaveLength(2);
    expect(errors.map((e) => [e.failure, e.attempts])).toEqual([["timeout", 2]]);
    expect(errors[0]?.message).toContain("no answer within 100 ms");
  });

  it("retries a refused connection and names the cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { sender, errors } = localSender({ attempts: 2 });
    sender.send({ config: config(`http://127.0.0.1:${port}/hook`), protocolVersion: "1.0", body: "{}" });
    await sender.idle();
    expect(errors.map((e) => [e.failure, e.attempts])).toEqual([["network", 2]]);
    expect(errors[0]?.message).toContain(`http://127.0.0.1:${port}/hook`);
    expect(errors[0]?.message).toContain("ECONNREFUSED");
  });

  // The backoff alone would wait ten minutes, past the test's timeout: only Retry-After lets these pass.
  it.each([
    ["zero seconds", "0", 600_000],
    ["an HTTP date in the past", new Date(0).toUTCString(), 600_000],
    ["an hour, capped by maxRetryAfterMs", "3600", 5],
  ])(
    "honours Retry-After: %s",
    async (_name, value, cap) => {
      answer = script([429, { "Retry-After": value }], [503, { "Retry-After": value }]);
      const { sender, errors } = localSender({
        initialBackoffMs: 600_000,
        maxBackoffMs: 600_000,
        maxRetryAfterMs: cap,
      });
      sender.send(delivery("{}"));
      await sender.idle();
      expect(errors).toEqual([]);
      expect(received).toHaveLength(3);
    },
    20_000,
  );

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("order, queue bound and idle()", () => {
  it("delivers one config's updates in order, a retry holding back the later ones", async () => {
    let failedOnce = false;
    answer = (req, res) => {
      const retry = req.body === "1" && !failedOnce;
      failedOnce ||= retry;
      res.writeHead(retry ? 503 : 200).end();
    };
    const { sender, errors } = localSender();
    for (const n of ["1", "2", "3", "4", "5"]) sender.send(delivery(n));
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received.map((r) => r.body)).toEqual(["1", "1", "2", "3", "4", "5"]);
  });

  it("does not hold one config's deliveries behind another's", async () => {
    const held = gate();
    answer = (req, res) => (req.body === "a" ? held.answer(req, res) : res.end());
    const { sender, errors } = localSender();
    sender.send(delivery("a", { id: "cfg-a" }));
    await held.arrived;
    const bDone = new Promise<void>((resolve) => {
      answer = (req, res) => {
        res.end();
        if (req.body === "b") resolve();
      };
    });
    sender.send(delivery("b", { id: "cfg-b" }));
    await bDone;
    held.release();
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received.map((r) => r.body)).toEqual(["a", "b"]);
  });

  it("drops the oldest waiting delivery when a config's queue overflows, and reports it", async () => {
    const held = gate();
    answer = held.answer;
    const { sender, errors } = localSender({ queueLimit: 2 });
    for (const n of ["1", "2", "3", "4", "5"]) sender.send(delivery(n));
    expect(errors.map((e) => [e.failure, e.attempts])).toEqual([
      ["queue-overflow", 0],
      ["queue-overflow", 0],
    ]);
    expect(errors[0]?.message).toContain(`push delivery to ${base}/hook for task task-1 (config cfg-1) dropped`);
    expect(errors[0]?.message).toContain("queueLimit 2");
    held.release();
    await sender.idle();
    expect(received.map((r) => r.body)).toEqual(["1", "4", "5"]);
    expect(errors).toHaveLength(2);
  });

  it("holds at most maxQueuedBytes of bodies in all, a body shared by several configs counted once", async () => {
    const held = gate();
    answer = held.answer;
    // Each delivery's config (under 100 code units here) counts too.
    const { sender, errors } = localSender(oneHost({ maxQueuedBytes: 10_000 }));
    const shared = "s".repeat(4000);
    for (const id of ["a", "b", "c", "d", "e"]) sender.send(delivery(shared, { id }));
    expect(errors).toEqual([]);
    sender.send(delivery("x".repeat(4000), { id: "f" }));
    sender.send(delivery("y".repeat(4000), { id: "g" }));
    expect(errors.map((e) => [e.failure, e.configId])).toEqual([["queue-overflow", "g"]]);
    expect(errors[0]?.message).toContain("the sender holds maxQueuedBytes (10000) of deliveries");
    held.release();
    await sender.idle();
    expect(received).toHaveLength(6);
    // Released as they ended: the sender takes as much again.
    sender.send(delivery("z".repeat(9000), { id: "h" }));
    await sender.idle();
    expect(errors).toHaveLength(1);
  });

  it("counts each waiting delivery's config in maxQueuedBytes, though the deliveries share their body", async () => {
    // A store may read a fresh copy of a config for every commit: each delivery holds a config of its own.
    answer = script(...Array.from({ length: 40 }, () => [503, { "retry-after": "60" }] as const));
    const { sender, errors } = localSender({
      ...oneHost({ maxQueuedBytes: 100_000 }),
      attempts: 2,
      maxRetryAfterMs: 60_000,
    });
    const long = (c: string) => c.repeat(4096);
    const authentication = {
      $typeName: "lf.a2a.v1.AuthenticationInfo",
      scheme: "Bearer",
      credentials: long("c"),
    } as const;
    const bulky = () => ({ id: "big", token: long("t"), authentication: { ...authentication } });
    for (let i = 0; i < 20; i++) sender.send(delivery("e", bulky()));
    // Over 8 KiB per delivery: twelve fit in 100 000, the other eight are dropped.
    expect(errors.map((e) => e.failure)).toEqual(Array(8).fill("queue-overflow"));
    await sender.close?.();
  });

  it("has at most maxConcurrent attempts in flight over all configs", async () => {
    const held = countedGate();
    answer = held.answer;
    const { sender, errors } = localSender(oneHost({ maxConcurrent: 3 }));
    for (let i = 0; i < 8; i++) sender.send(delivery(String(i), { id: `cfg-${i}` }));
    await vi.waitFor(() => expect(received).toHaveLength(3));
    // The others wait for a turn: none more arrives while the three are held.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toHaveLength(3);
    held.release();
    await sender.idle();
    expect([received.length, held.peak(), errors]).toEqual([8, 3, []]);
  });

  it("keeps an attempt's turn until its connection closes: no more than maxConcurrent connections", async () => {
    // Each answer is 200 at once, then a body that never ends: the attempt is delivered, and its connection
    // stays until the attempt's timeout.
    let open = 0;
    let peak = 0;
    answer = (_req, res) => {
      open += 1;
      peak = Math.max(peak, open);
      res.on("close", () => (open -= 1));
      res.writeHead(200).write(".");
      hanging.push(res);
    };
    const { sender, errors } = localSender({ ...oneHost({ maxConcurrent: 3 }), timeoutMs: 300 });
    for (let i = 0; i < 8; i++) sender.send(delivery(String(i), { id: `cfg-${i}` }));
    await sender.idle();
    expect([received.length, peak, errors]).toEqual([8, 3, []]);
  });

  it("leaves other hosts their turns: at most maxConcurrentPerHost attempts to one host", async () => {
    // The shared receiver (one host) holds its answers; a second receiver on another port is another host.
    const held = countedGate();
    answer = held.answer;
    const other = await otherReceiver();
    const { sender, errors } = localSender({ maxConcurrent: 4, maxConcurrentPerHost: 2 });
    for (let i = 0; i < 6; i++) sender.send(delivery(String(i), { id: `slow-${i}` }));
    await vi.waitFor(() => expect(received).toHaveLength(2));
    for (let i = 0; i < 3; i++) sender.send({ ...delivery(`o${i}`, { id: `other-${i}` }), config: other.config(i) });
    // The other host's three are delivered while the first host's attempts are still held.
    await vi.waitFor(() => expect(other.bodies).toHaveLength(3));
    expect(received).toHaveLength(2);
    held.release();
    await sender.idle();
    expect([received.length, held.peak(), errors]).toEqual([6, 2, []]);
    await other.close();
  });

  it("shares the turns in all by owner: a backlog on other hosts delays another owner by one attempt", async () => {
    const held = gate();
    answer = held.answer;
    const { sender, errors } = localSender({
      allowHosts: [],
      allowPrivateNetworks: true,
      maxConcurrent: 1,
      maxConcurrentPerHost: 8,
    });
    // alice's five hold turns of her host (127.0.0.1) and wait for the one turn in all; bob's host is another.
    for (let i = 0; i < 5; i++) sender.send({ ...delivery(`alice-${i}`, { id: `a${i}` }), owner: "alice" });
    await held.arrived;
    const bobs = config(`http://localhost:${new URL(base).port}/hook`, { id: "b" });
    sender.send({ config: bobs, protocolVersion: "1.0", body: "bob", owner: "bob" });
    held.release();
    await sender.idle();
    expect(errors).toEqual([]);
    // alice was waiting first: one more of hers, then bob's, not her whole backlog.
    expect(received.map((r) => r.body)).toEqual(["alice-0", "alice-1", "bob", "alice-2", "alice-3", "alice-4"]);
  });

  it("shares a host's turns by owner: many attempts to a host others use too delay them by one", async () => {
    const held = gate();
    answer = held.answer;
    const { sender, errors } = localSender(oneHost({ maxConcurrent: 1 }));
    for (let i = 0; i < 5; i++) sender.send({ ...delivery(`alice-${i}`, { id: `a${i}` }), owner: "alice" });
    await held.arrived;
    sender.send({ ...delivery("bob", { id: "b" }), owner: "bob" });
    sender.send({ ...delivery("anonymous", { id: "n" }) }); // owner "": one owner more in the round
    held.release();
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received.map((r) => r.body)).toEqual([
      "alice-0",
      "alice-1",
      "bob",
      "anonymous",
      "alice-2",
      "alice-3",
      "alice-4",
    ]);
  });

  it("lets an attempt holding a host's turn others wait for go first among its owner's waits in all", async () => {
    // alice's attempt to the shared host holds its only turn while it waits for the one turn in all behind her
    // backlog on eight other hosts; bob waits for the shared host. It goes first among hers, so bob waits for a
    // few attempts of hers (that one, then one while he waits for the turn in all), not for her whole backlog.
    const held = gate();
    answer = held.answer;
    const hosts = await moreHosts(9);
    const [shared, ...others] = hosts.urls;
    const { sender, errors } = localSender({ maxConcurrent: 1, maxConcurrentPerHost: 1 });
    const send = sendAs(sender);
    send("alice-0", `${base}/hook`, "alice");
    await held.arrived;
    for (const [i, url] of others.entries()) send(`alice-${i + 1}`, url, "alice");
    send("alice-shared", shared, "alice");
    send("bob-shared", shared, "bob");
    const order = await releasedOrder(held, sender, errors);
    // Once alice-shared's attempt ends, its turn in all goes to alice-1 before bob, who then has the host's
    // turn, asks for one in all: alice was first in the round, so alice-2 goes before him too.
    expect(order.slice(0, 5)).toEqual(["alice-0", "alice-shared", "alice-1", "alice-2", "bob-shared"]);
    expect(order).toHaveLength(11);
    await hosts.close();
  });

  it("keeps the turn holder others wait for ahead of holders moved up after it, however long the backlog", async () => {
    // As above, but alice's backlog has five attempts on each of two more hosts: each of those hosts' turn holders
    // is moved up too (alice's own next attempts wait for them). They go after alice-shared, moved up first, so
    // bob still waits for a few of her attempts, not for the whole backlog.
    const held = gate();
    answer = held.answer;
    const hosts = await moreHosts(3);
    const [shared, y, z] = hosts.urls;
    const { sender, errors } = localSender({ maxConcurrent: 1, maxConcurrentPerHost: 1 });
    const send = sendAs(sender);
    send("alice-0", `${base}/hook`, "alice");
    await held.arrived;
    send("alice-shared", shared, "alice");
    send("bob-shared", shared, "bob");
    for (let i = 0; i < 5; i++) {
      send(`alice-y${i}`, y, "alice");
      send(`alice-z${i}`, z, "alice");
    }
    const order = await releasedOrder(held, sender, errors);
    expect(order.slice(0, 5)).toEqual(["alice-0", "alice-shared", "alice-y0", "alice-z0", "bob-shared"]);
    expect(order).toHaveLength(13);
    await hosts.close();
  });

  it("holds at most maxQueuedBytesPerHost for one host, leaving the rest of maxQueuedBytes to others", async () => {
    const held = gate();
    answer = held.answer;
    const other = await otherReceiver();
    const { sender, errors } = localSender({ maxQueuedBytes: 100_000, maxQueuedBytesPerHost: 30_000 });
    for (let i = 0; i < 10; i++) sender.send(delivery(String(i).repeat(10_000), { id: `slow-${i}` }));
    // Two fit in 30 000 with their configs; the other eight are dropped, naming the limit and the host.
    expect(errors.map((e) => e.configId)).toEqual(Array.from({ length: 8 }, (_, i) => `slow-${i + 2}`));
    expect(errors[0]?.message).toContain(`maxQueuedBytesPerHost (30000) of deliveries to ${new URL(base).host}`);
    for (let i = 0; i < 3; i++) {
      sender.send({ ...delivery(`o${i}`.repeat(4_000), { id: `other-${i}` }), config: other.config(i) });
    }
    await vi.waitFor(() => expect(other.bodies).toHaveLength(3));
    held.release();
    await sender.idle();
    expect([received.length, errors.length]).toEqual([2, 8]);
    await other.close();
  });

  it("reports a delivery canceled while it waits for its host's turn at once, and frees its bytes", async () => {
    const held = gate();
    answer = held.answer;
    const { sender, errors } = localSender({ maxConcurrentPerHost: 1, maxQueuedBytesPerHost: 30_000 });
    sender.send(delivery("first", { id: "busy" }));
    await held.arrived;
    sender.send(delivery("x".repeat(20_000), { id: "waits" }));
    sender.cancel?.("", "task-1", "waits");
    await vi.waitFor(() => expect(errors.map((e) => [e.configId, e.failure])).toEqual([["waits", "config-deleted"]]));
    // Its 20 000 are given back: another as large fits in the host's 30 000 beside the one in flight.
    sender.send(delivery("y".repeat(20_000), { id: "next" }));
    expect(errors).toHaveLength(1);
    held.release();
    await sender.idle();
    expect(received.map((r) => r.body.length)).toEqual([5, 20_000]);
  });

  it("ends a delivery whose config is deleted during its retry pause without waiting for a turn", async () => {
    const held = gate();
    let first = true;
    answer = (req, res) => {
      if (req.body !== "retried") return held.answer(req, res);
      if (first) res.writeHead(503).end();
      first = false;
      return res.end();
    };
    const { sender, errors } = localSender({ maxConcurrentPerHost: 1, initialBackoffMs: 2_000, maxBackoffMs: 2_000 });
    sender.send(delivery("retried", { id: "pausing" }));
    await vi.waitFor(() => expect(received).toHaveLength(1));
    // While it pauses, another config takes the host's one turn and keeps it.
    sender.send(delivery("holds", { id: "busy" }));
    await held.arrived;
    sender.cancel?.("", "task-1", "pausing");
    await vi.waitFor(() => expect(errors.map((e) => [e.configId, e.failure])).toEqual([["pausing", "config-deleted"]]));
    held.release();
    await sender.idle();
    expect(received.map((r) => r.body)).toEqual(["retried", "holds"]);
  });

  it("holds at most maxQueuedBytesPerOwner for one owner's tasks, never naming the owner", async () => {
    const held = gate();
    answer = held.answer;
    const other = await otherReceiver();
    const { sender, errors } = localSender({ ...oneHost({ maxQueuedBytes: 100_000 }), maxQueuedBytesPerOwner: 30_000 });
    for (let i = 0; i < 10; i++) {
      sender.send({ ...delivery(String(i).repeat(10_000), { id: `slow-${i}` }), owner: "alice@example.com" });
    }
    expect(errors.map((e) => e.configId)).toEqual(Array.from({ length: 8 }, (_, i) => `slow-${i + 2}`));
    expect(errors[0]?.message).toContain("maxQueuedBytesPerOwner (30000) of deliveries for one task owner");
    expect(errors.some((e) => e.message.includes("alice"))).toBe(false);
    // Owner "" has no share of its own: its deliveries are bounded by the limits in all and per host.
    for (let i = 0; i < 3; i++) {
      const config = other.config(i);
      sender.send({ config, protocolVersion: "1.0", body: `o${i}`.repeat(4_000), owner: i === 0 ? "bob" : "" });
    }
    await vi.waitFor(() => expect(other.bodies).toHaveLength(3));
    held.release();
    await sender.idle();
    expect([received.length, errors.length]).toEqual([2, 8]);
    await other.close();
  });

  it("resolves idle() only once the answered attempts' connections are closed", async () => {
    answer = (_req, res) => {
      res.writeHead(200).write(".");
      hanging.push(res);
    };
    const { sender } = localSender({ timeoutMs: 60_000 });
    for (let i = 0; i < 3; i++) sender.send(delivery(String(i), { id: `cfg-${i}` }));
    let idle = false;
    const idled = sender.idle().then(() => (idle = true));
    await vi.waitFor(() => expect(received).toHaveLength(3));
    // All three are delivered; their answers' bodies have not ended, so their connections are open.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(idle).toBe(false);
    for (const res of hanging) res.end();
    await idled;
  });

  it("cancel() ends a retry wait at once, and a delivery waiting for its turn is never sent", async () => {
    const held = gate();
    answer = (req, res) =>
      req.body === "x" ? held.answer(req, res) : res.writeHead(503, { "retry-after": "60" }).end();
    const { sender, errors } = localSender({ maxConcurrent: 1, attempts: 3, maxRetryAfterMs: 60_000 });
    const ends: string[] = [];
    const traced = (body: string, id: string): PushDelivery => ({ ...delivery(body, { id }), trace: endsTo(ends, id) });
    sender.send(traced("a", "cfg-a"));
    // cfg-a's first attempt is answered 503 with Retry-After 60: it now waits a minute.
    await vi.waitFor(() => expect(received.map((r) => r.body)).toEqual(["a"]));
    sender.send(traced("x", "cfg-x"));
    await held.arrived;
    // cfg-x holds the only turn; cfg-b's delivery waits for it.
    sender.send(traced("b", "cfg-b"));
    sender.cancel?.("", "task-1", "cfg-a");
    sender.cancel?.("", "task-1", "cfg-b");
    held.release();
    await sender.idle();
    expect(received.map((r) => r.body)).toEqual(["a", "x"]);
    expect(errors.map((e) => [e.configId, e.failure, e.attempts]).sort()).toEqual([
      ["cfg-a", "config-deleted", 1],
      ["cfg-b", "config-deleted", 0],
    ]);
    // Its trace reads as its report does: cfg-b was never sent, so it is dropped like a delivery dropped unsent
    // from its queue, not failed.
    expect(ends.sort()).toEqual(["cfg-a failed", "cfg-b dropped", "cfg-x delivered"]);
  });

  it("counts a 2xx whose body trickles as delivered, once: the status decides, not the body's end", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      // A byte every 50 ms, for longer than the attempt's timeout, until the sender leaves.
      const trickle = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(trickle));
      setTimeout(() => {
        clearInterval(trickle);
        res.end();
      }, 2000);
    };
    const { sender, errors } = localSender({ timeoutMs: 300 });
    sender.send(delivery("slow", { id: "cfg-slow" }));
    await sender.idle();
    expect([errors.map((e) => e.message), received.map((r) => r.body)]).toEqual([[], ["slow"]]);
  });

  it("cancel() during an attempt that is then refused ends the delivery without waiting to retry", async () => {
    const held = gate();
    answer = async (req, res) => {
      await held.answer(req, { end: () => res.writeHead(503, { "retry-after": "60" }).end() } as never);
    };
    const { sender, errors } = localSender({ attempts: 3, maxRetryAfterMs: 60_000 });
    sender.send(delivery("a", { id: "cfg-a" }));
    await held.arrived;
    sender.cancel?.("", "task-1", "cfg-a");
    held.release();
    // Without the check, idle() came after the minute Retry-After asks for (past the test's timeout).
    await sender.idle();
    expect(errors.map((e) => [e.configId, e.failure, e.attempts])).toEqual([["cfg-a", "config-deleted", 1]]);
  }, 20_000);

  it("cancel() drops what waits for a config and retries it no more", async () => {
    const held = gate();
    answer = (req, res) => (req.body === "1" ? held.answer(req, res) : res.writeHead(503).end());
    const { sender, errors } = localSender({ attempts: 5 });
    for (const n of ["1", "2", "3"]) sender.send(delivery(n));
    sender.send(delivery("other", { id: "cfg-2" }));
    await held.arrived;
    sender.cancel?.("", "task-1", "cfg-1");
    held.release();
    await sender.idle();
    // cfg-1: "1" was in flight and delivered, "2" and "3" dropped; cfg-2 failed 5 times on its own.
    expect(received.filter((r) => r.body !== "other").map((r) => r.body)).toEqual(["1"]);
    const dropped = errors.filter((e) => e.configId === "cfg-1").map((e) => e.message.replace(/.*: /, ""));
    expect(dropped).toEqual(["its config was deleted", "its config was deleted"]);
  });

  it("close() ends retry waits, drops what waits or comes later, waits for the attempt in flight", async () => {
    const held = gate();
    answer = (req, res) =>
      req.body === "x" ? held.answer(req, res) : res.writeHead(503, { "retry-after": "60" }).end();
    const { sender, errors } = localSender({ attempts: 3, maxRetryAfterMs: 60_000 });
    sender.send(delivery("a", { id: "cfg-a" }));
    // cfg-a's first attempt is answered 503 with Retry-After 60: it now waits a minute.
    await vi.waitFor(() => expect(received.map((r) => r.body)).toEqual(["a"]));
    sender.send(delivery("x", { id: "cfg-x" }));
    await held.arrived;
    sender.send(delivery("x2", { id: "cfg-x" }));
    let closed = false;
    const closing = sender.close?.().then(() => {
      closed = true;
    });
    sender.send(delivery("late", { id: "cfg-late" }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The attempt in flight is not cut off: close() waits for it.
    expect(closed).toBe(false);
    held.release();
    await closing;
    expect(received.map((r) => r.body)).toEqual(["a", "x"]);
    expect(errors.map((e) => [e.configId, e.failure, e.attempts, e.message.replace(/.*: /, "")]).sort()).toEqual([
      ["cfg-a", "sender-closed", 1, "the sender was closed"],
      ["cfg-late", "sender-closed", 0, "the sender was closed"],
      ["cfg-x", "sender-closed", 0, "the sender was closed"],
    ]);
  });

  it("close() leaves no timer behind: a process whose delivery waits a minute to retry ends by itself", () => {
    const program = `
      import { createServer } from "node:http";
      import { createPushSender } from "@protoc-gen-a2a/runtime/task";
      let arrived;
      const first = new Promise((resolve) => (arrived = resolve));
      const webhook = createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          res.writeHead(503, { "retry-after": "60" }).end();
          webhook.close();
          arrived();
        });
      });
      await new Promise((resolve) => webhook.listen(0, "127.0.0.1", resolve));
      const url = "http://127.0.0.1:" + webhook.address().port + "/hook";
      const sender = createPushSender({ allowHosts: ["127.0.0.1"], maxRetryAfterMs: 60000, onError: (e) => {
        process.stdout.write(e.failure + "\\n");
      } });
      const config = { tenant: "", id: "c", taskId: "t", url, token: "" };
      sender.send({ config, protocolVersion: "1.0", body: "{}" });
      await first;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await sender.close();
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", program], {
      encoding: "utf8",
      timeout: 20_000,
    });
    // Without close(), the retry's timer kept the process running for the minute (past the 20 s timeout).
    expect([run.status, run.signal, run.stderr, run.stdout]).toEqual([0, null, "", "sender-closed\n"]);
  }, 30_000);

  it("resolves idle() at once when nothing is open, and only after the last delivery ended", async () => {
    const held = gate();
    answer = held.answer;
    const { sender } = localSender();
    await sender.idle();
    sender.send(delivery("1"));
    let idle = false;
    const waiting = sender.idle().then(() => {
      idle = true;
    });
    await held.arrived;
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    held.release();
    await waiting;
    expect(idle).toBe(true);
    expect(received).toHaveLength(1);
  });

  it("survives an onError that throws", async () => {
    answer = script(400, 200);
    const sender = createPushSender({
      allowHosts: ["127.0.0.1"],
      onError: () => {
        throw new Error("broken handler");
      },
    });
    sender.send(delivery("1"));
    sender.send(delivery("2"));
    await sender.idle();
    expect(received.map((r) => r.body)).toEqual(["1", "2"]);
  });

  it("refuses options out of range, naming the option", () => {
    expect(() => createPushSender({ attempts: 0 })).toThrow(/option attempts must be an integer >= 1; got 0/);
    expect(() => createPushSender({ queueLimit: 1.5 })).toThrow(/option queueLimit/);
    expect(() => createPushSender({ timeoutMs: Number.NaN })).toThrow(/option timeoutMs/);
    expect(() => createPushSender({ maxConcurrent: 0 })).toThrow(/option maxConcurrent must be an integer >= 1/);
    expect(() => createPushSender({ maxQueuedBytes: 0.5 })).toThrow(/option maxQueuedBytes/);
    expect(() => createPushSender({ maxConcurrentPerHost: 0 })).toThrow(/option maxConcurrentPerHost must be/);
    expect(() => createPushSender({ maxQueuedBytesPerOwner: 1.5 })).toThrow(/option maxQueuedBytesPerOwner/);
  });

  it("makes a limit per host or owner a quarter of the limit in all unless given, at least 1", () => {
    const perHost = (o: PushSenderOptions) => {
      const { maxConcurrentPerHost, maxQueuedBytesPerHost, maxQueuedBytesPerOwner } = readRetrySettings(o);
      expect(maxQueuedBytesPerOwner).toBe(o.maxQueuedBytesPerOwner ?? maxQueuedBytesPerHost);
      return [maxConcurrentPerHost, maxQueuedBytesPerHost];
    };
    expect(perHost({})).toEqual([16, 16 * 1024 * 1024]);
    expect(perHost({ maxConcurrent: 8, maxQueuedBytes: 1000 })).toEqual([2, 250]);
    expect(perHost({ maxConcurrent: 1, maxQueuedBytes: 3 })).toEqual([1, 1]);
    expect(perHost({ maxConcurrent: 8, maxConcurrentPerHost: 8 })).toEqual([8, 16 * 1024 * 1024]);
    expect(() => createPushSender({ maxQueuedBytesPerHost: Number.POSITIVE_INFINITY })).toThrow(
      /option maxQueuedBytesPerHost/,
    );
  });
});

describe("webhookHost", () => {
  it.each([
    ["https://Hooks.Example/a?b=1", "hooks.example"],
    ["https://hooks.example:443/a", "hooks.example"],
    ["https://hooks.example./a", "hooks.example"],
    ["http://hooks.example.:8080/a", "hooks.example:8080"],
    ["http://user:pw@[::1]:81/", "[::1]:81"],
    ["http://127.0.0.1:9/", "127.0.0.1:9"],
    ["not a url", "not a url"],
  ])("%s is host %s", (url, host) => {
    expect(webhookHost(url)).toBe(host);
  });
});

/** Expects checkUrl to refuse the URL with InvalidParamsError naming it and the reason. */
async function expectRefused(sender: PushSender, url: string, reason: string): Promise<A2AError> {
  const error = await sender.checkUrl(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, url).toBeInstanceOf(A2AError);
  const a2a = error as A2AError;
  expect(a2a.type).toBe("InvalidParamsError");
  expect(a2a.message, url).toContain("push notification URL ");
  expect(a2a.message, url).toContain(reason);
  return a2a;
}

describe("URL screening", () => {
  const strict = createPushSender();

  it.each([
    ["ftp://example.com/hook", "scheme ftp: is not http: or https:"],
    ["file:///etc/passwd", "scheme file:"],
    ["javascript:alert(1)", "scheme javascript:"],
    ["not a url", "not an absolute URL"],
    ["/relative/hook", "not an absolute URL"],
    ["http://user:secret@example.com/", "credentials in the URL"],
    ["http://user@example.com/", "credentials in the URL"],
    ["http://127.0.0.1/", "loopback address"],
    ["http://127.1.2.3:8080/x", "loopback address"],
    ["http://2130706433/", "loopback address"],
    ["http://0x7f000001/", "loopback address"],
    ["http://0177.0.0.1/", "loopback address"],
    ["http://127.1/", "loopback address"],
    ["http://[::1]/", "loopback address"],
    ["http://[0:0:0:0:0:0:0:1]/", "loopback address"],
    ["http://10.1.2.3/", "private address"],
    ["http://172.16.0.1/", "private address"],
    ["http://172.31.255.255/", "private address"],
    ["http://192.168.1.1/", "private address"],
    ["http://169.254.1.1/", "link-local address"],
    ["http://169.254.169.254/latest/meta-data/", "cloud metadata address"],
    ["http://[fd00:ec2::254]/", "cloud metadata address"],
    ["http://metadata.google.internal/computeMetadata/v1/", "cloud metadata name"],
    ["http://METADATA.GOOGLE.INTERNAL./", "cloud metadata name"],
    ["http://0.0.0.0/", "unspecified address"],
    ["http://0/", "unspecified address"],
    ["http://[::]/", "unspecified address"],
    ["http://[::ffff:127.0.0.1]/", "IPv4-mapped loopback address"],
    ["http://[::ffff:7f00:1]/", "IPv4-mapped loopback address"],
    ["http://[::ffff:169.254.169.254]/", "IPv4-mapped cloud metadata address"],
    ["http://[::ffff:10.0.0.1]/", "IPv4-mapped private address"],
    ["http://[0:0:0:0:0:ffff:192.168.0.1]/", "IPv4-mapped private address"],
    ["http://[::ffff:0:127.0.0.1]/", "IPv4-translated loopback address"],
    ["http://[::127.0.0.1]/", "IPv4-compatible"],
    ["http://[64:ff9b::127.0.0.1]/", "NAT64 loopback address"],
    ["http://[2002:a9fe:a9fe::]/", "6to4 cloud metadata address"],
    ["http://[fc00::1]/", "unique local (private) address"],
    ["http://[fd12:3456::1]/", "unique local (private) address"],
    ["http://[fe80::1]/", "link-local address"],
    ["http://[febf:ffff::1]/", "link-local address"],
    ["http://[fec0::1]/", "site-local (private) address"],
    ["http://100.64.0.1/", "shared address space (CGNAT) address"],
    ["http://100.127.255.255/", "shared address space (CGNAT) address"],
    ["http://224.0.0.1/", "multicast address"],
    ["http://239.255.255.250/", "multicast address"],
    ["http://255.255.255.255/", "broadcast address"],
    ["http://[ff02::1]/", "multicast address"],
    ["http://localhost/", "loopback name"],
    ["http://LOCALHOST:8080/", "loopback name"],
    ["http://localhost./", "loopback name"],
    ["http://hooks.localhost/", "loopback name"],
    ["http://localhost../", "loopback name"],
    ["http://metadata.google.internal../", "cloud metadata name"],
    ["http://192.0.0.8/", "IETF protocol assignments address"],
    ["http://198.18.0.1/", "benchmarking address"],
    ["http://198.19.255.255/", "benchmarking address"],
    ["http://[100::1]/", "discard-only address"],
    ["http://[2001::1]/", "Teredo address"],
    ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo address"],
  ])("refuses %s (%s)", async (url, reason) => {
    const error = await expectRefused(strict, url, reason);
    // A URL with credentials is shown with them REDACTED (the test below).
    if (!url.includes("@")) expect(error.message).toContain(url.startsWith("http") ? new URL(url).href : url);
  });

  it("shows no part of a refused text that does not parse, where credentials or a query could be", async () => {
    const error = await expectRefused(strict, "https://user:s3cret@hooks example/x?token=s3cret#a", "absolute URL");
    expect(error.message).not.toMatch(/user|s3cret/);
    expect(error.message).toContain("(not a URL: 50 characters)");
    // Another scheme parses, with the credentials in its path.
    const blob = await expectRefused(strict, "blob:https://user:s3cret@example.com/h", "scheme blob:");
    expect(blob.message).not.toMatch(/user|s3cret/);
  });

  it("never echoes credentials or query values in the refusal", async () => {
    const error = await expectRefused(strict, "https://user:secret@example.com/hook?sig=s1&k=s2#t=s3", "credentials");
    expect(error.message).not.toMatch(/user|secret|s1|s2|s3/);
    expect(error.message).toContain("https://REDACTED:REDACTED@example.com/hook?sig=REDACTED&k=REDACTED#REDACTED");
  });

  it("hides a query part without a name, which may be the secret itself", async () => {
    const error = await expectRefused(strict, "https://u:p@example.com/hook?s3cret&sig=s1&&x%20y=", "credentials");
    expect(error.message).not.toMatch(/s3cret|s1/);
    expect(error.message).toContain("https://REDACTED:REDACTED@example.com/hook?REDACTED&sig=REDACTED&&x%20y=REDACTED");
  });

  it.each([
    "https://93.184.215.14/hook",
    "http://8.8.8.8:8080/a?b=c",
    "https://[2606:4700:4700::1111]/",
    "http://[::ffff:8.8.8.8]/",
    "http://172.15.255.255/",
    "http://172.32.0.1/",
    "http://100.63.255.255/",
    "http://100.128.0.1/",
    "http://169.255.0.1/",
    "http://11.0.0.1/",
    "http://[2001:db9::1]/",
  ])("accepts %s", async (url) => {
    await expect(strict.checkUrl(url)).resolves.toBeUndefined();
  });

  it("resolves a host name: localhost by DNS is loopback too when the name rule is lifted", async () => {
    // allowPrivateNetworks lifts the loopback name rule, so "localhost" is judged by its addresses.
    const lifted = createPushSender({ allowPrivateNetworks: true });
    await expect(lifted.checkUrl("http://localhost:9/")).resolves.toBeUndefined();
    const onlyHost = createPushSender({ allowHosts: ["127.0.0.1"] });
    await expectRefused(onlyHost, "http://localhost:9/", "loopback name");
  });

  it("lifts private ranges with allowPrivateNetworks, never metadata, unspecified or multicast", async () => {
    const lan = createPushSender({ allowPrivateNetworks: true });
    for (const url of [
      "http://127.0.0.1/",
      "http://10.0.0.1/",
      "http://[::1]/",
      "http://[fd12::1]/",
      "http://100.64.0.1/",
    ]) {
      await expect(lan.checkUrl(url), url).resolves.toBeUndefined();
    }
    await expectRefused(lan, "http://169.254.169.254/", "cloud metadata address");
    await expectRefused(lan, "http://[::ffff:169.254.169.254]/", "IPv4-mapped cloud metadata");
    await expectRefused(lan, "http://metadata.google.internal/", "cloud metadata name");
    await expectRefused(lan, "http://0.0.0.0/", "unspecified address");
    await expectRefused(lan, "http://224.0.0.1/", "multicast address");
    await expectRefused(lan, "ftp://10.0.0.1/", "scheme ftp:");
  });

  it("exempts exactly the hosts in allowHosts", async () => {
    const some = createPushSender({ allowHosts: ["127.0.0.1", "[::1]", "LocalHost", "0:0:0:0:0:ffff:a00:1"] });
    for (const url of ["http://127.0.0.1:8/", "http://[::1]/", "http://localhost/", "http://[::ffff:10.0.0.1]/"]) {
      await expect(some.checkUrl(url), url).resolves.toBeUndefined();
    }
    await expectRefused(some, "http://127.0.0.2/", "loopback address");
    await expectRefused(some, "http://10.0.0.1/", "private address");
    await expectRefused(some, "http://a:b@127.0.0.1/", "credentials");
  });

  it("screens again at delivery: a refused URL is reported once, never requested", async () => {
    const errors: PushDeliveryError[] = [];
    const sender = createPushSender({ onError: (e) => errors.push(e), initialBackoffMs: 1 });
    sender.send(delivery("{}"));
    await sender.idle();
    expect(received).toHaveLength(0);
    expect(errors.map((e) => [e.failure, e.attempts])).toEqual([["url-refused", 1]]);
    expect(errors[0]?.message).toContain("loopback address");
  });

  it("delivers to a host name through the screened addresses (allowPrivateNetworks, localhost)", async () => {
    const { sender, errors } = localSender({ allowHosts: [], allowPrivateNetworks: true });
    const port = new URL(base).port;
    sender.send({ config: config(`http://localhost:${port}/named`), protocolVersion: "1.0", body: "{}" });
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received.map((r) => [r.path, r.headers.host])).toEqual([["/named", `localhost:${port}`]]);
  });

  it("pins a request to the screened address instead of asking DNS again", async () => {
    const port = Number(new URL(base).port);
    const lookup = pinnedLookup([{ address: "127.0.0.1", family: 4 }]);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ hostname: "pinned.invalid", port, path: "/pinned", method: "POST", lookup, agent: false });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(received.map((r) => r.path)).toEqual(["/pinned"]);
  });

  it("fails a request whose pinned address cannot be connected to at once, without crashing", async () => {
    // Linux refuses a link-local address without a zone in connect() itself (EINVAL), as it refuses an address
    // it has no route to (ENETUNREACH): under Node 20 the error comes while node:net connects in the lookup's
    // callback (Node 22 leaves the connection pending instead: the request's timeout ends it, bounded).
    const lookup = pinnedLookup([{ address: "fe80::1", family: 6 }]);
    const failed = await new Promise<Error>((resolve) => {
      const req = request({ hostname: "pinned.invalid", port: 9, path: "/", method: "POST", lookup, agent: false });
      // A timer of the test's own: node:http's timeout option would listen on the socket early, hiding the crash.
      const timer = setTimeout(() => req.destroy(new Error("not connected within 2 s")), 2000);
      req.on("close", () => clearTimeout(timer));
      req.on("error", resolve);
      req.on("response", (res) => resolve(new Error(`answered ${res.statusCode}`)));
      req.end();
    });
    expect(failed.message).not.toMatch(/^answered/);
  });
});

describe("a host that does not resolve", () => {
  it("is accepted when the config is created; delivery retries it, then reports it", async () => {
    // .invalid never resolves (RFC 6761 §6.4), with or without DNS on the machine.
    const url = "http://no-such-host.invalid/hook";
    const errors: PushDeliveryError[] = [];
    const sender = createPushSender({ attempts: 2, initialBackoffMs: 1, onError: (e) => errors.push(e) });
    await expect(sender.checkUrl(url)).resolves.toBeUndefined();
    sender.send({ config: config(url), protocolVersion: "1.0", body: "{}" });
    await sender.idle();
    expect(errors.map((e) => [e.failure, e.attempts])).toEqual([["network", 2]]);
    expect(errors[0]?.message).toContain("host no-such-host.invalid did not resolve");
  });

  it("is still refused for what the URL says without DNS (scheme, credentials, reserved names)", async () => {
    const sender = createPushSender();
    await expectRefused(sender, "ftp://no-such-host.invalid/", "scheme ftp:");
    await expectRefused(sender, "http://u:p@no-such-host.invalid/", "credentials");
    await expectRefused(sender, "http://hooks.localhost/", "loopback name");
  });
});

describe("allowNetworks", () => {
  it("delivers to 127.0.0.1 when its network or host is allowed, refuses it when not", async () => {
    const deliveredWith = async (options: PushSenderOptions) => {
      const { sender, errors } = localSender({ allowHosts: [], ...options });
      received = [];
      sender.send(delivery("{}"));
      await sender.idle();
      return [received.length, errors.map((e) => e.failure)];
    };
    expect(await deliveredWith({ allowNetworks: ["127.0.0.0/8"] })).toEqual([1, []]);
    expect(await deliveredWith({ allowNetworks: ["127.0.0.1/32"] })).toEqual([1, []]);
    expect(await deliveredWith({ allowNetworks: ["127.0.0.1"] })).toEqual([1, []]);
    expect(await deliveredWith({ allowNetworks: ["::ffff:127.0.0.0/104"] })).toEqual([1, []]);
    expect(await deliveredWith({ allowHosts: ["127.0.0.1"] })).toEqual([1, []]);
    expect(await deliveredWith({})).toEqual([0, ["url-refused"]]);
    expect(await deliveredWith({ allowNetworks: ["127.0.0.2/32", "10.0.0.0/8"] })).toEqual([0, ["url-refused"]]);
    expect(await deliveredWith({ allowHosts: ["127.0.0.2"] })).toEqual([0, ["url-refused"]]);
  });

  it("judges a host name by the addresses it resolves to, and delivers to them", async () => {
    // localhost resolves to 127.0.0.1, and on some machines ::1 too: both networks are listed.
    const { sender, errors } = localSender({ allowHosts: [], allowNetworks: ["127.0.0.0/8", "::1/128"] });
    const port = new URL(base).port;
    sender.send({ config: config(`http://localhost:${port}/by-name`), protocolVersion: "1.0", body: "{}" });
    await sender.idle();
    expect(errors).toEqual([]);
    expect(received.map((r) => r.path)).toEqual(["/by-name"]);
    const elsewhere = createPushSender({ allowNetworks: ["10.0.0.0/8"] });
    await expectRefused(elsewhere, `http://localhost:${port}/`, "loopback address (localhost resolves to ");
    await expectRefused(createPushSender(), `http://localhost:${port}/`, "loopback name");
  });

  it("lifts every range inside a listed network, IPv4 and IPv6, including embedded IPv4 forms", async () => {
    const sender = createPushSender({ allowNetworks: ["10.0.0.0/8", "fd00::/8", "192.168.1.0/24"] });
    for (const url of [
      "http://10.1.2.3/",
      "http://[::ffff:10.0.0.1]/",
      "http://[64:ff9b::10.0.0.1]/",
      "http://[fd12:3456::1]/",
      "http://192.168.1.200/",
      "http://8.8.8.8/",
    ]) {
      await expect(sender.checkUrl(url), url).resolves.toBeUndefined();
    }
    await expectRefused(sender, "http://192.168.2.1/", "private address");
    await expectRefused(sender, "http://[fc00::1]/", "unique local (private) address");
    await expectRefused(sender, "http://127.0.0.1/", "loopback address");
    await expectRefused(sender, "http://[::1]/", "loopback address");
  });

  it("lets a cloud metadata address through only when it is listed exactly", async () => {
    const broad = createPushSender({ allowNetworks: ["169.254.0.0/16", "0.0.0.0/0", "::/0"] });
    await expect(broad.checkUrl("http://169.254.1.1/")).resolves.toBeUndefined();
    await expectRefused(broad, "http://169.254.169.254/", "cloud metadata address");
    await expectRefused(broad, "http://[::ffff:169.254.169.254]/", "IPv4-mapped cloud metadata address");
    await expectRefused(broad, "http://[fd00:ec2::254]/", "cloud metadata address");
    // The EKS Pod Identity Agent, in a range allowed as link-local and as unique local.
    const agent = createPushSender({ allowPrivateNetworks: true });
    await expectRefused(agent, "http://169.254.170.23/v1/credentials", "cloud metadata address");
    await expectRefused(agent, "http://[fd00:ec2::23]/v1/credentials", "cloud metadata address");
    const exact = createPushSender({ allowNetworks: ["169.254.169.254/32", "fd00:ec2::254"] });
    await expect(exact.checkUrl("http://169.254.169.254/")).resolves.toBeUndefined();
    await expect(exact.checkUrl("http://[::ffff:169.254.169.254]/")).resolves.toBeUndefined();
    await expect(exact.checkUrl("http://[fd00:ec2::254]/")).resolves.toBeUndefined();
    await expectRefused(exact, "http://169.254.170.2/", "cloud metadata address");
    await expectRefused(exact, "http://metadata.google.internal/", "cloud metadata name");
  });

  it.each([
    ["10.0.0.0/33", 'entry "10.0.0.0/33" has prefix "33", not a number 0-32'],
    ["fd00::/129", 'entry "fd00::/129" has prefix "129", not a number 0-128'],
    ["10.0.0.0/", 'entry "10.0.0.0/" has prefix ""'],
    ["10.0.0.0/-1", 'entry "10.0.0.0/-1" has prefix "-1"'],
    ["10.0.0.0/8/8", 'entry "10.0.0.0/8/8" has prefix "8/8"'],
    ["10.0.0.1/8", 'entry "10.0.0.1/8" has host bits set past /8'],
    ["fd00::1/8", 'entry "fd00::1/8" has host bits set past /8'],
    ["10.0.0/8", 'entry "10.0.0/8" is not a CIDR network'],
    ["hooks.example/24", 'entry "hooks.example/24" is not a CIDR network'],
    ["fe80::%eth0/64", 'entry "fe80::%eth0/64" is not a CIDR network'],
    ["", 'entry "" is not a CIDR network'],
    [" 10.0.0.0/8", 'entry " 10.0.0.0/8" is not a CIDR network'],
  ])("refuses the network %j when the sender is created, naming it", (entry, message) => {
    expect(() => createPushSender({ allowNetworks: ["127.0.0.0/8", entry] })).toThrow(RangeError);
    expect(() => createPushSender({ allowNetworks: [entry] })).toThrow(`createPushSender: allowNetworks ${message}`);
  });

  it.each([
    "http://hooks.example",
    "hooks.example:8080",
    "hooks.example/path",
    "user@hooks.example",
    "hooks example",
    "hooks.example\n",
    "",
    ".",
    "10.0.0.0/8",
  ])("refuses the host %j when the sender is created, naming it", (entry) => {
    expect(() => createPushSender({ allowHosts: [entry] })).toThrow(
      `createPushSender: allowHosts entry ${JSON.stringify(entry)} `,
    );
  });

  it("reads host entries as URL hosts: case, trailing dot, IPv4 and IPv6 spellings", async () => {
    const sender = createPushSender({ allowHosts: ["Hooks.Example.", "127.1", "[0:0:0:0:0:0:0:1]", "::ffff:a00:1"] });
    for (const url of [
      "http://hooks.example/",
      "http://HOOKS.example./",
      "http://127.0.0.1/",
      "http://[::1]/",
      "http://[::ffff:10.0.0.1]/",
    ]) {
      await expect(sender.checkUrl(url), url).resolves.toBeUndefined();
    }
  });
});
