/**
 * Discovery on a dual-version server (issue 9, item 3): a card request
 * without A2A-Version gets one card that v0.3 and v1.0 clients both read
 * (valid a2a.json, read by the generated v1.0 and v0.3 clients and by
 * @a2a-js/sdk 1.3.0 and 0.3.14, each of which then makes a real call); the
 * version may come as the A2A-Version query parameter; a 0.x other than 0.3
 * is VersionNotSupportedError; a missing header is named as missing; a v1.0
 * path asked without the header gets a 404 saying how to ask for 1.0. The
 * split between the versions is the override api.dualVersion, read from the
 * generated tables.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { create, fromJson, toJson, type JsonObject } from "@bufbuild/protobuf";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { Role } from "@a2a-js/sdk";
import { mergeAgentCards, nodeHttpListener, type CoreHandler } from "@protoc-gen-a2a/runtime";
import {
  createDualVersionHttpHandler,
  MergedCardError,
  type DualVersionOptions,
} from "@protoc-gen-a2a/runtime/protocol";
import { toOlderJson, bridgeToOlder } from "../../generated-samples/a2a_compat.js";
import {
  A2AServiceV1_0,
  createA2AServiceClientForCard,
  createA2AServiceHttpHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import * as v03 from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { AgentCardSchema, Role as V10Role, type AgentCard } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { Role as V03Role } from "../../generated-samples/v0.3.0/a2a_pb.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { a2aJsV03ClientFor, artifactTexts } from "../helpers/a2a-js-peers.js";
import { readJson, type JsonRpcFailure, type JsonRpcSuccess, type RestError } from "../helpers/json.js";
import { specDir } from "../helpers/spec-server.js";

const CARD_PATH = "/.well-known/agent-card.json";

/** A v1.0 card with every member whose name both forms use: capabilities, skills, security schemes, signatures. */
function v10Card(base: string): AgentCard {
  return create(AgentCardSchema, {
    name: "Dual agent",
    description: "Serves A2A 1.0 and 0.3 at the same URLs.",
    version: "2.0.0",
    provider: { organization: "Example", url: "https://example.com" },
    documentationUrl: "https://example.com/docs",
    iconUrl: "https://example.com/icon.png",
    supportedInterfaces: (["1.0", "0.3"] as const).flatMap((protocolVersion) => [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion },
    ]),
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: [{ uri: "urn:example:ext", description: "an extension", params: { level: 2 } }],
    },
    securitySchemes: {
      key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-Key" } } },
      oauth: {
        scheme: {
          case: "oauth2SecurityScheme",
          value: {
            flows: {
              flow: {
                case: "authorizationCode",
                value: {
                  authorizationUrl: "https://example.com/auth",
                  tokenUrl: "https://example.com/token",
                  scopes: { read: "read tasks" },
                },
              },
            },
          },
        },
      },
    },
    securityRequirements: [{ schemes: { key: { list: [] } } }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "echo",
        name: "Echo",
        description: "Repeats the text it is sent.",
        tags: ["example"],
        securityRequirements: [{ schemes: { oauth: { list: ["read"] } } }],
      },
    ],
    signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2lnbmF0dXJl" }],
  });
}

let server: Server;
let base: string;
let only10: Server;
let only10Base: string;
let card: AgentCard;
const v10Json = () => toJson(AgentCardSchema, card) as JsonObject;
const v03Json = () => toOlderJson(card).json as JsonObject;

function dualOptions(
  newer: typeof A2AServiceV1_0 = A2AServiceV1_0,
): DualVersionOptions<(typeof v03.A2AServiceV0_3)["service"], (typeof A2AServiceV1_0)["service"]> {
  const handler = createEchoHandler();
  return {
    newer: { definition: newer, handler },
    older: bridgeToOlder(handler),
    jsonrpcPath: "/a2a/jsonrpc",
    restBasePath: "/a2a/rest",
    agentCard: (side) => (side === "newer" ? v10Json() : v03Json()),
  };
}

async function listen(handler: CoreHandler): Promise<[Server, string]> {
  const s = createServer(nodeHttpListener(handler));
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return [s, `http://127.0.0.1:${(s.address() as AddressInfo).port}`];
}

beforeAll(async () => {
  [server, base] = await listen(createDualVersionHttpHandler(dualOptions()));
  card = v10Card(base);
  [only10, only10Base] = await listen(createA2AServiceHttpHandler({ handler: createEchoHandler() }));
});

afterAll(async () => {
  server.closeAllConnections();
  only10.closeAllConnections();
  await Promise.all([server, only10].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

const plainCard = async () => readJson<JsonObject>(fetch(base + CARD_PATH));

const rpc = (url: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

const sendParams = (text: string) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
});
/** The same message in a2a.json form, for v0.3's message/send. */
const sendParams03 = (text: string) => ({
  message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }] },
});

describe("the card of a request without A2A-Version", () => {
  it("is the v0.3 card with the v1.0 members added, varying on A2A-Version", async () => {
    const res = await fetch(base + CARD_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get("vary")).toBe("A2A-Version");
    const merged = (await res.json()) as JsonObject;
    expect(merged).toMatchObject(v03Json());
    expect(merged).toMatchObject(v10Json());
    expect(Object.keys(merged).sort()).toEqual(
      [...new Set([...Object.keys(v03Json()), ...Object.keys(v10Json())])].sort(),
    );
    expect(merged).toMatchObject({
      protocolVersion: "0.3",
      url: `${base}/a2a/jsonrpc`,
      preferredTransport: "JSONRPC",
      additionalInterfaces: [
        { url: `${base}/a2a/jsonrpc`, transport: "JSONRPC" },
        { url: `${base}/a2a/rest`, transport: "HTTP+JSON" },
      ],
      supportsAuthenticatedExtendedCard: true,
      capabilities: { extendedAgentCard: true, streaming: true },
      securitySchemes: {
        key: {
          type: "apiKey",
          in: "header",
          name: "X-Key",
          apiKeySecurityScheme: { location: "header", name: "X-Key" },
        },
      },
      skills: [{ security: [{ oauth: ["read"] }], securityRequirements: [{ schemes: { oauth: { list: ["read"] } } }] }],
    });
  });

  it("is a valid a2a.json (v0.3.0) AgentCard", async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema(JSON.parse(readFileSync(join(specDir, "v0.3.0/a2a.json"), "utf8")) as object, "a2a");
    const validate = ajv.getSchema("a2a#/definitions/AgentCard")!;
    const merged = await plainCard();
    expect(validate(merged), ajv.errorsText(validate.errors)).toBe(true);
    // The check can fail: without a member a2a.json requires, the card is not valid.
    const { url: _url, ...withoutUrl } = merged;
    expect(validate(withoutUrl)).toBe(false);
  });

  it("reads as the v1.0 card with unknown fields ignored, and is refused without", async () => {
    const merged = await plainCard();
    const read = fromJson(AgentCardSchema, merged, { ignoreUnknownFields: true });
    expect(toJson(AgentCardSchema, read)).toEqual(v10Json());
    expect(() => fromJson(AgentCardSchema, merged)).toThrow(
      /cannot decode message lf\.a2a\.v1\.AgentCard from JSON: key "protocolVersion" is unknown/,
    );
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)(
    "gives the generated v1.0 client its %s interface, which answers",
    async (binding) => {
      const { client, selected } = createA2AServiceClientForCard(await plainCard(), { bindings: [binding] });
      expect(selected).toEqual({
        url: binding === "JSONRPC" ? `${base}/a2a/jsonrpc` : `${base}/a2a/rest`,
        binding,
        protocolVersion: "1.0",
        tenant: undefined,
      });
      const res = await client.sendMessage({
        message: {
          messageId: crypto.randomUUID(),
          role: V10Role.USER,
          parts: [{ content: { case: "text", value: "v1" } }],
        },
      });
      expect(res.payload.case).toBe("task");
    },
  );

  it.each(["JSONRPC", "HTTP+JSON"] as const)(
    "gives the generated v0.3 client its %s interface, which answers",
    async (binding) => {
      const { client, selected } = v03.createA2AServiceClientForCard(await plainCard(), { bindings: [binding] });
      expect(selected.protocolVersion).toBe("0.3");
      expect(selected.binding).toBe(binding);
      const res = await client.sendMessage({
        request: {
          messageId: crypto.randomUUID(),
          role: V03Role.USER,
          content: [{ part: { case: "text", value: "v03" } }],
        },
      });
      expect(res.payload.case).toBe("task");
    },
  );

  it.each(["JSONRPC", "HTTP+JSON"] as const)(
    "is read by @a2a-js/sdk 1.3.0 (%s), which then calls at 1.0",
    async (binding) => {
      // The 1.3.0 resolver sends A2A-Version: 1.0; without it, it fetches the card the plain way.
      const seen: (string | null)[] = [];
      const plainFetch = (url: string | URL | Request, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.delete("A2A-Version");
        return fetch(url, { ...init, headers }).then((res) => {
          seen.push(res.headers.get("etag"));
          return res;
        });
      };
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
        preferredTransports: [binding],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: plainFetch }),
      });
      const client = await factory.createFromUrl(base + CARD_PATH, "");
      expect(seen).toEqual([(await fetch(base + CARD_PATH)).headers.get("etag")]);
      expect(client.transport.protocolName).toBe(binding);
      const result = await client.sendMessage({
        tenant: "",
        message: {
          messageId: crypto.randomUUID(),
          contextId: "",
          taskId: "",
          role: Role.ROLE_USER,
          parts: [
            { content: { $case: "text", value: "from 1.3.0" }, metadata: undefined, filename: "", mediaType: "" },
          ],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: undefined,
      });
      expect(artifactTexts(result)).toEqual(["from 1.3.0"]);
    },
  );

  it.each(["JSONRPC", "HTTP+JSON"] as const)(
    "is read by @a2a-js/sdk 0.3.14 (%s), which then calls at 0.3",
    async (binding) => {
      const client = await a2aJsV03ClientFor({ cardUrl: base + CARD_PATH, binding });
      expect(client.binding).toBe(binding);
      expect(artifactTexts(await client.sendText("from 0.3.14"))).toEqual(["from 0.3.14"]);
    },
  );

  it("answers HEAD and If-None-Match like the other cards", async () => {
    const get = await fetch(base + CARD_PATH);
    const head = await fetch(base + CARD_PATH, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect(await head.text()).toBe("");
    const again = await fetch(base + CARD_PATH, { headers: { "if-none-match": get.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("vary")).toBe("A2A-Version");
  });
});

describe("a card request that names a version", () => {
  it.each([
    ["header A2A-Version: 1.0", "", { "A2A-Version": "1.0" }, "newer"],
    ["query ?A2A-Version=1.0", "?A2A-Version=1.0", {}, "newer"],
    ["header A2A-Version: 0.3", "", { "A2A-Version": "0.3" }, "older"],
    ["query ?A2A-Version=0.3.0", "?A2A-Version=0.3.0", {}, "older"],
  ] as const)("%s gets that version's card alone", async (_name, query, headers, side) => {
    const res = await fetch(base + CARD_PATH + query, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("vary")).toBe("A2A-Version");
    expect(await res.json()).toEqual(side === "newer" ? v10Json() : v03Json());
  });
});

describe("?A2A-Version= on the dual-version handler", () => {
  it("JSON-RPC: ?A2A-Version=1.0 reaches 1.0", async () => {
    const res = await rpc(`${base}/a2a/jsonrpc?A2A-Version=1.0`, "SendMessage", sendParams("q"));
    expect(res.status).toBe(200);
    const body = await readJson<JsonRpcSuccess<{ task: { status: { state: string } } }>>(res);
    expect(body.error).toBeUndefined();
    expect(body.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("HTTP+JSON: ?A2A-Version=1.0 reaches 1.0", async () => {
    const res = await fetch(`${base}/a2a/rest/message:send?A2A-Version=1.0`, {
      method: "POST",
      headers: { "content-type": "application/a2a+json" },
      body: JSON.stringify(sendParams("q")),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { task: { status: { state: string } } }).task.status.state).toBe(
      "TASK_STATE_COMPLETED",
    );
  });

  it("the header wins over the query", async () => {
    const res = await rpc(`${base}/a2a/jsonrpc?A2A-Version=1.0`, "SendMessage", sendParams("q"), {
      "A2A-Version": "0.3",
    });
    expect((await readJson<JsonRpcFailure>(res)).error).toEqual({
      code: -32601,
      message: "Method not found: SendMessage",
    });
  });
});

describe("a 0.x other than 0.3", () => {
  const refusal = {
    code: -32009,
    message: "Protocol version 0.5 is not supported; this interface speaks 1.0",
    data: [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "VERSION_NOT_SUPPORTED",
        domain: "a2a-protocol.org",
      },
    ],
  };

  it.each([
    ["header", "", { "A2A-Version": "0.5" }],
    ["query", "?A2A-Version=0.5", {}],
  ] as const)("JSON-RPC (%s): -32009 VersionNotSupportedError", async (_via, query, headers) => {
    const res = await rpc(`${base}/a2a/jsonrpc${query}`, "SendMessage", sendParams("q"), headers);
    expect(res.status).toBe(200);
    expect(await readJson<JsonRpcFailure>(res)).toEqual({ jsonrpc: "2.0", id: 1, error: refusal });
  });

  it("HTTP+JSON: 400 VersionNotSupportedError", async () => {
    const res = await fetch(`${base}/a2a/rest/message:send`, {
      method: "POST",
      headers: { "content-type": "application/a2a+json", "A2A-Version": "0.5" },
      body: JSON.stringify(sendParams("q")),
    });
    expect(res.status).toBe(400);
    expect(await readJson<RestError>(res)).toEqual({
      error: { code: 400, status: "FAILED_PRECONDITION", message: refusal.message, details: refusal.data },
    });
  });

  it("goes to the older side when the generated rule lists it (the rule is data)", async () => {
    const rule = { ...A2AServiceV1_0, dualVersion: { olderVersions: ["0.3", "0.5"] } };
    const [s, url] = await listen(createDualVersionHttpHandler(dualOptions(rule)));
    try {
      expect(A2AServiceV1_0.dualVersion).toEqual({ olderVersions: ["0.3"] });
      const res = await rpc(`${url}/a2a/jsonrpc`, "message/send", sendParams03("q"), { "A2A-Version": "0.5" });
      expect((await readJson<JsonRpcFailure>(res)).error).toBeUndefined();
    } finally {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });
});

describe("a call without A2A-Version", () => {
  const missing =
    "The A2A-Version header is missing, so the call is read as version 0.3; this interface speaks 1.0: " +
    "send A2A-Version: 1.0";

  it.each([
    ["absent", {}],
    ["empty", { "A2A-Version": "" }],
  ] as const)("on a 1.0-only server (%s): the error says the header is missing", async (_how, headers) => {
    const j = await readJson<JsonRpcFailure>(rpc(`${only10Base}/jsonrpc`, "GetTask", { id: "x" }, headers));
    expect(j.error.code).toBe(-32009);
    expect(j.error.message).toBe(missing);
    const r = await fetch(`${only10Base}/rest/tasks/x`, { headers });
    expect(r.status).toBe(400);
    expect((await readJson<RestError>(r)).error.message).toBe(missing);
  });

  it.each([
    ["POST", "/a2a/rest/message:send"],
    ["GET", "/a2a/rest/tasks/t1"],
    ["GET", "/a2a/rest/extendedAgentCard"],
  ] as const)("%s %s (a 1.0 path): 404 saying which version serves it and how to ask", async (method, path) => {
    const res = await fetch(base + path, {
      method,
      ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe(
      `${method} ${path} is served by A2A 1.0; a request without A2A-Version is read as 0.3. ` +
        'Ask for 1.0 with the header "A2A-Version: 1.0" or the query parameter "?A2A-Version=1.0".',
    );
  });

  it("a 0.3 path the older side answers 404 keeps its own answer", async () => {
    const res = await fetch(`${base}/a2a/rest/v1/tasks/no-such-task`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: -32001, message: "Task no-such-task not found" });
  });

  it.each([
    ["a path neither version serves", "/a2a/rest/no/such/route/here"],
    ["a 0.3 path of an operation 0.3 lacks (only a 1.0 tenant route would match)", "/a2a/rest/v1/tasks"],
  ])("%s: a bare 404", async (_name, path) => {
    const res = await fetch(base + path);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("");
  });
});

describe("mergeAgentCards", () => {
  it("merges shared objects and same-length lists, and names the path where the forms disagree", () => {
    const older = { name: "a", skills: [{ id: "s", security: [{ k: [] }] }], url: "u" };
    const newer = { name: "a", skills: [{ id: "s", securityRequirements: [] }], supportedInterfaces: [] };
    expect(mergeAgentCards(newer, older)).toEqual({
      name: "a",
      skills: [{ id: "s", security: [{ k: [] }], securityRequirements: [] }],
      url: "u",
      supportedInterfaces: [],
    });
    const clash = () => mergeAgentCards({ skills: [{ id: "t" }] }, { skills: [{ id: "s" }] });
    expect(clash).toThrow(MergedCardError);
    expect(clash).toThrow('agent card: the v1.0 and the v0.3 card disagree at skills[0].id: "t" (v1.0) vs "s" (v0.3)');
    expect(() => mergeAgentCards({ skills: [] }, { skills: [{ id: "s" }] })).toThrow(
      'agent card: the v1.0 and the v0.3 card disagree at skills: [] (v1.0) vs [{"id":"s"}] (v0.3)',
    );
  });

  it("keeps a member named __proto__ (an extension's params) as a member of either card", () => {
    const params = JSON.parse('{"__proto__": {"polluted": true}, "k": 1}') as JsonObject;
    const ext = (p: JsonObject) => ({ capabilities: { extensions: [{ uri: "urn:x", params: p }] } });
    const merged = mergeAgentCards(ext(params), ext(params));
    expect(JSON.stringify(merged)).toBe(JSON.stringify(ext(params)));
    const older = JSON.parse('{"name": "a", "__proto__": {"x": 1}}') as JsonObject;
    expect(JSON.stringify(mergeAgentCards({ name: "a" }, older))).toBe('{"name":"a","__proto__":{"x":1}}');
  });
});
