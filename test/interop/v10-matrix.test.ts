/**
 * Interop at A2A 1.0, both directions, in the three bindings:
 *   a2a-js 1.3.0 clients → the generated server (the echo example agent, protected by an API key: the
 *     clients send it in X-API-Key through the SDK's own call interceptors; without it a call is refused)
 *   the generated clients → an a2a-js 1.3.0 agent
 * The matrix of cells is printed at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, TaskState, type StreamResponse } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import {
  ALL_BINDINGS,
  a2aJsV10ClientFor,
  artifactTexts,
  collectEvents,
  describeA2aJsError,
  type A2aJsErrorDescription,
  sentTask,
  startA2aJsV10Agent,
  stateOf,
  summarizeEvent,
  type A2aBinding,
  type A2aJsAgent,
  type A2aJsClient,
  type V10Results,
} from "../helpers/a2a-js-peers.js";
import { apiKeySecurity } from "../helpers/example-process.js";
import { createMatrix } from "../helpers/matrix.js";

const matrix = createMatrix("A2A 1.0 interop matrix");
const cell = matrix.cell;

const text = (t: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
});

/** The API key the a2a-js clients send: the caller is principal alice. */
const ALICE = { "X-API-Key": "alice-key" };

/** How a2a-js 1.3.0 surfaces our refusal of a call without the key, per binding (401 / -32040 / UNAUTHENTICATED). */
const REFUSED: Record<A2aBinding, Partial<A2aJsErrorDescription>> = {
  JSONRPC: { code: -32040, message: expect.stringContaining("Authentication required") },
  "HTTP+JSON": { httpStatus: 401, wwwAuthenticate: 'ApiKey realm="a2a", in="header", name="X-API-Key"' },
  GRPC: { grpcStatus: 16 },
};

let ours: RunningAgent;
let theirs: A2aJsAgent;

beforeAll(async () => {
  const security = apiKeySecurity({ alice: ALICE["X-API-Key"] });
  [ours, theirs] = await Promise.all([startEchoAgent({ security }), startA2aJsV10Agent()]);
});
afterAll(async () => {
  await Promise.all([ours?.close(), theirs?.close()]);
  matrix.print();
});

describe.each(ALL_BINDINGS)("a2a-js 1.3.0 client → generated server over %s", (binding: A2aBinding) => {
  const col = `a2a-js→ours ${binding}`;
  let client: A2aJsClient<V10Results>;
  beforeAll(async () => {
    client = await a2aJsV10ClientFor({ cardUrl: ours.urls.card, binding }, { headers: ALICE });
  });
  afterAll(() => client?.close());

  it("send", () =>
    cell("send", col, async () => {
      const task = await client.sendText("hello");
      expect(stateOf(task)).toBe("completed");
      expect(artifactTexts(task)).toEqual(["hello"]);
    }));
  it("stream", () =>
    cell("stream", col, async () => {
      const events = (await client.stream("streamed")).map(summarizeEvent);
      expect(events.map((e) => e.kind)).toEqual(["task", "status-update", "artifact-update", "status-update"]);
      expect(events.at(-1)!.state).toBe("completed");
      expect(events[2]!.text).toBe("streamed");
    }));
  it("get and list", () =>
    cell("get, list", col, async () => {
      const task = sentTask(await client.sendText("listed"));
      const got = await client.getTask(task.id);
      expect(got.id).toBe(task.id);
      const list = await client.listTasks({ contextId: task.contextId });
      expect(list.tasks.map((t: { id: string }) => t.id)).toEqual([task.id]);
    }));
  it("cancel and subscribe", () =>
    cell("cancel, subscribe", col, async () => {
      const task = sentTask(await client.sendText("wait", { blocking: false }));
      const sub = client.subscribe(task.id);
      const first = await sub.next();
      expect(summarizeEvent(first.value).kind).toBe("task");
      const rest = collectEvents(sub);
      const canceled = await client.cancelTask(task.id);
      expect(stateOf(canceled)).toBe("canceled");
      const events = (await rest).map(summarizeEvent);
      expect(events.at(-1)).toMatchObject({ kind: "status-update", state: "canceled" });
    }));
  it("push config create/get/list/delete", () =>
    cell("push configs", col, async () => {
      const task = sentTask(await client.sendText("push"));
      await client.setPushConfig(task.id, { id: "cfg-1", url: "http://127.0.0.1:1/hook", token: "t" });
      expect((await client.getPushConfig(task.id, "cfg-1")).url).toBe("http://127.0.0.1:1/hook");
      const list = await client.listPushConfigs(task.id);
      expect(JSON.stringify(list)).toContain("cfg-1");
      await client.deletePushConfig(task.id, "cfg-1");
      await expect(client.getPushConfig(task.id, "cfg-1")).rejects.toThrow();
    }));
  it("extended card", () =>
    cell("extended card", col, async () => {
      const card = await client.getExtendedCard();
      expect(card.skills.map((s: { id: string }) => s.id)).toContain("echo-extended");
      expect(card.description).toContain("Extended card for principal alice.");
    }));
  it("unknown task", () =>
    cell("unknown task error", col, async () => {
      const e = await client.getTask("no-such-task").then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(describeA2aJsError(e)).toMatchObject({ code: -32001, reason: "TASK_NOT_FOUND" });
    }));
  it("with the API key a call is admitted; without it, refused", () =>
    cell("API key: with / without", col, async (seen) => {
      const task = sentTask(await client.sendText("keyed"));
      expect(artifactTexts(task)).toEqual(["keyed"]);
      expect((await client.getTask(task.id)).id).toBe(task.id);
      expect((await client.getExtendedCard()).description).toContain("Extended card for principal alice.");
      const bare = await a2aJsV10ClientFor({ cardUrl: ours.urls.card, binding });
      try {
        const calls: [string, () => Promise<unknown>][] = [
          ["send", () => bare.sendText("unkeyed")],
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

describe.each(ALL_BINDINGS)("generated client → a2a-js 1.3.0 server over %s", (binding: A2aBinding) => {
  const col = `ours→a2a-js ${binding}`;
  let client: A2AServiceClient;
  beforeAll(() => {
    client =
      binding === "JSONRPC"
        ? createA2AServiceJsonRpcClient({ url: theirs.jsonrpcUrl })
        : binding === "HTTP+JSON"
          ? createA2AServiceRestClient({ url: theirs.restUrl })
          : createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://${theirs.grpcUrl}` }), {});
  });

  it("send", () =>
    cell("send", col, async () => {
      const res = await client.sendMessage({ message: text("hello") });
      expect(res.payload.case).toBe("task");
      const task = res.payload.value as {
        status?: { state: TaskState };
        artifacts: { parts: { content: { value: unknown } }[] }[];
      };
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      expect(task.artifacts[0]!.parts[0]!.content.value).toBe("hello");
    }));
  it("stream", () =>
    cell("stream", col, async () => {
      const events: StreamResponse[] = [];
      for await (const ev of client.sendStreamingMessage({ message: text("streamed") })) events.push(ev);
      expect(events[0]!.payload.case).toBe("task");
      const last = events.at(-1)!;
      expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
      expect(events.some((e) => e.payload.case === "artifactUpdate")).toBe(true);
    }));
  it("get and list", () =>
    cell("get, list", col, async () => {
      const res = await client.sendMessage({ message: text("listed") });
      const task = res.payload.value as { id: string; contextId: string };
      expect((await client.getTask({ id: task.id })).id).toBe(task.id);
      const list = await client.listTasks({ contextId: task.contextId });
      expect(list.tasks.map((t) => t.id)).toEqual([task.id]);
    }));
  it("cancel and subscribe", () =>
    cell("cancel, subscribe", col, async () => {
      const res = await client.sendMessage({ message: text("wait"), configuration: { returnImmediately: true } });
      const id = (res.payload.value as { id: string }).id;
      const it = client.subscribeToTask({ id })[Symbol.asyncIterator]();
      const first = await it.next();
      expect((first.value as StreamResponse).payload.case).toBe("task");
      const rest = (async () => {
        const out: StreamResponse[] = [];
        for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value);
        return out;
      })();
      expect((await client.cancelTask({ id })).status?.state).toBe(TaskState.CANCELED);
      const last = (await rest).at(-1)!;
      expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.CANCELED);
    }));
  it("push config create/get/list/delete", () =>
    cell("push configs", col, async () => {
      const res = await client.sendMessage({ message: text("push") });
      const taskId = (res.payload.value as { id: string }).id;
      const created = await client.createTaskPushNotificationConfig({
        taskId,
        id: "cfg-1",
        url: "http://127.0.0.1:1/hook",
        token: "t",
      });
      expect(created.url).toBe("http://127.0.0.1:1/hook");
      expect((await client.getTaskPushNotificationConfig({ taskId, id: "cfg-1" })).url).toBe("http://127.0.0.1:1/hook");
      expect((await client.listTaskPushNotificationConfigs({ taskId })).configs.map((c) => c.id)).toEqual(["cfg-1"]);
      await client.deleteTaskPushNotificationConfig({ taskId, id: "cfg-1" });
      expect((await client.listTaskPushNotificationConfigs({ taskId })).configs).toEqual([]);
    }));
  it("extended card", () =>
    cell("extended card", col, async () => {
      const card = await client.getExtendedAgentCard({});
      expect(card.name).toContain("(extended)");
    }));
  it("unknown task", () =>
    cell("unknown task error", col, async () => {
      const e = await client.getTask({ id: "no-such-task" }).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(A2AError);
      expect(e).toMatchObject({ type: "TaskNotFoundError", options: { code: -32001 } });
    }));
});
