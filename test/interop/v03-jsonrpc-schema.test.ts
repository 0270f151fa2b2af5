/**
 * Every v0.3 JSON-RPC payload the generated code puts on the wire validates
 * against a2a.json (v0.3.0 specification/json/a2a.json, read from
 * ../shared/a2a-spec): the generated client's requests and the responses,
 * stream events and errors, for every v0.3 method, of two servers: the
 * generated v0.3 server (the proto path) and the version bridge over the
 * v1.0 echo agent (one-pass a2a.json conversions where it has them), which
 * is protected by an API key: its calls send it, and one call without it
 * adds the refusal (-32040 UnauthenticatedError) to the errors checked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { Role, type Task } from "../../generated-samples/v0.3.0/a2a_pb.js";
import { startV03EchoAgent } from "../helpers/v03-echo-agent.js";
import { startEchoAgent } from "../../examples/echo-agent/server.js";
import { apiKeySecurity } from "../helpers/example-process.js";
import { repoRoot } from "../helpers/run.js";

const schema = JSON.parse(readFileSync(join(repoRoot, "../shared/a2a-spec/v0.3.0/a2a.json"), "utf8")) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(schema, "a2a");
const def = (name: string): ValidateFunction => ajv.getSchema(`a2a#/definitions/${name}`)!;

/** The success response definition of each method's result. */
const RESPONSE: Record<string, string> = {
  "message/send": "SendMessageSuccessResponse",
  "message/stream": "SendStreamingMessageSuccessResponse",
  "tasks/resubscribe": "SendStreamingMessageSuccessResponse",
  "tasks/get": "GetTaskSuccessResponse",
  "tasks/cancel": "CancelTaskSuccessResponse",
  "tasks/pushNotificationConfig/set": "SetTaskPushNotificationConfigSuccessResponse",
  "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfigSuccessResponse",
  "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigSuccessResponse",
  "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfigSuccessResponse",
  "agent/getAuthenticatedExtendedCard": "GetAuthenticatedExtendedCardSuccessResponse",
};

interface Exchange {
  method: string;
  request: unknown;
  responses: unknown[];
}

/** Each server, and the headers its calls need (the echo agent's API key; its extended card needs a caller). */
const SERVERS = [
  { name: "the generated v0.3 server", start: startV03EchoAgent, headers: {} },
  {
    name: "the version bridge over the v1.0 echo agent",
    start: () => startEchoAgent({ security: apiKeySecurity({ alice: "alice-key" }) }),
    headers: { "X-API-Key": "alice-key" },
  },
];

/**
 * A fetch that records each envelope sent and every JSON-RPC response received
 * (SSE lines included). A stream's copy is read in the background, since it
 * only ends when the stream does.
 */
const recordingFetch =
  (exchanges: Exchange[], pending: Promise<void>[]): typeof fetch =>
  async (input, init) => {
    const request = JSON.parse(String(init?.body));
    const res = await fetch(input, init);
    const stream = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    pending.push(
      res
        .clone()
        .text()
        .then((text) => {
          const responses = stream
            ? text
                .split("\n")
                .filter((l) => l.startsWith("data:"))
                .map((l) => JSON.parse(l.slice(5)))
            : [JSON.parse(text)];
          exchanges.push({ method: request.method, request, responses });
        }),
    );
    return res;
  };

describe.each(SERVERS)("v0.3 JSON-RPC payloads of $name validate against a2a.json", ({ start, headers }) => {
  const exchanges: Exchange[] = [];
  let agent: { close(): Promise<void> } | undefined;

  beforeAll(async () => {
    const pending: Promise<void>[] = [];
    const running = await start();
    agent = running;
    const fetch = recordingFetch(exchanges, pending);
    const c = createA2AServiceJsonRpcClient({ url: running.urls.jsonrpc, fetch, headers });
    const msg = (t: string) => ({
      messageId: crypto.randomUUID(),
      role: Role.USER,
      content: [
        { part: { case: "text" as const, value: t } },
        {
          part: {
            case: "file" as const,
            value: { file: { case: "fileWithUri" as const, value: "https://h/f.pdf" }, mimeType: "application/pdf" },
          },
        },
      ],
      metadata: { note: "x" },
    });
    const sent = await c.sendMessage({
      request: msg("hello"),
      configuration: { blocking: true, acceptedOutputModes: ["text/plain"], historyLength: 5 },
    });
    const id = (sent.payload.value as Task).id;
    for await (const _ of c.sendStreamingMessage({ request: msg("streamed") })) void _;
    await c.getTask({ name: `tasks/${id}`, historyLength: 1 });
    const waiting = (await c.sendMessage({ request: msg("wait"), configuration: { blocking: false } })).payload
      .value as Task;
    const sub = c.taskSubscription({ name: `tasks/${waiting.id}` })[Symbol.asyncIterator]();
    await sub.next();
    await c.cancelTask({ name: `tasks/${waiting.id}` });
    for (let r = await sub.next(); !r.done; r = await sub.next());
    const cfg = {
      id: "c1",
      url: "http://127.0.0.1:9/hook",
      token: "t",
      authentication: { schemes: ["Bearer"], credentials: "k" },
    };
    await c.createTaskPushNotificationConfig({
      parent: `tasks/${id}`,
      configId: "c1",
      config: { name: `tasks/${id}/pushNotificationConfigs/c1`, pushNotificationConfig: cfg },
    });
    await c.getTaskPushNotificationConfig({ name: `tasks/${id}/pushNotificationConfigs/c1` });
    await c.listTaskPushNotificationConfig({ parent: `tasks/${id}` });
    await c.deleteTaskPushNotificationConfig({ name: `tasks/${id}/pushNotificationConfigs/c1` });
    await c.getAgentCard({});
    await c.getTask({ name: "tasks/no-such-task" }).catch(() => undefined);
    if (Object.keys(headers).length > 0) {
      const bare = createA2AServiceJsonRpcClient({ url: running.urls.jsonrpc, fetch });
      await bare.getTask({ name: `tasks/${id}` }).catch(() => undefined);
    }
    await Promise.all(pending);
  });
  afterAll(() => agent?.close());

  it("covers every v0.3 method", () => {
    expect(new Set(exchanges.map((e) => e.method))).toEqual(new Set(Object.keys(RESPONSE)));
  });

  it("every request is an A2ARequest", () => {
    const v = def("A2ARequest");
    // The schema is strict enough to catch the proto's own JSON form.
    expect(
      v({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { messageId: "m", role: "ROLE_USER", content: [{ text: "x" }] } },
      }),
    ).toBe(false);
    for (const e of exchanges)
      expect(v(e.request), `${e.method}: ${JSON.stringify(v.errors)}\n${JSON.stringify(e.request)}`).toBe(true);
  });

  it("every response, stream event and error matches its definition", () => {
    const errors = def("JSONRPCErrorResponse");
    let checked = 0;
    for (const e of exchanges) {
      for (const r of e.responses) {
        const v = (r as { error?: unknown }).error ? errors : def(RESPONSE[e.method]!);
        expect(v(r), `${e.method}: ${JSON.stringify(v.errors)}\n${JSON.stringify(r)}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(exchanges.length); // streams add lines
    const codes = exchanges.flatMap((e) => e.responses.map((r) => (r as { error?: { code: number } }).error?.code));
    expect(codes).toContain(-32001);
    // A call without the API key the agent requires: UnauthenticatedError, an error response like any other.
    if (Object.keys(headers).length > 0) expect(codes).toContain(-32040);
  });
});

describe("agent cards in the a2a.json dialect", () => {
  it("security schemes and requirements encode to a2a.json and decode back", async () => {
    const { A2AServiceV0_3 } = await import("../../generated-samples/v0.3.0/a2a_a2a.js");
    const { AgentCardSchema } = await import("../../generated-samples/v0.3.0/a2a_pb.js");
    const { create, fromJson, toJson } = await import("@bufbuild/protobuf");
    const codec = A2AServiceV0_3.jsonrpcCodec!;
    const card = create(AgentCardSchema, {
      protocolVersion: "0.3.0",
      name: "a",
      description: "d",
      url: "http://h/rpc",
      preferredTransport: "JSONRPC",
      version: "1",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [
        { id: "s", name: "s", description: "s", tags: ["t"], security: [{ schemes: { oauth: { list: ["read"] } } }] },
      ],
      securitySchemes: {
        key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-Key" } } },
        http: { scheme: { case: "httpAuthSecurityScheme", value: { scheme: "bearer", bearerFormat: "JWT" } } },
        oauth: {
          scheme: {
            case: "oauth2SecurityScheme",
            value: {
              flows: { flow: { case: "clientCredentials", value: { tokenUrl: "https://t", scopes: { read: "r" } } } },
            },
          },
        },
        oidc: { scheme: { case: "openIdConnectSecurityScheme", value: { openIdConnectUrl: "https://o" } } },
        mtls: { scheme: { case: "mtlsSecurityScheme", value: {} } },
      },
      security: [{ schemes: { oauth: { list: ["read"] } } }, { schemes: { key: { list: [] }, mtls: { list: [] } } }],
    });
    const json = codec.encode(AgentCardSchema, toJson(AgentCardSchema, card));
    const v = def("AgentCard");
    expect(v(json), JSON.stringify(v.errors)).toBe(true);
    expect((json as { securitySchemes: Record<string, unknown> }).securitySchemes["key"]).toEqual({
      type: "apiKey",
      in: "header",
      name: "X-Key",
    });
    expect((json as { security: unknown }).security).toEqual([{ oauth: ["read"] }, { key: [], mtls: [] }]);
    const drops: string[] = [];
    const back = fromJson(AgentCardSchema, codec.decode(AgentCardSchema, json, (p) => drops.push(p)) as never);
    expect(toJson(AgentCardSchema, back)).toEqual(toJson(AgentCardSchema, card));
    expect(drops).toEqual([]);
    // Several OAuth flows in a2a.json: the proto's oneof keeps the first and reports the others.
    const two = structuredClone(json) as { securitySchemes: { oauth: { flows: Record<string, unknown> } } };
    two.securitySchemes.oauth.flows = {
      authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: {} },
      ...two.securitySchemes.oauth.flows,
    };
    const dropped: string[] = [];
    fromJson(AgentCardSchema, codec.decode(AgentCardSchema, two as never, (p) => dropped.push(p)) as never);
    expect(dropped).toEqual(["securitySchemes.oauth.flows.clientCredentials"]);
  });
});
