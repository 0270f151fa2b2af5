/**
 * Capabilities (issue 9, item 7), at v1.0 and v0.3, over JSON-RPC, HTTP+JSON
 * and gRPC, on the wire:
 *
 *   - a handler without a method answers its capability's error: push configs
 *     PushNotificationNotSupportedError, the extended card
 *     ExtendedAgentCardNotConfiguredError (v0.3:
 *     AuthenticatedExtendedCardNotConfiguredError);
 *   - a card that leaves streaming, pushNotifications or the extended card
 *     false or out gets the call refused before the handler runs;
 *   - extensions the card marks required must be declared (v1.0; v0.3 has no
 *     ExtensionSupportRequiredError), requiredExtensions overrides the card;
 *   - the declared extensions the card lists are echoed in the response's
 *     extensions header, or gRPC metadata.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { type CoreHandler, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { ErrorInfoSchema } from "@protoc-gen-a2a/runtime/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v03 from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { a2aServiceGrpcRoutes as grpcRoutes03 } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { A2AService as Service03 } from "../../generated-samples/v0.3.0/a2a_pb.js";
import * as v10 from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes as grpcRoutes10 } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { A2AService as Service10 } from "../../generated-samples/v1.0.1/a2a_pb.js";

const REQ = "urn:example:required/v1";
const OPT = "urn:example:optional/v1";
const OTHER = "urn:example:unknown/v1";

type Options = { readonly handler: never; readonly agentCard?: () => unknown; readonly requiredExtensions?: string[] };

/** One operation in every binding of a version. */
interface Call {
  readonly rpc: string;
  readonly localName: string;
  readonly jsonrpc: readonly [method: string, params: unknown];
  readonly rest: readonly [verb: string, path: string, body?: unknown];
  readonly grpc: Record<string, unknown>;
  readonly streaming: boolean;
}

interface Version {
  readonly name: "1.0" | "0.3";
  readonly http: (o: Options) => CoreHandler;
  readonly grpcRoutes: (o: Options) => ReturnType<typeof grpcRoutes10>;
  readonly service: DescService;
  readonly headers: Record<string, string>;
  readonly extHeader: string;
  readonly grpcExtKey: string;
  readonly hasErrorInfo: boolean;
  readonly send: Call;
  readonly stream: Call;
  readonly listPush: Call;
  readonly card: Call;
  readonly cardNamed: string;
  /** A card declaring every capability, or none, with a required and an optional extension. */
  readonly cardJson: (declared: boolean) => object;
}

const extensions = [
  { uri: REQ, required: true },
  { uri: OPT, description: "optional" },
];

const V10: Version = {
  name: "1.0",
  http: (o) => v10.createA2AServiceHttpHandler(o),
  grpcRoutes: (o) => grpcRoutes10(o),
  service: Service10,
  headers: { "A2A-Version": "1.0" },
  extHeader: "a2a-extensions",
  grpcExtKey: "a2a-extensions",
  hasErrorInfo: true,
  send: {
    rpc: "SendMessage",
    localName: "sendMessage",
    jsonrpc: ["SendMessage", { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } }],
    rest: ["POST", "/rest/message:send", { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } }],
    grpc: { message: { messageId: "m1", role: 1, parts: [{ content: { case: "text", value: "hi" } }] } },
    streaming: false,
  },
  stream: {
    rpc: "SendStreamingMessage",
    localName: "sendStreamingMessage",
    jsonrpc: ["SendStreamingMessage", { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } }],
    rest: [
      "POST",
      "/rest/message:stream",
      { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } },
    ],
    grpc: { message: { messageId: "m1", role: 1, parts: [{ content: { case: "text", value: "hi" } }] } },
    streaming: true,
  },
  listPush: {
    rpc: "ListTaskPushNotificationConfigs",
    localName: "listTaskPushNotificationConfigs",
    jsonrpc: ["ListTaskPushNotificationConfigs", { taskId: "t1" }],
    rest: ["GET", "/rest/tasks/t1/pushNotificationConfigs"],
    grpc: { taskId: "t1" },
    streaming: false,
  },
  card: {
    rpc: "GetExtendedAgentCard",
    localName: "getExtendedAgentCard",
    jsonrpc: ["GetExtendedAgentCard", {}],
    rest: ["GET", "/rest/extendedAgentCard"],
    grpc: {},
    streaming: false,
  },
  cardNamed: "capabilities.extendedAgentCard",
  cardJson: (declared) => ({
    name: "caps",
    capabilities: declared
      ? { streaming: true, pushNotifications: true, extendedAgentCard: true, extensions }
      : { streaming: false, extensions },
  }),
};

const V03: Version = {
  name: "0.3",
  http: (o) => v03.createA2AServiceHttpHandler(o),
  grpcRoutes: (o) => grpcRoutes03(o),
  service: Service03,
  headers: {},
  extHeader: "x-a2a-extensions",
  grpcExtKey: "x-a2a-extensions",
  hasErrorInfo: false,
  send: {
    rpc: "SendMessage",
    localName: "sendMessage",
    jsonrpc: [
      "message/send",
      { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] } },
    ],
    rest: [
      "POST",
      "/rest/v1/message:send",
      { message: { messageId: "m1", role: "ROLE_USER", content: [{ text: "hi" }] } },
    ],
    grpc: { request: { messageId: "m1", role: 1, content: [{ part: { case: "text", value: "hi" } }] } },
    streaming: false,
  },
  stream: {
    rpc: "SendStreamingMessage",
    localName: "sendStreamingMessage",
    jsonrpc: [
      "message/stream",
      { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] } },
    ],
    rest: [
      "POST",
      "/rest/v1/message:stream",
      { message: { messageId: "m1", role: "ROLE_USER", content: [{ text: "hi" }] } },
    ],
    grpc: { request: { messageId: "m1", role: 1, content: [{ part: { case: "text", value: "hi" } }] } },
    streaming: true,
  },
  listPush: {
    rpc: "ListTaskPushNotificationConfig",
    localName: "listTaskPushNotificationConfig",
    jsonrpc: ["tasks/pushNotificationConfig/list", { id: "t1" }],
    rest: ["GET", "/rest/v1/tasks/t1/pushNotificationConfigs"],
    grpc: { parent: "tasks/t1" },
    streaming: false,
  },
  card: {
    rpc: "GetAgentCard",
    localName: "getAgentCard",
    jsonrpc: ["agent/getAuthenticatedExtendedCard", {}],
    rest: ["GET", "/rest/v1/card"],
    grpc: {},
    streaming: false,
  },
  cardNamed: "supportsAuthenticatedExtendedCard",
  cardJson: (declared) => ({
    name: "caps",
    capabilities: declared ? { streaming: true, pushNotifications: true, extensions } : { extensions },
    ...(declared ? { supportsAuthenticatedExtendedCard: true } : {}),
  }),
};

/** The errors of this item, per version: JSON-RPC code, ErrorInfo reason (v1.0 only). */
const ERR = {
  push: { code: -32003, reason: "PUSH_NOTIFICATION_NOT_SUPPORTED" },
  unsupported: { code: -32004, reason: "UNSUPPORTED_OPERATION" },
  notConfigured: { code: -32007, reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED" },
  extension: { code: -32008, reason: "EXTENSION_SUPPORT_REQUIRED" },
} as const;
type Expected = { readonly code: number; readonly reason: string; readonly message: string };

/** What a call came back with, in any binding. */
interface Outcome {
  readonly ok: boolean;
  /** JSON-RPC code (JSON-RPC, HTTP+JSON v0.3), HTTP status (HTTP+JSON), gRPC code. */
  readonly code: number | undefined;
  readonly status: number | undefined;
  readonly message: string | undefined;
  readonly reason: string | undefined;
  /** The extensions header or metadata of the response. */
  readonly echo: string | null;
}

/** A server pair (HTTP and gRPC) of one version, with the operations its handler was called for. */
class Agent {
  readonly calls: string[] = [];
  private http!: Server;
  private grpc!: Http2Server;
  private base = "";
  private transport!: ReturnType<typeof createGrpcTransport>;
  private readonly sessions = new Set<ServerHttp2Session>();

  constructor(
    readonly v: Version,
    private readonly implemented: readonly Call[],
    private readonly card: (() => unknown) | undefined,
    private readonly requiredExtensions?: string[],
  ) {}

  async start(): Promise<void> {
    const task = { id: "t1", contextId: "c1", status: { state: 1 } };
    const handler: Record<string, unknown> = {};
    for (const c of this.implemented) {
      const calls = this.calls;
      handler[c.localName] = c.streaming
        ? async function* () {
            calls.push(c.rpc);
            yield { payload: { case: "task", value: task } };
          }
        : async () => {
            calls.push(c.rpc);
            return c === this.v.send ? { payload: { case: "task", value: task } } : { name: "caps" };
          };
    }
    const options: Options = {
      handler: handler as never,
      ...(this.card ? { agentCard: this.card } : {}),
      ...(this.requiredExtensions ? { requiredExtensions: this.requiredExtensions } : {}),
    };
    this.http = createServer(nodeHttpListener(this.v.http(options)));
    this.grpc = createHttp2Server(connectNodeAdapter({ routes: this.v.grpcRoutes(options), grpc: true }));
    this.grpc.on("session", (s: ServerHttp2Session) => {
      this.sessions.add(s);
      s.once("close", () => this.sessions.delete(s));
    });
    this.base = `http://127.0.0.1:${await listen(this.http)}`;
    this.transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${await listen(this.grpc)}` });
  }

  async stop(): Promise<void> {
    this.http.closeAllConnections();
    for (const s of this.sessions) s.destroy();
    await Promise.all([
      new Promise((resolve) => this.http.close(resolve)),
      new Promise((resolve) => this.grpc.close(resolve)),
    ]);
  }

  call(binding: Binding, c: Call, extensions?: string): Promise<Outcome> {
    const ext: Record<string, string> = extensions === undefined ? {} : { [this.v.extHeader]: extensions };
    if (binding === "JSONRPC") return this.jsonrpc(c, ext);
    if (binding === "HTTP+JSON") return this.rest(c, ext);
    const version = Object.fromEntries(Object.entries(this.v.headers).map(([k, x]) => [k.toLowerCase(), x]));
    return this.grpcCall(c, { ...version, ...(extensions === undefined ? {} : { [this.v.grpcExtKey]: extensions }) });
  }

  private async jsonrpc(c: Call, ext: Record<string, string>): Promise<Outcome> {
    const res = await fetch(`${this.base}/jsonrpc`, {
      method: "POST",
      headers: { "content-type": "application/json", ...this.v.headers, ...ext },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: c.jsonrpc[0], params: c.jsonrpc[1] }),
    });
    const text = await res.text();
    const echo = res.headers.get(this.v.extHeader);
    const body = JSON.parse(c.streaming && res.headers.get("content-type") === "text/event-stream" ? sse(text) : text);
    const info = Array.isArray(body.error?.data) ? body.error.data[0] : undefined;
    return {
      ok: "result" in body,
      code: body.error?.code,
      status: res.status,
      message: body.error?.message,
      reason: info?.reason,
      echo,
    };
  }

  private async rest(c: Call, ext: Record<string, string>): Promise<Outcome> {
    const [verb, path, body] = c.rest;
    const res = await fetch(`${this.base}${path}`, {
      method: verb,
      headers: { "content-type": "application/json", ...this.v.headers, ...ext },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const json = res.status === 200 ? {} : JSON.parse(text);
    // v1.0: google.rpc.Status with ErrorInfo; v0.3: the JSON-RPC error shape.
    const error = json.error ?? json;
    return {
      ok: res.status === 200,
      code: this.v.hasErrorInfo ? undefined : error.code,
      status: res.status,
      message: error.message,
      reason: error.details?.[0]?.reason,
      echo: res.headers.get(this.v.extHeader),
    };
  }

  private async grpcCall(c: Call, metadata: Record<string, string>): Promise<Outcome> {
    const client = createClient(this.v.service, this.transport) as unknown as Record<
      string,
      (req: unknown, opts: unknown) => unknown
    >;
    let echo: string | null = null;
    const opts = { headers: metadata, onHeader: (h: Headers) => (echo = h.get(this.v.grpcExtKey)) };
    try {
      const out = client[c.localName]!(c.grpc, opts);
      if (c.streaming) for await (const _ of out as AsyncIterable<unknown>);
      else await out;
      return { ok: true, code: undefined, status: undefined, message: undefined, reason: undefined, echo };
    } catch (e) {
      if (!(e instanceof ConnectError)) throw e;
      const info = e.findDetails(ErrorInfoSchema)[0] as { reason?: string } | undefined;
      return { ok: false, code: e.code, status: undefined, message: e.rawMessage, reason: info?.reason, echo };
    }
  }
}

type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";
const BINDINGS: Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
const FAILED_PRECONDITION = 9;

const listen = (server: Server | Http2Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

/** The JSON of the first `data:` line of an SSE body. */
function sse(text: string): string {
  const line = text.split("\n").find((l) => l.startsWith("data:"));
  if (!line) throw new Error(`no data line in ${JSON.stringify(text)}`);
  return line.slice(5).trim();
}

/** Asserts the exact error of a binding: JSON-RPC code, HTTP 400 with ErrorInfo, gRPC FAILED_PRECONDITION. */
function expectError(v: Version, binding: Binding, out: Outcome, want: Expected): void {
  expect(out.ok, JSON.stringify(out)).toBe(false);
  expect(out.message).toBe(want.message);
  // v0.3 has ErrorInfo on gRPC only (the v0.3 error catalog's decision), named by v1.0's rule.
  const v03Reason = want.reason.replace("EXTENDED_AGENT_CARD", "AUTHENTICATED_EXTENDED_CARD");
  expect(out.reason).toBe(v.hasErrorInfo ? want.reason : binding === "GRPC" ? v03Reason : undefined);
  if (binding === "JSONRPC") expect([out.status, out.code]).toEqual([200, want.code]);
  if (binding === "HTTP+JSON") expect([out.status, out.code]).toEqual([400, v.hasErrorInfo ? undefined : want.code]);
  if (binding === "GRPC") expect(out.code).toBe(FAILED_PRECONDITION);
}

describe.each([V10, V03])("A2A $name", (v) => {
  /** Implements SendMessage and SendStreamingMessage only; its card declares every capability. */
  const partial = new Agent(v, [v.send, v.stream], () => card(true));
  /** Implements everything; its card declares no capability. */
  const full = new Agent(v, [v.send, v.stream, v.listPush, v.card], () => card(false));
  const cards = new Map<boolean, object>();
  const card = (declared: boolean) => cards.get(declared) ?? cards.set(declared, v.cardJson(declared)).get(declared)!;
  const notImplemented = (c: Call) => `${c.rpc} is not implemented`;
  const undeclared = (c: Call, member: string) => `${c.rpc} needs ${member}, which the agent card does not declare`;
  const extNotConfigured =
    v.name === "1.0" ? "ExtendedAgentCardNotConfiguredError" : "AuthenticatedExtendedCardNotConfiguredError";

  beforeAll(async () => {
    await partial.start();
    await full.start();
  });
  afterAll(async () => {
    await partial.stop();
    await full.stop();
  });

  describe.each(BINDINGS)("%s", (binding) => {
    it("a missing push config method is PushNotificationNotSupportedError", async () => {
      const out = await partial.call(binding, v.listPush, REQ);
      expectError(v, binding, out, { ...ERR.push, message: notImplemented(v.listPush) });
    });

    it(`a missing extended card method is ${extNotConfigured} (-32007)`, async () => {
      const out = await partial.call(binding, v.card, REQ);
      expectError(v, binding, out, { ...ERR.notConfigured, message: notImplemented(v.card) });
    });

    it("capabilities the card does not declare are refused before the handler runs", async () => {
      const before = full.calls.length;
      const stream = await full.call(binding, v.stream, REQ);
      expectError(v, binding, stream, { ...ERR.unsupported, message: undeclared(v.stream, "capabilities.streaming") });
      const push = await full.call(binding, v.listPush, REQ);
      expectError(v, binding, push, { ...ERR.push, message: undeclared(v.listPush, "capabilities.pushNotifications") });
      const ext = await full.call(binding, v.card, REQ);
      expectError(v, binding, ext, { ...ERR.unsupported, message: undeclared(v.card, v.cardNamed) });
      expect(full.calls.length).toBe(before);
      // The same handler serves an operation the card does not restrict.
      expect((await full.call(binding, v.send, REQ)).ok).toBe(true);
      expect(full.calls.slice(before)).toEqual(["SendMessage"]);
    });

    it("the declared extensions the card lists are echoed, in the order sent", async () => {
      const before = partial.calls.length;
      const unary = await partial.call(binding, v.send, `${OTHER}, ${OPT}, ${REQ}`);
      expect(unary).toMatchObject({ ok: true, echo: `${OPT}, ${REQ}` });
      const stream = await partial.call(binding, v.stream, `${REQ},${OTHER}`);
      expect(stream).toMatchObject({ ok: true, echo: REQ });
      expect(partial.calls.slice(before)).toEqual(["SendMessage", "SendStreamingMessage"]);
    });

    if (v.name === "1.0") {
      it("a call without the extension the card requires is refused before the handler runs", async () => {
        const before = partial.calls.length;
        for (const declared of [undefined, OPT]) {
          const out = await partial.call(binding, v.send, declared);
          expectError(v, binding, out, { ...ERR.extension, message: `Required extension not declared: ${REQ}` });
          expect(out.echo).toBeNull();
        }
        expect(partial.calls.length).toBe(before);
      });
    } else {
      it("v0.3 has no ExtensionSupportRequiredError: a call without the required extension is served", async () => {
        const out = await partial.call(binding, v.send);
        expect(out).toMatchObject({ ok: true, echo: null });
      });
    }
  });
});

describe("requiredExtensions and the card provider (v1.0, JSON-RPC)", () => {
  let current: object = V10.cardJson(false);
  const overridden = new Agent(V10, [V10.send, V10.stream], () => current, []);
  beforeAll(() => overridden.start());
  afterAll(() => overridden.stop());

  it("requiredExtensions replaces the card's required extensions; the card's list is still echoed", async () => {
    expect(await overridden.call("JSONRPC", V10.send)).toMatchObject({ ok: true, echo: null });
    expect(await overridden.call("JSONRPC", V10.send, OPT)).toMatchObject({ ok: true, echo: OPT });
  });

  it("a new card object is read again: declaring streaming lets the call through", async () => {
    const refused = await overridden.call("JSONRPC", V10.stream);
    expect([refused.ok, refused.code]).toEqual([false, ERR.unsupported.code]);
    current = V10.cardJson(true);
    expect(await overridden.call("JSONRPC", V10.stream)).toMatchObject({ ok: true });
    expect(overridden.calls).toEqual(["SendMessage", "SendMessage", "SendStreamingMessage"]);
  });
});
