/**
 * Two principals end to end (issue acceptance item): a real OpenID Connect
 * provider (oidc-provider, helpers/oidc.ts) issues client-credentials tokens
 * that the agent verifies (authenticate + jwtBearer against the card's
 * openIdConnect scheme), and tasks are scoped to their caller
 * (createTaskHandler's default policy). On the memory store and on
 * PostgreSQL, over JSON-RPC, HTTP+JSON and gRPC at A2A 1.0 and 0.3 (the
 * version bridge), bob cannot get, list, cancel, subscribe to, continue, or
 * create, get, list and delete the push configs of alice's task: each such
 * call answers TaskNotFoundError with a missing task's message, while the same
 * call by alice works and her task is as it was. The v1.0 clients are made
 * from the served card with client credentials (createA2AServiceClientForCard
 * fetches the tokens from the provider); the v0.3 clients send a bearer token
 * from the provider. Expired, wrong-audience, wrong-issuer, alg:none,
 * unsigned and tampered tokens are refused with UnauthenticatedError on
 * every binding and version. v0.3 has no ListTasks: listing is checked at 1.0.
 */
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, type SchemeCredential } from "@protoc-gen-a2a/runtime";
import type { TaskStore } from "@protoc-gen-a2a/runtime/task";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientForOlder } from "../../generated-samples/a2a_compat.js";
import { createA2AServiceGrpcClient as createV03GrpcClient } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import { createA2AServiceJsonRpcClient as createV03JsonRpcClient } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { createA2AServiceRestClient as createV03RestClient } from "../../generated-samples/v0.3.0/a2a_rest.js";
import { type A2AServiceClient, createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type HostileTokenKind, type OidcProviderHandle, startOidcProvider } from "../helpers/oidc.js";
import { BACKENDS, firstOf, refusal, TaskState, taskOf } from "../helpers/scoping-agent.js";
import { SCHEME, startTwoPrincipalAgent, type TwoPrincipalAgent } from "../helpers/two-principal-agent.js";

const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const;
type Binding = (typeof BINDINGS)[number];
const VERSIONS = ["1.0", "0.3"] as const;
type Version = (typeof VERSIONS)[number];

interface Way {
  readonly binding: Binding;
  readonly version: Version;
  /** For test names and webhook paths. */
  readonly name: string;
}

const WAYS: readonly Way[] = VERSIONS.flatMap((version) =>
  BINDINGS.map((binding) => ({ binding, version, name: `${binding} ${version}` })),
);

const PRINCIPALS = ["alice", "bob"] as const;
type Who = (typeof PRINCIPALS)[number];
const CLIENT_IDS: Record<Who, string> = { alice: "alice-agent", bob: "bob-agent" };

const HOSTILE: readonly HostileTokenKind[] = [
  "expired",
  "wrong-audience",
  "wrong-issuer",
  "alg-none",
  "unsigned",
  "tampered",
];

/** TaskNotFoundError as a missing task answers it. */
const notFound = (id: string) => ({ type: "TaskNotFoundError", message: `Task ${id} not found` });

const text = (t: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
});

/** Every call of one way's clients, for one principal, the other, or a token given as it is. */
interface WayClients {
  readonly alice: A2AServiceClient;
  readonly bob: A2AServiceClient;
  withToken(token: string): A2AServiceClient;
}

let provider: OidcProviderHandle;
/** Each principal's access token from the provider, for the v0.3 clients' Authorization header. */
const tokens = new Map<Who, string>();
const hostile = new Map<HostileTokenKind, string>();

beforeAll(async () => {
  provider = await startOidcProvider();
  for (const who of PRINCIPALS) tokens.set(who, await provider.token(CLIENT_IDS[who]));
  for (const kind of HOSTILE) hostile.set(kind, await provider.hostileToken(kind, CLIENT_IDS.alice));
});

afterAll(async () => {
  await provider?.close();
});

/** The served card in one version's form (A2A-Version picks it). */
async function servedCard(agent: TwoPrincipalAgent, version: Version): Promise<unknown> {
  const res = await fetch(agent.cardUrl, { headers: { "A2A-Version": version } });
  expect(res.status).toBe(200);
  return res.json();
}

/** A v1.0 client made from the card for `binding`, sending `credential` for the card's scheme. */
function v10Client(card: unknown, binding: Binding, credential: SchemeCredential): A2AServiceClient {
  const { client, selected } = createA2AServiceClientForCard(card, {
    bindings: [binding],
    credentials: { [SCHEME]: credential },
    grpcTransport: (baseUrl) => createGrpcTransport({ baseUrl }),
  });
  expect([selected.binding, selected.protocolVersion]).toEqual([binding, "1.0"]);
  return client;
}

/** A v0.3 client for `binding` with `token` as its bearer, seen through the client bridge with v1.0 types. */
function v03Client(agent: TwoPrincipalAgent, binding: Binding, token: string): A2AServiceClient {
  const headers = { authorization: `Bearer ${token}` };
  if (binding === "JSONRPC") return clientForOlder(createV03JsonRpcClient({ url: agent.jsonrpcUrl, headers }));
  if (binding === "HTTP+JSON") return clientForOlder(createV03RestClient({ url: agent.restUrl, headers }));
  return clientForOlder(createV03GrpcClient(createGrpcTransport({ baseUrl: agent.grpcUrl }), { headers }));
}

async function clientsOf(agent: TwoPrincipalAgent, way: Way): Promise<WayClients> {
  if (way.version === "0.3") {
    return {
      alice: v03Client(agent, way.binding, tokens.get("alice") ?? ""),
      bob: v03Client(agent, way.binding, tokens.get("bob") ?? ""),
      withToken: (token) => v03Client(agent, way.binding, token),
    };
  }
  const card = await servedCard(agent, "1.0");
  const grant = (who: Who) => {
    const registered = provider.clients.get(CLIENT_IDS[who]);
    if (registered === undefined) throw new Error(`the provider has no client ${CLIENT_IDS[who]}`);
    return { clientId: registered.id, clientSecret: registered.secret, allowInsecureRequests: true };
  };
  return {
    alice: v10Client(card, way.binding, grant("alice")),
    bob: v10Client(card, way.binding, grant("bob")),
    withToken: (token) => v10Client(card, way.binding, token),
  };
}

/** A new task of `client`'s principal, left INPUT_REQUIRED. */
async function openTask(client: A2AServiceClient, contextId = "") {
  const message = { ...text("ask"), contextId };
  const task = taskOf(await client.sendMessage({ message }));
  expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
  return task;
}

const UNAUTHENTICATED = "UnauthenticatedError";

/** How a call ended: "admitted", the A2AError's type, or what else it threw. */
const outcome = (call: Promise<unknown>): Promise<string> =>
  call.then(
    () => "admitted",
    (e: unknown) => (e instanceof A2AError ? e.type : String(e)),
  );

/** Waits, a bounded number of rounds, until `ready()`; fails the test if it never is. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let round = 0; round < 200 && !ready(); round++) await new Promise((r) => setTimeout(r, 25));
  expect(ready(), what).toBe(true);
}

describe.each(BACKENDS)("two principals, $name store", (backend) => {
  let store: TaskStore;
  let agent: TwoPrincipalAgent;
  const clients = new Map<string, WayClients>();
  const clientsAt = (name: string) => {
    const found = clients.get(name);
    if (found === undefined) throw new Error(`no clients for ${name}`);
    return found;
  };

  beforeAll(async () => {
    store = await backend.make();
    agent = await startTwoPrincipalAgent(store, provider);
    for (const way of WAYS) clients.set(way.name, await clientsOf(agent, way));
  });

  afterAll(async () => {
    await agent?.close();
    await store?.close();
    expect(agent?.failures ?? []).toEqual([]);
  });

  describe.each(WAYS)("over $name", (way) => {
    const c = () => clientsAt(way.name);

    it("GetTask: bob's is TaskNotFoundError, as for a missing task; alice's answers her task", async () => {
      const { alice, bob } = c();
      const task = await openTask(alice);
      expect((await alice.getTask({ id: task.id })).id).toBe(task.id);
      expect(await refusal(bob.getTask({ id: task.id }))).toEqual(notFound(task.id));
      expect(await refusal(bob.getTask({ id: "no-such-task" }))).toEqual(notFound("no-such-task"));
    });

    it("ListTasks: bob's leaves alice's task out, with and without contextId; alice's has it", async () => {
      const { alice, bob } = c();
      const task = await openTask(alice);
      const bobs = await openTask(bob, task.contextId);
      expect(bobs.contextId).toBe(task.contextId);
      // v0.3 has no ListTasks: the tasks made at 0.3 are listed by the same binding's 1.0 clients.
      const lister = way.version === "1.0" ? c() : clientsAt(`${way.binding} 1.0`);
      const ids = async (who: Who, contextId = "") =>
        (await lister[who].listTasks({ contextId, pageSize: 100 })).tasks.map((t) => t.id);
      expect(await ids("alice")).toContain(task.id);
      expect(await ids("alice")).not.toContain(bobs.id);
      expect(await ids("alice", task.contextId)).toEqual([task.id]);
      expect(await ids("bob")).toContain(bobs.id);
      expect(await ids("bob")).not.toContain(task.id);
      expect(await ids("bob", task.contextId)).toEqual([bobs.id]);
    });

    it("CancelTask: bob's is TaskNotFoundError and leaves the task open; alice's cancels it", async () => {
      const { alice, bob } = c();
      const task = await openTask(alice);
      expect(await refusal(bob.cancelTask({ id: task.id }))).toEqual(notFound(task.id));
      expect((await alice.getTask({ id: task.id })).status?.state).toBe(TaskState.INPUT_REQUIRED);
      expect((await alice.cancelTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
    });

    it("SubscribeToTask: bob's stream fails with TaskNotFoundError; alice's starts with her task", async () => {
      const { alice, bob } = c();
      const task = await openTask(alice);
      expect(await refusal(firstOf(bob.subscribeToTask({ id: task.id })))).toEqual(notFound(task.id));
      const first = await firstOf(alice.subscribeToTask({ id: task.id }));
      expect(first?.payload.case === "task" && first.payload.value.id).toBe(task.id);
    });

    it("SendMessage: bob's message to alice's task is TaskNotFoundError and does not join it", async () => {
      const { alice, bob } = c();
      const task = await openTask(alice);
      const before = (await alice.getTask({ id: task.id })).history.length;
      expect(before).toBeGreaterThan(0);
      const continued = { ...text("answer"), taskId: task.id, contextId: task.contextId };
      expect(await refusal(bob.sendMessage({ message: continued }))).toEqual(notFound(task.id));
      const streamed = bob.sendStreamingMessage({ message: { ...continued, messageId: crypto.randomUUID() } });
      expect(await refusal(firstOf(streamed))).toEqual(notFound(task.id));
      const after = await alice.getTask({ id: task.id });
      expect([after.history.length, after.status?.state]).toEqual([before, TaskState.INPUT_REQUIRED]);
      const answered = taskOf(await alice.sendMessage({ message: { ...continued, messageId: crypto.randomUUID() } }));
      expect([answered.id, answered.status?.state]).toEqual([task.id, TaskState.COMPLETED]);
    });

    it("push configs: bob can create, get, list and delete none on alice's task; hers is delivered", async () => {
      const { alice, bob } = c();
      const task = await openTask(alice);
      const slug = way.name.replace(/[^A-Za-z0-9.]+/g, "-");
      const hers = `/alice/${slug}/${task.id}`;
      const his = `/bob/${slug}/${task.id}`;
      const made = await alice.createTaskPushNotificationConfig({
        taskId: task.id,
        id: "alice-hook",
        url: `${agent.webhookUrl}${hers}`,
      });
      expect([made.taskId, made.id]).toEqual([task.id, "alice-hook"]);
      const configIds = async () =>
        (await alice.listTaskPushNotificationConfigs({ taskId: task.id })).configs.map((x) => x.id);

      const create = bob.createTaskPushNotificationConfig({
        taskId: task.id,
        id: "bob-hook",
        url: agent.webhookUrl + his,
      });
      expect(await refusal(create)).toEqual(notFound(task.id));
      const get = bob.getTaskPushNotificationConfig({ taskId: task.id, id: "alice-hook" });
      expect(await refusal(get)).toEqual(notFound(task.id));
      expect(await refusal(bob.listTaskPushNotificationConfigs({ taskId: task.id }))).toEqual(notFound(task.id));
      const del = bob.deleteTaskPushNotificationConfig({ taskId: task.id, id: "alice-hook" });
      expect(await refusal(del)).toEqual(notFound(task.id));
      const withHook = bob.sendMessage({
        message: { ...text("answer"), taskId: task.id },
        configuration: { taskPushNotificationConfig: { url: agent.webhookUrl + his } },
      });
      expect(await refusal(withHook)).toEqual(notFound(task.id));

      expect(await configIds()).toEqual(["alice-hook"]);
      const got = await alice.getTaskPushNotificationConfig({ taskId: task.id, id: "alice-hook" });
      expect(got.url).toBe(`${agent.webhookUrl}${hers}`);
      // Her config works: her answer completes the task and is pushed to her webhook, none to his.
      const answered = taskOf(await alice.sendMessage({ message: { ...text("answer"), taskId: task.id } }));
      expect(answered.status?.state).toBe(TaskState.COMPLETED);
      await until(() => agent.deliveries.includes(hers), `a delivery to ${hers}`);
      expect(agent.deliveries.filter((p) => p.startsWith("/bob/"))).toEqual([]);
      await alice.deleteTaskPushNotificationConfig({ taskId: task.id, id: "alice-hook" });
      expect(await configIds()).toEqual([]);
    });

    it("refuses expired, wrong-audience, wrong-issuer, alg:none, unsigned and tampered tokens", async () => {
      const { alice, withToken } = c();
      const task = await openTask(alice);
      for (const kind of HOSTILE) {
        const mallory = withToken(hostile.get(kind) ?? "");
        expect(await outcome(mallory.getTask({ id: task.id })), `GetTask, ${kind} token`).toBe(UNAUTHENTICATED);
        const sent = mallory.sendMessage({ message: text("ask") });
        expect(await outcome(sent), `SendMessage, ${kind} token`).toBe(UNAUTHENTICATED);
      }
      // The same call with alice's own token is admitted.
      const own = withToken(tokens.get("alice") ?? "");
      expect((await own.getTask({ id: task.id })).id).toBe(task.id);
    });
  });
});
