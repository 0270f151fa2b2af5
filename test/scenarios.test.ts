/**
 * The interop scenarios I1–I14 of the reference (seeds/, section 6): server
 * scenarios against the echo example agent (and, for I7/I8/I14, small servers
 * built from the same generated stubs), client scenarios with the generated
 * clients.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { ErrorInfoSchema, selectInterface } from "@protoc-gen-a2a/runtime/protocol";
import {
  createA2AServiceClientForCard,
  createA2AServiceHttpHandler,
  type A2AServiceClient,
  type A2AServiceHandler,
} from "../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v1.0.1/a2a_rest.js";
import { createA2AServiceGrpcClient } from "../generated-samples/v1.0.1/a2a_grpc.js";
import { A2AService, Role, TaskState, type StreamResponse, type Task } from "../generated-samples/v1.0.1/a2a_pb.js";
import { startEchoAgent, type RunningAgent } from "../examples/echo-agent/server.js";
import { createEchoHandler } from "../examples/echo-agent/echo-handler.js";
import {
  readJson,
  type AgentCardJson,
  type JsonRpcFailure,
  type JsonRpcSuccess,
  type ListTasksResponseJson,
  type RestError,
  type SendMessageTaskJson,
  type TaskJson,
} from "./helpers/json.js";

const V = { "A2A-Version": "1.0" };
const textMessage = (t: string, extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: "ROLE_USER",
  parts: [{ text: t }],
  ...extra,
});
const rpc = (url: string, method: string, params: unknown, headers: Record<string, string> = V) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

let agent: RunningAgent;
const grpcTransport = () => createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` });
const clients = () => ({
  JSONRPC: createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc }),
  "HTTP+JSON": createA2AServiceRestClient({ url: agent.urls.rest }),
  GRPC: createA2AServiceGrpcClient(grpcTransport(), {}),
});

beforeAll(async () => {
  agent = await startEchoAgent();
});
afterAll(() => agent?.close());

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A REST client on `base`, a task that waits (sent with returnImmediately), and its subscription past its task. */
async function subscribedToWaitingTask(base: string) {
  const client = createA2AServiceRestClient({ url: base });
  const sent = await client.sendMessage({
    message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "wait" } }] },
    configuration: { returnImmediately: true },
  });
  const id = (sent.payload.value as Task).id;
  const it = client.subscribeToTask({ id })[Symbol.asyncIterator]();
  expect((await it.next()).value?.payload.case).toBe("task");
  return { client, id, it };
}

describe("server scenarios", () => {
  it("I1: the same message over every binding gives equivalent results", async () => {
    const results = await Promise.all(
      Object.values(clients()).map(async (c) => {
        const res = await c.sendMessage({
          message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "same" } }] },
        });
        const task = res.payload.value as Task;
        return { state: task.status?.state, artifacts: task.artifacts.map((a) => a.parts.map((p) => p.content.value)) };
      }),
    );
    expect(results).toEqual(Array(3).fill({ state: TaskState.COMPLETED, artifacts: [["same"]] }));
  });

  it("I2: an unknown task gives each binding's native code plus ErrorInfo TASK_NOT_FOUND", async () => {
    const j = await readJson<JsonRpcFailure>(rpc(agent.urls.jsonrpc, "GetTask", { id: "nope" }));
    expect(j.error).toMatchObject({
      code: -32001,
      data: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" },
      ],
    });

    const r = await fetch(`${agent.urls.rest}/tasks/nope`, { headers: V });
    expect(r.status).toBe(404);
    expect(r.headers.get("content-type")).toBe("application/a2a+json");
    expect(await r.json()).toMatchObject({
      error: { code: 404, status: "NOT_FOUND", details: [{ reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }] },
    });

    const raw = createClient(A2AService, grpcTransport());
    const e = await raw.getTask({ id: "nope" }, { headers: { "a2a-version": "1.0" } }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ConnectError);
    expect((e as ConnectError).code).toBe(Code.NotFound);
    expect((e as ConnectError).findDetails(ErrorInfoSchema)[0]).toMatchObject({
      reason: "TASK_NOT_FOUND",
      domain: "a2a-protocol.org",
    });

    for (const c of Object.values(clients())) {
      await expect(c.getTask({ id: "nope" })).rejects.toMatchObject({
        type: "TaskNotFoundError",
        options: { reason: "TASK_NOT_FOUND" },
      });
    }
  });

  it("I3: a 1.0-only interface answers VersionNotSupportedError when no A2A-Version is sent", async () => {
    // The example agent also speaks 0.3 at the same URLs, so a 1.0-only server built from the same stubs answers here.
    const only10 = createServer(
      nodeHttpListener(
        createA2AServiceHttpHandler({ handler: createEchoHandler(), jsonrpcPath: "/rpc", restBasePath: "/rest" }),
      ),
    );
    const base = await listen(only10);
    try {
      expect((await readJson<JsonRpcFailure>(rpc(`${base}/rpc`, "GetTask", { id: "x" }, {}))).error.code).toBe(-32009);
      const r = await fetch(`${base}/rest/tasks/x`);
      expect(r.status).toBe(400);
      expect((await readJson<RestError>(r)).error.details[0]!.reason).toBe("VERSION_NOT_SUPPORTED");
    } finally {
      await new Promise<void>((resolve) => only10.close(() => resolve()));
    }
    // On the dual-version example agent, no header means 0.3 (spec §3.6.2): the 1.0 method name is unknown there.
    expect((await readJson<JsonRpcFailure>(rpc(agent.urls.jsonrpc, "GetTask", { id: "x" }, {}))).error.code).toBe(
      -32601,
    );
    // gRPC: the lf.a2a.v1 service itself is 1.0-only.
    const e = await createClient(A2AService, grpcTransport())
      .getTask({ id: "x" })
      .then(
        () => undefined,
        (x: unknown) => x as ConnectError,
      );
    expect(e?.code).toBe(Code.FailedPrecondition);
    expect(e?.findDetails(ErrorInfoSchema)[0]).toMatchObject({ reason: "VERSION_NOT_SUPPORTED" });
  });

  // The probe of I4–I6 is ListTasks: a 1.0 method (0.3 has none), which the open example agent answers. (Its
  // extended card would not do: the open agent has none, S10 §13.3.)
  it("I4: A2A-Version 1.0 succeeds, 9.9 is VersionNotSupportedError", async () => {
    const ok = await readJson<JsonRpcSuccess<ListTasksResponseJson>>(rpc(agent.urls.jsonrpc, "ListTasks", {}));
    expect(ok.error).toBeUndefined();
    expect(ok.result.tasks).toEqual(expect.any(Array));
    expect(
      (await readJson<JsonRpcFailure>(rpc(agent.urls.jsonrpc, "ListTasks", {}, { "A2A-Version": "9.9" }))).error.code,
    ).toBe(-32009);
  });

  it("I5: A2A-Version 1.0.1 is accepted as 1.0 (override headers: patchVersion ignore-patch)", async () => {
    const j = await readJson<JsonRpcSuccess<ListTasksResponseJson>>(
      rpc(agent.urls.jsonrpc, "ListTasks", {}, { "A2A-Version": "1.0.1" }),
    );
    expect(j.error).toBeUndefined();
    expect(j.result.tasks).toEqual(expect.any(Array));
  });

  it("I6: a lowercase a2a-version header, and a2a-version gRPC metadata, work like A2A-Version", async () => {
    const j = await readJson<JsonRpcSuccess<ListTasksResponseJson>>(
      rpc(agent.urls.jsonrpc, "ListTasks", {}, { "a2a-version": "1.0" }),
    );
    expect(j.error).toBeUndefined();
    expect(j.result.tasks).toEqual(expect.any(Array));
    // Without the header GET /tasks is read as 0.3, where it is no route (404).
    expect((await fetch(`${agent.urls.rest}/tasks`, { headers: { "a2a-version": "1.0" } })).status).toBe(200);
    const list = await createClient(A2AService, grpcTransport()).listTasks({}, { headers: { "a2a-version": "1.0" } });
    expect(list.tasks).toEqual(expect.any(Array));
  });

  describe("with a handler that reports what it was given", () => {
    let server: Server;
    let base: string;
    const seen: { extensions?: readonly string[]; tenant?: string | undefined }[] = [];
    beforeAll(async () => {
      const echo = createEchoHandler();
      const handler: A2AServiceHandler = {
        ...echo,
        async getTask(req, ctx) {
          seen.push({ extensions: ctx.extensions, tenant: ctx.tenant });
          return { id: req.id, contextId: `tenant:${ctx.tenant ?? ""}`, status: { state: TaskState.WORKING } };
        },
      };
      server = createServer(
        nodeHttpListener(
          createA2AServiceHttpHandler({
            handler,
            requiredExtensions: ["urn:ext:a"],
            jsonrpcPath: "/rpc",
            restBasePath: "/rest",
          }),
        ),
      );
      base = await listen(server);
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("I7: both extension URIs are seen; omitting the required one is ExtensionSupportRequiredError", async () => {
      const ok = await readJson<JsonRpcSuccess<TaskJson>>(
        rpc(`${base}/rpc`, "GetTask", { id: "t" }, { ...V, "A2A-Extensions": "urn:ext:b, urn:ext:a" }),
      );
      expect(ok.result.id).toBe("t");
      expect(seen.at(-1)!.extensions).toEqual(["urn:ext:b", "urn:ext:a"]);
      const missing = await readJson<JsonRpcFailure>(
        rpc(`${base}/rpc`, "GetTask", { id: "t" }, { ...V, "A2A-Extensions": "urn:ext:b" }),
      );
      expect(missing.error).toMatchObject({ code: -32008, data: [{ reason: "EXTENSION_SUPPORT_REQUIRED" }] });
      const client = createA2AServiceJsonRpcClient({ url: `${base}/rpc`, extensions: ["urn:ext:a", "urn:ext:b"] });
      expect((await client.getTask({ id: "t2" })).id).toBe("t2");
    });

    it("I8: the tenant field and the /{tenant} route prefix reach the same tenant", async () => {
      const headers = { ...V, "A2A-Extensions": "urn:ext:a" };
      const byQuery = await readJson<TaskJson>(fetch(`${base}/rest/tasks/t1?tenant=acme`, { headers }));
      const byPrefix = await readJson<TaskJson>(fetch(`${base}/rest/acme/tasks/t1`, { headers }));
      expect(byQuery.contextId).toBe("tenant:acme");
      expect(byPrefix.contextId).toBe("tenant:acme");
      // The path wins over a conflicting query value.
      expect((await readJson<TaskJson>(fetch(`${base}/rest/acme/tasks/t1?tenant=other`, { headers }))).contextId).toBe(
        "tenant:acme",
      );
      // The generated REST client copies the interface's tenant into the request and uses the tenant route.
      const client = createA2AServiceRestClient({ url: `${base}/rest`, tenant: "acme", extensions: ["urn:ext:a"] });
      expect((await client.getTask({ id: "t2" })).contextId).toBe("tenant:acme");
      const jsonrpc = createA2AServiceJsonRpcClient({ url: `${base}/rpc`, tenant: "acme", extensions: ["urn:ext:a"] });
      expect((await jsonrpc.getTask({ id: "t3" })).contextId).toBe("tenant:acme");
    });
  });

  it("I11: JSON-RPC stream lines are JSON-RPC responses; REST stream lines are bare StreamResponses", async () => {
    const j = await rpc(agent.urls.jsonrpc, "SendStreamingMessage", { message: textMessage("s") });
    expect(j.headers.get("content-type")).toBe("text/event-stream");
    const jLines = (await j.text())
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => JSON.parse(l.slice(5)));
    expect(jLines.length).toBe(4);
    for (const l of jLines) expect(l).toMatchObject({ jsonrpc: "2.0", id: 1, result: expect.any(Object) });
    expect(Object.keys(jLines[0].result)).toEqual(["task"]);

    const r = await fetch(`${agent.urls.rest}/message:stream`, {
      method: "POST",
      headers: { ...V, "content-type": "application/a2a+json" },
      body: JSON.stringify({ message: textMessage("s") }),
    });
    const rLines = (await r.text())
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => JSON.parse(l.slice(5)));
    expect(rLines.map((l) => Object.keys(l)[0])).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    for (const l of rLines) expect(l).not.toHaveProperty("jsonrpc");
  });

  it("I12: GET /tasks?contextId=…&status=TASK_STATE_WORKING&pageSize=10 applies the filters and the page size", async () => {
    const contextId = crypto.randomUUID();
    const send = (t: string) =>
      fetch(`${agent.urls.rest}/message:send`, {
        method: "POST",
        headers: { ...V, "content-type": "application/a2a+json" },
        body: JSON.stringify({
          message: textMessage(t, { contextId }),
          configuration: { returnImmediately: t === "wait" },
        }),
      }).then((r) => readJson<SendMessageTaskJson>(r));
    const waiting = [];
    for (let i = 0; i < 12; i++) waiting.push((await send("wait")).task.id);
    await send("done"); // completed, same context
    await fetch(`${agent.urls.rest}/message:send`, {
      method: "POST",
      headers: { ...V, "content-type": "application/a2a+json" },
      body: JSON.stringify({ message: textMessage("wait"), configuration: { returnImmediately: true } }),
    }); // other context
    const page1 = await readJson<ListTasksResponseJson>(
      fetch(`${agent.urls.rest}/tasks?contextId=${contextId}&status=TASK_STATE_WORKING&pageSize=10`, { headers: V }),
    );
    expect(page1.tasks).toHaveLength(10);
    expect(page1.totalSize).toBe(12);
    expect(page1.pageSize).toBe(10);
    for (const t of page1.tasks) expect(t).toMatchObject({ contextId, status: { state: "TASK_STATE_WORKING" } });
    const page2 = await readJson<ListTasksResponseJson>(
      fetch(
        `${agent.urls.rest}/tasks?contextId=${contextId}&status=TASK_STATE_WORKING&pageSize=10&pageToken=${page1.nextPageToken}`,
        { headers: V },
      ),
    );
    expect([...page1.tasks, ...page2.tasks].map((t) => t.id).sort()).toEqual([...waiting].sort());
    // The last page says so with "" (S10 l.246); ProtoJSON alone would leave the field out.
    expect(page2.nextPageToken).toBe("");
    // A list with nothing in it still has every REQUIRED field (S10 §5.7), over HTTP+JSON and JSON-RPC.
    const empty = { tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 };
    expect(
      await readJson<ListTasksResponseJson>(
        fetch(`${agent.urls.rest}/tasks?contextId=no-such-context`, { headers: V }),
      ),
    ).toMatchObject({ tasks: [], nextPageToken: "", totalSize: 0 });
    const rpc = await readJson<{ result: ListTasksResponseJson }>(
      fetch(agent.urls.jsonrpc, {
        method: "POST",
        headers: { ...V, "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: { contextId: "no-such-context" } }),
      }),
    );
    expect(Object.keys(rpc.result).sort()).toEqual(Object.keys(empty).sort());
    expect(rpc.result).toMatchObject({ tasks: [], nextPageToken: "", totalSize: 0 });
  });

  it("I13: an unknown field is ignored", async () => {
    const j = await readJson<JsonRpcSuccess<SendMessageTaskJson>>(
      rpc(agent.urls.jsonrpc, "SendMessage", {
        message: textMessage("u", { someNewField: 1 }),
        futureOption: { x: 1 },
      }),
    );
    expect(j.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    const r = await fetch(`${agent.urls.rest}/message:send`, {
      method: "POST",
      headers: { ...V, "content-type": "application/a2a+json" },
      body: JSON.stringify({ message: textMessage("u"), unknown: true }),
    });
    expect(r.status).toBe(200);
  });
});

/** The text the echo agent sends back through `client`: the call reached it. */
async function echoed(client: A2AServiceClient, text: string): Promise<unknown> {
  const res = await client.sendMessage({
    message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
  });
  return (res.payload.value as Task).artifacts[0]?.parts[0]?.content.value;
}

describe("client scenarios", () => {
  it("I9: a gRPC-only client takes the card's second entry when JSONRPC is first", async () => {
    const card = await readJson<AgentCardJson>(fetch(agent.urls.card, { headers: { "A2A-Version": "1.0" } }));
    expect(card.supportedInterfaces.slice(0, 3).map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual([
      "JSONRPC",
      "HTTP+JSON",
      "GRPC",
    ]);
    const { client, selected } = createA2AServiceClientForCard(card, {
      bindings: ["GRPC"],
      grpcTransport: (baseUrl) => createGrpcTransport({ baseUrl }),
    });
    expect(selected).toMatchObject({ binding: "GRPC", url: agent.urls.grpc });
    expect(await echoed(client, "over gRPC")).toBe("over gRPC");
    // With no restriction the first entry wins.
    expect(createA2AServiceClientForCard(card, {}).selected.binding).toBe("JSONRPC");
  });

  it("I10: with two entries for one binding, 0.3 first and 1.0 second, a 1.0 client calls the 1.0 entry", async () => {
    const card = {
      supportedInterfaces: [
        { url: "http://127.0.0.1:9/legacy", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
        { url: agent.urls.rest, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      ],
    };
    const { client, selected } = createA2AServiceClientForCard(card, { bindings: ["HTTP+JSON"] });
    expect(selected.url).toBe(agent.urls.rest);
    expect(await echoed(client, "at 1.0")).toBe("at 1.0");
    // A v0.3 card (url, preferredTransport, additionalInterfaces) is read too.
    const v03 = {
      url: "http://a/rpc",
      preferredTransport: "JSONRPC",
      protocolVersion: "0.3.0",
      additionalInterfaces: [{ url: "http://a/rest", transport: "HTTP+JSON" }],
    };
    expect(selectInterface(v03, { bindings: ["HTTP+JSON"], versions: ["0.3"] })).toMatchObject({
      url: "http://a/rest",
      protocolVersion: "0.3",
    });
    expect(selectInterface(v03, { bindings: ["HTTP+JSON"], versions: ["1.0"] })).toBeUndefined();
  });

  it("I14: the REST client subscribes with GET, and retries with POST when the peer answers with a method error", async () => {
    const methods: string[] = [];
    const inner = nodeHttpListener(createA2AServiceHttpHandler({ handler: createEchoHandler(), restBasePath: "" }));
    const server = createServer((req, res) => {
      methods.push(`${req.method} ${req.url}`);
      if (req.method === "GET" && req.url?.includes(":subscribe")) {
        res.writeHead(405, { allow: "POST" }).end(); // a peer that follows the specification's POST
        return;
      }
      inner(req, res);
    });
    const base = await listen(server);
    try {
      const { client, id, it } = await subscribedToWaitingTask(base);
      await client.cancelTask({ id });
      let last: StreamResponse | undefined;
      for (let r = await it.next(); !r.done; r = await it.next()) last = r.value;
      expect(last?.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.CANCELED);
      const subscribeCalls = methods.filter((m) => m.includes(":subscribe")).map((m) => m.split(" ")[0]);
      expect(subscribeCalls).toEqual(["GET", "POST"]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("I14: the refused GET's answer is let go before the POST is sent, though its body never ends", async () => {
    // The refusal streams its body without end; the client never reads it. Unless the client cancels it, it
    // stays open (undici pauses the socket) until the garbage collector happens to take the Response.
    let refusalOpen = false;
    const openAtRetry: boolean[] = [];
    const inner = nodeHttpListener(createA2AServiceHttpHandler({ handler: createEchoHandler(), restBasePath: "" }));
    const server = createServer((req, res) => {
      const subscribe = req.url?.includes(":subscribe");
      if (subscribe && req.method === "GET") {
        refusalOpen = true;
        res.writeHead(405, { allow: "POST", "content-type": "text/plain" });
        const timer = setInterval(() => res.write("x".repeat(1024)), 5);
        res.on("close", () => {
          clearInterval(timer);
          refusalOpen = false;
        });
        return;
      }
      if (subscribe) {
        // Give the refused connection's close a moment to arrive: it travels on another socket.
        const retry = () => {
          openAtRetry.push(refusalOpen);
          inner(req, res);
        };
        setTimeout(retry, refusalOpen ? 500 : 0);
        return;
      }
      inner(req, res);
    });
    const base = await listen(server);
    try {
      const { it } = await subscribedToWaitingTask(base);
      await it.return?.(undefined);
      expect(openAtRetry).toEqual([false]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a bare 404 from a wrong route is not TaskNotFoundError", async () => {
    const client = createA2AServiceRestClient({ url: `${agent.urls.rest}/wrong/prefix` });
    const e = await client.getTask({ id: "x" }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).not.toBeInstanceOf(A2AError);
    expect(e).toMatchObject({ name: "A2ATransportError", status: 404 });
  });
});
