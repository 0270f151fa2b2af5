/**
 * A client never takes its call somewhere the caller did not point it: the JSON-RPC and HTTP+JSON clients
 * follow no redirect (each code a transport error naming where it pointed, the other origin never reached, so
 * an API key and the message body stay put), and the card resolver follows redirects within the card URL's
 * origin only. A card over 1 MiB is refused as such. Real node:http servers on 127.0.0.1: one that redirects,
 * one on another port (another origin) that records what reaches it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { A2ATransportError, resolveAgentCard } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";

/** What the other origin received. */
const reached: { url: string; headers: IncomingHttpHeaders }[] = [];
/** How the redirecting server answers a path: a status and Location, or a body. */
let answer: (path: string) => { status: number; location?: string; body?: string };

let redirecting: Server;
let other: Server;
let here = "";
let there = "";

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  redirecting = createServer((req, res) => {
    req.resume();
    const a = answer(req.url ?? "/");
    res.writeHead(a.status, {
      ...(a.location ? { location: a.location } : {}),
      "content-type": "application/json",
    });
    res.end(a.body ?? "");
  });
  other = createServer((req, res) => {
    reached.push({ url: req.url ?? "", headers: req.headers });
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ name: "elsewhere" }));
  });
  here = await listen(redirecting);
  there = await listen(other);
});
afterAll(() => {
  for (const s of [redirecting, other]) {
    s.closeAllConnections();
    s.close();
  }
});
beforeEach(() => {
  reached.length = 0;
});

/** A v1.0 card with one interface of `binding` on the redirecting server, which takes an API key. */
function card(binding: "JSONRPC" | "HTTP+JSON") {
  return {
    supportedInterfaces: [
      { url: `${here}/${binding === "JSONRPC" ? "rpc" : "rest"}`, protocolBinding: binding, protocolVersion: "1.0" },
    ],
    securitySchemes: { key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } } },
    securityRequirements: [{ schemes: { key: { list: [] } } }],
  };
}

describe.each(["JSONRPC", "HTTP+JSON"] as const)("the %s client", (binding) => {
  it.each([301, 302, 303, 307, 308])("follows no %i to another origin: nothing reaches it", async (status) => {
    answer = () => ({ status, location: `${there}/elsewhere` });
    const { client } = createA2AServiceClientForCard(card(binding), { credentials: { key: "SECRET" } });
    const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };
    const e = await client.sendMessage({ message }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as A2ATransportError).message).toContain(
      `answered HTTP ${status} to ${there}/elsewhere; the client follows no redirect`,
    );
    expect((e as A2ATransportError).status).toBe(status);
    expect(reached).toEqual([]);
  });

  it("leaves the Location's query out of the failure: a redirect keeps a query API key", async () => {
    answer = () => ({ status: 307, location: "/rpc/?api_key=SECRET" });
    const { client } = createA2AServiceClientForCard(card(binding), { credentials: { key: "SECRET" } });
    const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    expect((e as A2ATransportError).message).toContain(
      `answered HTTP 307 to ${here}/rpc/?<query not shown>; the client follows no redirect`,
    );
    expect((e as A2ATransportError).message).not.toContain("SECRET");
  });
});

describe("the card resolver", () => {
  const agentCard = { name: "redirected", supportedInterfaces: [] };

  it("follows redirects within the card URL's origin, and says where the card came from", async () => {
    answer = (path) =>
      path === "/.well-known/agent-card.json"
        ? { status: 302, location: "/cards/a.json" }
        : path === "/cards/a.json"
          ? { status: 308, location: `${here}/cards/b.json` }
          : { status: 200, body: JSON.stringify(agentCard) };
    const resolved = await resolveAgentCard(here);
    expect([resolved.card, resolved.url]).toEqual([agentCard, `${here}/cards/b.json`]);
  });

  it("refuses a redirect to another origin, sending it nothing", async () => {
    answer = () => ({ status: 302, location: `${there}/card.json` });
    const resolving = resolveAgentCard(here, { headers: { "x-api-key": "SECRET" } });
    await expect(resolving).rejects.toThrow(
      `GET ${here}/.well-known/agent-card.json answered 302 to ${there}, another origin than the card URL's`,
    );
    expect(reached).toEqual([]);
  });

  it("refuses a redirect loop after 5 redirects, and a redirect without Location", async () => {
    answer = () => ({ status: 307, location: "/.well-known/agent-card.json" });
    await expect(resolveAgentCard(here)).rejects.toThrow("answered 307 after 5 redirects");
    answer = () => ({ status: 301 });
    await expect(resolveAgentCard(here)).rejects.toThrow("answered 301 with no Location it can follow");
  });

  it("refuses a card over 1 MiB as such, reading no further", async () => {
    answer = () => ({ status: 200, body: JSON.stringify({ name: "x".repeat(2 << 20) }) });
    await expect(resolveAgentCard(here)).rejects.toThrow(`the card at ${here}/.well-known/agent-card.json is over`);
  });
});
