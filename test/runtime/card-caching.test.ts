/**
 * The agent card is cacheable (S10 §8.6.1) and HEAD works on every GET route
 * (issue 9, item 2): Cache-Control max-age, a strong ETag, Last-Modified,
 * If-None-Match and If-Modified-Since answered with 304, Vary on the version
 * header for the dual-version card; HEAD gives GET's status and headers
 * without a body. On the example agent (v1.0 and, through the bridge, v0.3)
 * and on a single-version handler with its options.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchHandler, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { createA2AServiceHttpHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { dualVersionHttpHandler } from "../../generated-samples/a2a_compat.js";

let agent: RunningAgent;
let base: string;
let single: Server;
let singleBase: string;

const v10 = { "A2A-Version": "1.0" };

beforeAll(async () => {
  agent = await startEchoAgent();
  base = agent.urls.card.replace("/.well-known/agent-card.json", "");
  const handler = createA2AServiceHttpHandler({
    handler: createEchoHandler(),
    agentCard: () => ({ name: "single" }),
    agentCardMaxAge: 60,
    agentCardHeaders: () => ({ "x-card": "1" }),
  });
  single = createServer(nodeHttpListener(handler));
  await new Promise<void>((resolve) => single.listen(0, "127.0.0.1", resolve));
  singleBase = `http://127.0.0.1:${(single.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  single.close();
});

const card = (headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${base}/.well-known/agent-card.json`, { method, headers });

describe.each([
  ["v0.3 (no A2A-Version)", {}],
  ["v1.0", v10],
])("the %s agent card", (_name, version: Record<string, string>) => {
  it("carries Cache-Control, a strong ETag, Last-Modified and Vary", async () => {
    const res = await card(version);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("max-age=300");
    expect(res.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(new Date(res.headers.get("last-modified")!).getTime()).toBeLessThanOrEqual(Date.now());
    expect(res.headers.get("vary")).toBe("A2A-Version");
    expect((await res.json()) as object).toHaveProperty("name", "Echo agent");
  });

  it("answers a matching If-None-Match with 304 and no body", async () => {
    const etag = (await card(version)).headers.get("etag")!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = await card({ ...version, "if-none-match": ifNoneMatch });
      expect(res.status, ifNoneMatch).toBe(304);
      expect(res.headers.get("etag")).toBe(etag);
      // A 304 has no content, and a Content-Length would be the 200's, not 0 (RFC 9110 §8.6).
      expect(res.headers.get("content-length")).toBeNull();
      expect(await res.text()).toBe("");
    }
    expect((await card({ ...version, "if-none-match": '"other"' })).status).toBe(200);
  });

  it("answers If-Modified-Since with 304 unless the card is newer", async () => {
    const lastModified = (await card(version)).headers.get("last-modified")!;
    expect((await card({ ...version, "if-modified-since": lastModified })).status).toBe(304);
    const before = new Date(Date.parse(lastModified) - 1000).toUTCString();
    expect((await card({ ...version, "if-modified-since": before })).status).toBe(200);
    // If-None-Match takes precedence (RFC 9110 §13.2.2).
    const both = await card({ ...version, "if-none-match": '"other"', "if-modified-since": lastModified });
    expect(both.status).toBe(200);
    // RFC 850's and asctime's forms of a later date count too; what is no HTTP-date is ignored (RFC 9110 §13.1.3).
    for (const later of ["Friday, 31-Dec-49 23:59:59 GMT", "Fri Dec 31 23:59:59 2049"]) {
      expect((await card({ ...version, "if-modified-since": later })).status, later).toBe(304);
    }
    for (const junk of ["2100", "2100-01-01", "tomorrow 2100", `${lastModified} x`]) {
      expect((await card({ ...version, "if-modified-since": junk })).status, junk).toBe(200);
    }
  });

  it("answers HEAD with GET's headers and no body", async () => {
    const get = await card(version);
    const head = await card(version, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect(head.headers.get("content-type")).toBe("application/json");
    expect(await head.text()).toBe("");
  });
});

describe("the two cards of the dual-version agent", () => {
  it("have different ETags", async () => {
    const older = (await card()).headers.get("etag");
    const newer = (await card(v10)).headers.get("etag");
    expect(older).not.toBe(newer);
    expect((await card({ ...v10, "if-none-match": older! })).status).toBe(200);
  });

  it("refuse other methods with 405, allowing GET and HEAD", async () => {
    const res = await card({}, "POST");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("HEAD on the HTTP+JSON GET routes", () => {
  const rest = (path: string, method: string, headers: Record<string, string>) =>
    fetch(`${agent.urls.rest}${path}`, { method, headers, signal: AbortSignal.timeout(5000) });

  it.each([
    ["v1.0", v10, "/tasks/no-such-task"],
    ["v1.0", v10, "/tasks/no-such-task:subscribe"],
    ["v0.3", {}, "/v1/tasks/no-such-task"],
  ])("%s %s: GET's status and content type, no body", async (_v, headers, path) => {
    const get = await rest(path, "GET", headers);
    const head = await rest(path, "HEAD", headers);
    expect(head.status).toBe(get.status);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(await head.text()).toBe("");
  });

  it("v1.0 GetTask of a task: 200, no body", async () => {
    const sent = await fetch(`${agent.urls.rest}/message:send`, {
      method: "POST",
      headers: { ...v10, "content-type": "application/a2a+json" },
      body: JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } }),
    });
    const { task } = (await sent.json()) as { task: { id: string } };
    const head = await rest(`/tasks/${task.id}`, "HEAD", v10);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
});

describe("the dual-version card with its own Vary", () => {
  it.each(["vary", "Vary"])("keeps the card's %s and adds the version header to it", async (name) => {
    const dual = fetchHandler(
      dualVersionHttpHandler(createEchoHandler(), {
        agentCard: () => ({ name: "dual" }),
        // A card that depends on who asks: caches must keep one per caller too.
        agentCardHeaders: () => ({ [name]: "Authorization" }),
      }),
    );
    for (const headers of [{}, v10, { "A2A-Version": "0.3" }]) {
      const res = await dual(new Request("http://agent.test/.well-known/agent-card.json", { headers }));
      expect(res.status).toBe(200);
      expect(res.headers.get("vary")).toBe("Authorization, A2A-Version");
    }
  });
});

describe("the answers about tasks", () => {
  it("are stored by no cache when a GET reads them, found or not", async () => {
    const headers = { "content-type": "application/json", ...v10 };
    const message = { messageId: "cache-1", role: "ROLE_USER", parts: [{ text: "hello" }] };
    const sent = await fetch(`${agent.urls.rest}/message:send`, {
      method: "POST",
      headers,
      body: JSON.stringify({ message }),
    });
    expect(sent.headers.get("cache-control")).toBeNull();
    const { task } = (await sent.json()) as { task: { id: string } };
    for (const path of [
      `/tasks/${task.id}`,
      "/tasks",
      "/tasks/no-such-task",
      `/tasks/${task.id}/pushNotificationConfigs`,
    ]) {
      const res = await fetch(`${agent.urls.rest}${path}`, { headers: v10 });
      expect([res.status < 500, res.headers.get("cache-control")], path).toEqual([true, "no-store"]);
      await res.body?.cancel();
    }
  });
});

describe("a single-version handler's card options", () => {
  it("sets max-age and adds its own headers", async () => {
    const res = await fetch(`${singleBase}/.well-known/agent-card.json`);
    expect(res.headers.get("cache-control")).toBe("max-age=60");
    expect(res.headers.get("x-card")).toBe("1");
    expect(res.headers.get("vary")).toBeNull();
    expect(await res.json()).toEqual({ name: "single" });
  });
});
