/**
 * The version bridge, both sides:
 * - server side: the echo example agent is written against the v1.0 handler
 *   only, and serves @a2a-js/sdk 0.3.14 clients through the generated bridge
 *   in all three bindings, while @a2a-js/sdk 1.3.0 clients use it at 1.0 on
 *   the same URLs at the same time; the agent is protected by an API key,
 *   which the clients send in X-API-Key (SDK call interceptors), and a v0.3
 *   call without it is refused as a v1.0 call is;
 * - client side: the generated v1.0 client types call an @a2a-js/sdk 0.3.14
 *   agent through the generated v0.3 clients.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import {
  ALL_BINDINGS,
  a2aJsV03ClientFor,
  a2aJsV10ClientFor,
  artifactTexts,
  collectEvents,
  describeA2aJsError,
  type A2aJsErrorDescription,
  sentTask,
  stateOf,
  summarizeEvent,
  type A2aBinding,
  type A2aJsClient,
  type V03Results,
} from "../helpers/a2a-js-peers.js";
import { apiKeySecurity } from "../helpers/example-process.js";
import { createMatrix } from "../helpers/matrix.js";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { clientForOlder } from "../../generated-samples/a2a_compat.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v0.3.0/a2a_rest.js";
import { createA2AServiceGrpcClient } from "../../generated-samples/v0.3.0/a2a_grpc.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, TaskState, type StreamResponse, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { startA2aJsV03Agent, type A2aJsAgent } from "../helpers/a2a-js-peers.js";

const matrix = createMatrix("Version bridge: @a2a-js/sdk 0.3.14 clients → the v1.0 echo agent");
const cell = matrix.cell;
/** The API key the a2a-js clients send: the caller is principal alice. */
const ALICE = { "X-API-Key": "alice-key" };

/**
 * How a2a-js 0.3.14 surfaces our refusal of a call without the key, per binding: JSON-RPC and REST keep the code
 * (-32040 UnauthenticatedError; REST only in the message), gRPC the status (16 UNAUTHENTICATED).
 */
const REFUSED: Record<A2aBinding, Partial<A2aJsErrorDescription>> = {
  JSONRPC: { code: -32040, message: expect.stringContaining("Authentication required") },
  "HTTP+JSON": { code: -32040, message: expect.stringContaining("Authentication required") },
  GRPC: { grpcStatus: 16 },
};

let agent: RunningAgent;
let theirs: A2aJsAgent;

beforeAll(async () => {
  const security = apiKeySecurity({ alice: ALICE["X-API-Key"] });
  [agent, theirs] = await Promise.all([startEchoAgent({ security }), startA2aJsV03Agent()]);
});
afterAll(async () => {
  await Promise.all([agent?.close(), theirs?.close()]);
  matrix.print();
});

describe.each(ALL_BINDINGS)("a2a-js 0.3.14 client over %s", (binding: A2aBinding) => {
  const col = `0.3.14 ${binding}`;
  let client: A2aJsClient<V03Results>;
  beforeAll(async () => {
    client = await a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding }, { headers: ALICE });
    expect(client.binding).toBe(binding);
  });
  afterAll(() => client?.close());

  it("send", () =>
    cell("send", col, async () => {
      const task = await client.sendText("hello", { blocking: true });
      expect(stateOf(task)).toBe("completed");
      expect(artifactTexts(task)).toEqual(["hello"]);
    }));
  it("stream, with final on the last status update", () =>
    cell("stream", col, async () => {
      const events = await client.stream("streamed");
      expect(events.map(summarizeEvent).map((e) => e.kind)).toEqual([
        "task",
        "status-update",
        "artifact-update",
        "status-update",
      ]);
      expect(events.at(-1)).toMatchObject({ final: true });
      expect(events[1]).toMatchObject({ final: false });
    }));
  it("get", () =>
    cell("get", col, async () => {
      const task = sentTask(await client.sendText("fetched", { blocking: true }));
      expect((await client.getTask(task.id)).id).toBe(task.id);
    }));
  it("cancel and subscribe", () =>
    cell("cancel, subscribe", col, async () => {
      const task = sentTask(await client.sendText("wait", { blocking: false }));
      const sub = client.subscribe(task.id);
      expect(summarizeEvent((await sub.next()).value).kind).toBe("task");
      const rest = collectEvents(sub);
      expect(stateOf(await client.cancelTask(task.id))).toBe("canceled");
      expect((await rest).map(summarizeEvent).at(-1)).toMatchObject({ kind: "status-update", state: "canceled" });
    }));
  it("push configs", () =>
    cell("push configs", col, async (seen) => {
      const task = sentTask(await client.sendText("push", { blocking: true }));
      if (binding === "HTTP+JSON") {
        // a2a-js 0.3.14's REST client sends the create body its own server expects, not the proto's `body: "config"`
        // (docs/interop.md #1); our server reads the proto's shape, so create goes over JSON-RPC here.
        const rpc = await a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" }, { headers: ALICE });
        await rpc.setPushConfig(task.id, { id: "cfg-1", url: "http://127.0.0.1:9/hook", token: "t" });
        seen("created over JSON-RPC");
      } else {
        await client.setPushConfig(task.id, { id: "cfg-1", url: "http://127.0.0.1:9/hook", token: "t" });
      }
      expect(JSON.stringify(await client.getPushConfig(task.id, "cfg-1"))).toContain("http://127.0.0.1:9/hook");
      expect(JSON.stringify(await client.listPushConfigs(task.id))).toContain("cfg-1");
      await client.deletePushConfig(task.id, "cfg-1");
      return binding === "HTTP+JSON" ? "ok (create over JSON-RPC: a2a-js defect #1)" : undefined;
    }));
  it("extended card", () =>
    cell("extended card", col, async () => {
      const card = await client.getExtendedCard();
      expect(JSON.stringify(card)).toContain("echo-extended");
      expect(card.description).toContain("Extended card for principal alice.");
    }));
  it("unknown task", () =>
    cell("unknown task error", col, async () => {
      const e = await client.getTask("no-such-task").then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(describeA2aJsError(e)).toMatchObject({ code: -32001 });
    }));
  it("with the API key a call is admitted; without it, refused", () =>
    cell("API key: with / without", col, async (seen) => {
      const task = sentTask(await client.sendText("keyed", { blocking: true }));
      expect(artifactTexts(task)).toEqual(["keyed"]);
      expect((await client.getTask(task.id)).id).toBe(task.id);
      const bare = await a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding });
      try {
        const calls: [string, () => Promise<unknown>][] = [
          ["send", () => bare.sendText("unkeyed", { blocking: true })],
          ["get", () => bare.getTask(task.id)],
          ["extended card", () => bare.getExtendedCard()],
        ];
        for (const [name, call] of calls) {
          seen(`${name} without the key`);
          const e = await call().then(
            () => undefined,
            (x: unknown) => x,
          );
          expect(describeA2aJsError(e), `${name} without the key`).toMatchObject(REFUSED[binding]);
        }
      } finally {
        bare.close();
      }
    }));
});

describe("both versions at once", () => {
  it("a 1.0 client and a 0.3 client use the same URLs concurrently", async () => {
    const [c10, c03] = await Promise.all([
      a2aJsV10ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" }, { headers: ALICE }),
      a2aJsV03ClientFor({ cardUrl: agent.urls.card, binding: "JSONRPC" }, { headers: ALICE }),
    ]);
    const [t10, t03] = await Promise.all([c10.sendText("ten"), c03.sendText("three", { blocking: true })]);
    expect([artifactTexts(t10), artifactTexts(t03)]).toEqual([["ten"], ["three"]]);
    // A task made at 1.0 is visible at 0.3: one store behind both.
    const id = sentTask(t10).id;
    expect((await c03.getTask(id)).id).toBe(id);
  });
});

describe.each(ALL_BINDINGS)(
  "generated v1.0 client → client bridge → a2a-js 0.3.14 agent over %s",
  (binding: A2aBinding) => {
    const col = `v1.0 types→0.3.14 ${binding}`;
    let client: A2AServiceClient;
    const losses: string[] = [];
    beforeAll(() => {
      const old =
        binding === "JSONRPC"
          ? createA2AServiceJsonRpcClient({ url: theirs.jsonrpcUrl })
          : binding === "HTTP+JSON"
            ? createA2AServiceRestClient({ url: theirs.restUrl })
            : createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://${theirs.grpcUrl}` }), {});
      client = clientForOlder(old, (op, l) => losses.push(`${op} ${l.path}`));
    });
    const text = (t: string) => ({
      messageId: crypto.randomUUID(),
      role: Role.USER,
      parts: [{ content: { case: "text" as const, value: t } }],
    });
    const taskOf = (r: { payload: { value?: unknown } }) => r.payload.value as Task;

    it("send", () =>
      cell("send", col, async () => {
        const task = taskOf(await client.sendMessage({ message: text("hello") }));
        expect(task.status?.state).toBe(TaskState.COMPLETED);
        expect(task.artifacts[0]?.parts[0]?.content.value).toBe("hello");
      }));
    it("stream", () =>
      cell("stream", col, async () => {
        const events: StreamResponse[] = [];
        for await (const ev of client.sendStreamingMessage({ message: text("streamed") })) events.push(ev);
        expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
      }));
    it("get", () =>
      cell("get", col, async () => {
        const task = taskOf(await client.sendMessage({ message: text("fetched") }));
        expect((await client.getTask({ id: task.id })).id).toBe(task.id);
      }));
    it("cancel and subscribe", () =>
      cell("cancel, subscribe", col, async () => {
        const task = taskOf(
          await client.sendMessage({ message: text("wait"), configuration: { returnImmediately: true } }),
        );
        const it = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
        expect((await it.next()).value?.payload.case).toBe("task");
        const rest = (async () => {
          let last: StreamResponse | undefined;
          for (let r = await it.next(); !r.done; r = await it.next()) last = r.value;
          return last;
        })();
        expect((await client.cancelTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
        const last = await rest;
        expect(last?.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.CANCELED);
      }));
    it("push configs", () =>
      cell("push configs", col, async () => {
        const task = taskOf(await client.sendMessage({ message: text("push") }));
        if (binding === "HTTP+JSON") {
          // a2a-js 0.3.14 REST create reads its own body shape (docs/interop.md #1): created through JSON-RPC instead.
          await clientForOlder(
            createA2AServiceJsonRpcClient({ url: theirs.jsonrpcUrl }),
          ).createTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1", url: "http://127.0.0.1:9/hook" });
        } else {
          expect(
            (
              await client.createTaskPushNotificationConfig({
                taskId: task.id,
                id: "cfg-1",
                url: "http://127.0.0.1:9/hook",
              })
            ).id,
          ).toBe("cfg-1");
        }
        const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" });
        expect([got.taskId, got.id, got.url]).toEqual([task.id, "cfg-1", "http://127.0.0.1:9/hook"]);
        expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs.map((c) => c.id)).toEqual([
          "cfg-1",
        ]);
        await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" });
        return binding === "HTTP+JSON" ? "ok (create over JSON-RPC: a2a-js defect #1)" : undefined;
      }));
    it("extended card", () =>
      cell("extended card", col, async () => {
        const card = await client.getExtendedAgentCard({});
        expect(card.supportedInterfaces.length).toBeGreaterThan(0);
        expect(card.capabilities?.extendedAgentCard).toBe(true);
      }));
    it("unknown task", () =>
      cell("unknown task error", col, async () => {
        await expect(client.getTask({ id: "no-such-task" })).rejects.toMatchObject({
          type: "TaskNotFoundError",
          options: { code: -32001 },
        });
      }));
    it("ListTasks: what a v1.0 caller sees against a v0.3 agent", () =>
      cell("ListTasks (absent in 0.3)", col, async () => {
        expect(() => client.listTasks({})).toThrow(A2AError);
        expect(() => client.listTasks({})).toThrow(/ListTasks does not exist in protocol 0.3/);
      }));
  },
);
