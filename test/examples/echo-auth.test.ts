/**
 * The example agent protected from the environment (auth-env.ts), as `npm run example` runs it (a child process
 * from dist-examples/):
 *   API_KEYS, a file with two principals, alice and bob: the card (v1.0 and v0.3 forms) declares the API key in
 *     X-API-Key and requires it; a call without it, or with a wrong one, is refused on JSON-RPC (1.0, and 0.3
 *     without A2A-Version), HTTP+JSON and gRPC; alice's task is not bob's to see, list or cancel; the extended
 *     card names its caller
 *   OIDC_ISSUER and OIDC_AUDIENCE, with a real OpenID provider (helpers/oidc.ts): a client-credentials token
 *     admits a call and its subject names the caller on the extended card; an expired token is refused
 *   a bad value (API_KEYS unreadable, a line of three words, a key given twice; OIDC_ISSUER without
 *     OIDC_AUDIENCE) ends the agent at start with exit code 1 and one line on stderr naming it
 */
import { spawnSync } from "node:child_process";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { A2AService, Role, TaskState, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import {
  apiKeysFile,
  EXAMPLE_MAIN,
  startExampleProcess,
  stopAllExampleProcesses,
  type ExampleProcess,
} from "../helpers/example-process.js";
import { readJson, type JsonRpcFailure, type RestError } from "../helpers/json.js";
import { startOidcProvider, type OidcProviderHandle } from "../helpers/oidc.js";

afterAll(() => stopAllExampleProcesses());

const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const;
type Binding = (typeof BINDINGS)[number];

const KEYS = { alice: "alice-key", bob: "bob-key" } as const;
const API_KEY_CHALLENGE = 'ApiKey realm="a2a", in="header", name="X-API-Key"';

/** The generated clients of a running agent, each sending `headers` (gRPC: as metadata, so lowercase names). */
function clientsOf(agent: ExampleProcess, headers: Record<string, string> = {}): Record<Binding, A2AServiceClient> {
  return {
    JSONRPC: createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc, headers }),
    "HTTP+JSON": createA2AServiceRestClient({ url: agent.urls.rest, headers }),
    GRPC: createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` }), { headers }),
  };
}

const keyOf = (principal: keyof typeof KEYS) => ({ "x-api-key": KEYS[principal] });

/** What a call rejected with; undefined when it did not. */
const failure = (call: () => Promise<unknown>): Promise<unknown> =>
  call().then(
    () => undefined,
    (e: unknown) => e,
  );

const text = (t: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
});

const rpc = (url: string, method: string, params: unknown, headers: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

/** A gRPC call of the agent's 1.0 service with `metadata`, and what it failed with. */
async function grpcFailure(agent: ExampleProcess, metadata: Record<string, string>): Promise<unknown> {
  const raw = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` }));
  return failure(() => raw.listTasks({}, { headers: { "a2a-version": "1.0", ...metadata } }));
}

describe("the example agent with API_KEYS", () => {
  let agent: ExampleProcess;
  beforeAll(async () => {
    agent = await startExampleProcess({ API_KEYS: apiKeysFile(KEYS) });
  });
  afterAll(() => agent?.stop());

  it("declares the API key and requires it on its card, in the v1.0 and the v0.3 form", async () => {
    const v10 = await readJson<Record<string, unknown>>(fetch(agent.urls.card, { headers: { "A2A-Version": "1.0" } }));
    expect(v10).toMatchObject({
      securitySchemes: { apiKey: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } } },
      securityRequirements: [{ schemes: { apiKey: {} } }],
      capabilities: { extendedAgentCard: true },
    });
    const v03 = await readJson<Record<string, unknown>>(fetch(agent.urls.card, { headers: { "A2A-Version": "0.3" } }));
    expect(v03).toMatchObject({
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-API-Key" } },
      security: [{ apiKey: [] }],
      supportsAuthenticatedExtendedCard: true,
    });
  });

  it("refuses a JSON-RPC call without the key or with a wrong one: 401, the challenge, -32040", async () => {
    const calls: [string, Response][] = [
      ["1.0 without the key", await rpc(agent.urls.jsonrpc, "ListTasks", {}, { "A2A-Version": "1.0" })],
      [
        "1.0 with a wrong key",
        await rpc(agent.urls.jsonrpc, "ListTasks", {}, { "A2A-Version": "1.0", "X-API-Key": "not-a-key" }),
      ],
      // No A2A-Version: a v0.3 call, through the bridge, refused the same way.
      ["0.3 without the key", await rpc(agent.urls.jsonrpc, "tasks/get", { id: "x" }, {})],
    ];
    for (const [what, res] of calls) {
      expect(res.status, what).toBe(401);
      expect(res.headers.get("www-authenticate"), what).toBe(API_KEY_CHALLENGE);
      expect((await readJson<JsonRpcFailure>(res)).error, what).toMatchObject({
        code: -32040,
        message: expect.stringContaining("Authentication required"),
      });
    }
  });

  it("refuses an HTTP+JSON call without the key: 401, the challenge, UNAUTHENTICATED", async () => {
    const res = await fetch(`${agent.urls.rest}/tasks`, { headers: { "A2A-Version": "1.0" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(API_KEY_CHALLENGE);
    expect((await readJson<RestError>(res)).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
  });

  it("refuses a gRPC call without the key, or with a wrong one: UNAUTHENTICATED", async () => {
    for (const metadata of [{}, { "x-api-key": "not-a-key" }]) {
      const e = await grpcFailure(agent, metadata);
      expect(e, JSON.stringify(metadata)).toBeInstanceOf(ConnectError);
      expect((e as ConnectError).code, JSON.stringify(metadata)).toBe(Code.Unauthenticated);
    }
    // The same call with the key is admitted.
    expect(await grpcFailure(agent, keyOf("alice"))).toBeUndefined();
  });

  it("refuses every binding's generated client without the key with UnauthenticatedError", async () => {
    for (const [binding, client] of Object.entries(clientsOf(agent))) {
      const e = await failure(() => client.sendMessage({ message: text("unkeyed") }));
      expect(e, binding).toBeInstanceOf(A2AError);
      expect(e, binding).toMatchObject({ type: "UnauthenticatedError" });
    }
  });

  it("answers each caller's extended card with the caller's principal", async () => {
    for (const principal of ["alice", "bob"] as const) {
      for (const [binding, client] of Object.entries(clientsOf(agent, keyOf(principal)))) {
        const card = await client.getExtendedAgentCard({});
        expect(card.description, `${principal} over ${binding}`).toContain(`Extended card for principal ${principal}.`);
        expect(card.skills.map((s) => s.id)).toContain("echo-extended");
      }
    }
  });

  it("keeps alice's task from bob: GetTask and CancelTask are TaskNotFoundError, ListTasks leaves it out", async () => {
    const alice = clientsOf(agent, keyOf("alice"));
    const bob = clientsOf(agent, keyOf("bob"));
    const sent = await alice.JSONRPC.sendMessage({ message: text("wait"), configuration: { returnImmediately: true } });
    const task = sent.payload.value as Task;
    try {
      // Task scoping is the runtime's (packages/runtime/src/task, access.ts: owner = principal id by default).
      const scoping = (what: string, binding: Binding) =>
        `${what} over ${binding}: bob must not reach alice's task (task scoping to the caller, S10 §13.1)`;
      for (const binding of BINDINGS) {
        const got = await failure(() => bob[binding].getTask({ id: task.id }));
        expect(got, scoping("GetTask", binding)).toMatchObject({ type: "TaskNotFoundError" });
        const list = await bob[binding].listTasks({});
        expect(
          list.tasks.map((t) => t.id),
          scoping("ListTasks", binding),
        ).not.toContain(task.id);
        const inContext = await bob[binding].listTasks({ contextId: task.contextId });
        expect(inContext.tasks, scoping("ListTasks in the task's context", binding)).toEqual([]);
        const canceled = await failure(() => bob[binding].cancelTask({ id: task.id }));
        expect(canceled, scoping("CancelTask", binding)).toMatchObject({ type: "TaskNotFoundError" });
      }
      // Alice still sees it, untouched by bob's cancel.
      expect((await alice.GRPC.getTask({ id: task.id })).status?.state).toBe(TaskState.WORKING);
      const hers = await alice["HTTP+JSON"].listTasks({ contextId: task.contextId });
      expect(hers.tasks.map((t) => t.id)).toEqual([task.id]);
    } finally {
      await alice.JSONRPC.cancelTask({ id: task.id });
    }
  });
});

describe("the example agent with OIDC_ISSUER and OIDC_AUDIENCE", () => {
  let provider: OidcProviderHandle;
  let agent: ExampleProcess;
  beforeAll(async () => {
    provider = await startOidcProvider();
    agent = await startExampleProcess({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: provider.audience });
  });
  afterAll(async () => {
    await agent?.stop();
    await provider?.close();
  });

  it("declares OpenID Connect at the issuer and requires it on its card", async () => {
    const card = await readJson<Record<string, unknown>>(fetch(agent.urls.card, { headers: { "A2A-Version": "1.0" } }));
    expect(card).toMatchObject({
      securitySchemes: { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: provider.discoveryUrl } } },
      securityRequirements: [{ schemes: { oidc: {} } }],
    });
  });

  it("admits a client-credentials token, and names its subject (the client id) on the extended card", async () => {
    const token = await provider.token("alice-agent");
    for (const [binding, client] of Object.entries(clientsOf(agent, { authorization: `Bearer ${token}` }))) {
      const card = await client.getExtendedAgentCard({});
      expect(card.description, binding).toContain("Extended card for principal alice-agent.");
    }
  });

  it("refuses an expired token: 401 with an invalid_token challenge, -32040, gRPC UNAUTHENTICATED", async () => {
    const expired = await provider.hostileToken("expired", "alice-agent");
    const res = await rpc(
      agent.urls.jsonrpc,
      "GetExtendedAgentCard",
      {},
      {
        "A2A-Version": "1.0",
        authorization: `Bearer ${expired}`,
      },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="a2a", error="invalid_token"');
    expect((await readJson<JsonRpcFailure>(res)).error.code).toBe(-32040);
    const e = await grpcFailure(agent, { authorization: `Bearer ${expired}` });
    expect(e).toBeInstanceOf(ConnectError);
    expect((e as ConnectError).code).toBe(Code.Unauthenticated);
  });
});

describe("the example agent's start with a bad API_KEYS or OIDC_ISSUER", () => {
  /** Runs main.js with `env` over a clean environment; it must end at once. */
  const start = (env: Record<string, string>) => {
    const base: NodeJS.ProcessEnv = { ...process.env, PORT: "0", GRPC_PORT: "0" };
    for (const name of ["API_KEYS", "OIDC_ISSUER", "OIDC_AUDIENCE"]) delete base[name];
    return spawnSync(process.execPath, [EXAMPLE_MAIN], { env: { ...base, ...env }, encoding: "utf8", timeout: 30_000 });
  };

  const missing = `${apiKeysFile(KEYS)}.missing`;
  const threeWords = apiKeysFile("# alice and bob\nalice-key alice\nbob-key bob extra\n");
  const twice = apiKeysFile("alice-key alice\n\nalice-key bob\n");
  it.each([
    ["an unreadable file", { API_KEYS: missing }, `API_KEYS=${JSON.stringify(missing)} cannot be read (ENOENT)`],
    ["a line of three words", { API_KEYS: threeWords }, `API_KEYS ${threeWords}:3: expected "<key> <principal-id>"`],
    ["a key given twice", { API_KEYS: twice }, `API_KEYS ${twice}:3: the key of principal bob is given twice`],
    [
      "OIDC_ISSUER without OIDC_AUDIENCE",
      { OIDC_ISSUER: "http://127.0.0.1:9" },
      "OIDC_ISSUER is set without OIDC_AUDIENCE",
    ],
  ])("%s: exit code 1, one line on stderr naming it", (_, env, named) => {
    const r = start(env);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(`echo agent: ${named}`), lines[0]).toBe(true);
  });
});
