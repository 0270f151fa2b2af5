/**
 * createTaskHandler's lifecycle rules, over real servers on 127.0.0.1: each
 * rule is run through the three v1.0 bindings (JSON-RPC, HTTP+JSON, gRPC)
 * and v0.3 JSON-RPC through the generated version bridge, against one
 * handler over the memory store. The executor is scripted by the message
 * text; push deliveries go to a recording PushSender (the real sender is
 * push.ts's, not part of this handler).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { A2AError } from "@protoc-gen-a2a/runtime";
import {
  createMemoryTaskStore,
  createTaskHandler,
  type AgentExecutor,
  type Artifact,
  type Part,
  type PushDelivery,
  type PushSender,
  type RequestContext,
  type TaskUpdater,
} from "@protoc-gen-a2a/runtime/task";
import { olderPushPayloads } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV1_0, type A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import {
  Role,
  TaskState,
  type Message,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { startTaskServers, WAYS, type TaskServers, type Way } from "./task-servers.js";

/** How many times a bounded wait looks before it fails. */
const LOOKS = 400;
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

async function until(what: string, test: () => boolean): Promise<void> {
  for (let i = 0; i < LOOKS; i++) {
    if (test()) return;
    await tick();
  }
  throw new Error(`not seen: ${what}`);
}

type HasParts = { readonly parts: readonly { readonly content: { case: string | undefined; value?: unknown } }[] };
const textOf = (m: HasParts | undefined) =>
  (m?.parts ?? []).map((p) => (p.content.case === "text" ? String(p.content.value) : "")).join("");

// The scripted agent: the message text picks the script.
const gates = new Map<string, () => void>();
const aborted = new Set<string>();
/** Tasks whose executor's update after cancel has resolved (and was dropped). */
const lateDone = new Set<string>();
const part = (text: string): Part => ({
  $typeName: "lf.a2a.v1.Part",
  content: { case: "text", value: text },
  filename: "",
  mediaType: "text/plain",
});
const artifact = (id: string, text: string): Artifact => ({
  $typeName: "lf.a2a.v1.Artifact",
  artifactId: id,
  name: id,
  description: "",
  parts: [part(text)],
  extensions: [],
});
type Script = (ctx: RequestContext, up: TaskUpdater) => Promise<void>;
const SCRIPTS: Readonly<Record<string, Script>> = {
  echo: async (_ctx, up) => {
    await up.artifact(artifact("a1", "echo"));
    await up.status(TaskState.COMPLETED, "done");
  },
  chunks: async (_ctx, up) => {
    await up.artifact(artifact("a1", "x"));
    await up.artifact(artifact("a1", "y"), { append: true, lastChunk: true });
    await up.reply("note");
    await up.status(TaskState.COMPLETED);
  },
  ask: (_ctx, up) => up.status(TaskState.INPUT_REQUIRED, "which one?"),
  answer: (ctx, up) => up.status(TaskState.COMPLETED, `got answer in ${ctx.task?.history.length ?? 0}`),
  wait: async (ctx, up) => {
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
    aborted.add(ctx.taskId);
    await up.status(TaskState.COMPLETED, "too late");
    lateDone.add(ctx.taskId);
  },
  gate: async (ctx, up) => {
    await new Promise<void>((resolve) => gates.set(ctx.taskId, resolve));
    await up.status(TaskState.COMPLETED, "opened");
  },
  leave: async () => undefined,
  /** Twenty artifacts, a turn of the event loop apart, then a gate before completing. */
  trickle: async (ctx, up) => {
    for (let i = 0; i < 20; i++) {
      await up.artifact(artifact(`t${i}`, String(i)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise<void>((resolve) => gates.set(ctx.taskId, resolve));
    await up.status(TaskState.COMPLETED);
  },
  boom: () => Promise.reject(new Error("secret detail")),
  /** Many updates at once, not awaited one by one: they apply in call order. */
  burst: async (_ctx, up) => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => up.artifact(artifact(`b${i}`, String(i)))));
    await up.status(TaskState.COMPLETED);
  },
};
const executor: AgentExecutor = {
  async execute(ctx, up) {
    const text = textOf(ctx.message);
    if (text.startsWith("reply:")) return up.reply(text.slice("reply:".length));
    if (text === "early-boom") throw new Error("early secret");
    if (text === "refuse") throw new A2AError("ContentTypeNotSupportedError", "only text/plain, please");
    if (text === "nothing") return;
    await up.status(TaskState.WORKING);
    await SCRIPTS[text]?.(ctx, up);
  },
};
const deliveries: PushDelivery[] = [];
const sender: PushSender = {
  async checkUrl(url) {
    if (!url.startsWith("https://")) throw new A2AError("InvalidParamsError", `webhook ${url} is not https`);
  },
  send: (d) => void deliveries.push(d),
  idle: async () => undefined,
};
const errors: unknown[] = [];

let servers: TaskServers;
beforeAll(async () => {
  const handler = createTaskHandler({
    definition: A2AServiceV1_0,
    executor,
    store: createMemoryTaskStore(),
    push: { sender, payload: olderPushPayloads },
    onError: (e) => errors.push(e),
  });
  servers = await startTaskServers(handler);
});
afterAll(() => servers?.close());

const user = (text: string, more: Partial<Pick<Message, "taskId" | "contextId">> = {}) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: text } }],
  ...more,
});

function taskOf(r: SendMessageResponse): Task {
  if (r.payload.case !== "task") throw new Error(`expected a task, got ${r.payload.case}`);
  return r.payload.value;
}

async function failure(call: Promise<unknown>): Promise<string> {
  const e = await call.then(
    () => undefined,
    (x: unknown) => x,
  );
  return e instanceof A2AError ? e.type : `no A2AError: ${String(e)}`;
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) {
    out.push(e);
    if (out.length > 50) throw new Error("stream did not end");
  }
  return out;
}

const shape = (e: StreamResponse) => {
  const p = e.payload;
  if (p.case === "task") return `task ${TaskState[p.value.status?.state ?? 0]}`;
  if (p.case === "statusUpdate") return `status ${TaskState[p.value.status?.state ?? 0]}`;
  return p.case ?? "none";
};

describe.each(WAYS)("createTaskHandler over %s", (way: Way) => {
  let c: A2AServiceClient;
  beforeAll(() => {
    c = servers.client(way);
  });

  it("a reply-only executor answers with its message, no task, and a generated contextId", async () => {
    const r = await c.sendMessage({ message: user("reply:hi") });
    expect(r.payload.case).toBe("message");
    const m = r.payload.value as Message;
    expect([textOf(m), m.role, m.taskId]).toEqual(["hi", Role.AGENT, ""]);
    expect(m.contextId).not.toBe("");
    expect((await collect(c.sendStreamingMessage({ message: user("reply:s") }))).map(shape)).toEqual(["message"]);
  });

  it("blocking send waits for the terminal state; history holds the user and agent messages", async () => {
    const task = taskOf(await c.sendMessage({ message: user("echo") }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.status?.timestamp).toBeDefined();
    expect(task.contextId).not.toBe("");
    expect(task.artifacts.map((a) => textOf(a))).toEqual(["echo"]);
    expect(task.history.map((m) => [m.role, textOf(m)])).toEqual([
      [Role.USER, "echo"],
      [Role.AGENT, "done"],
    ]);
    const got = await c.getTask({ id: task.id, historyLength: 1 });
    expect(got.history.map((m) => textOf(m))).toEqual(["done"]);
    // v0.3 has no spelling for "no history": 0 there means unlimited (a2a_compat.md, send-message-configuration).
    const none = (await c.getTask({ id: task.id, historyLength: 0 })).history;
    expect(none).toHaveLength(way === "JSONRPC 0.3" ? 2 : 0);
    expect(await failure(c.getTask({ id: "no-such-task" }))).toBe("TaskNotFoundError");
  });

  it("a client's contextId is kept; historyLength trims the answer", async () => {
    const contextId = `ctx-${crypto.randomUUID()}`;
    const r = await c.sendMessage({ message: user("echo", { contextId }), configuration: { historyLength: 1 } });
    expect(taskOf(r).contextId).toBe(contextId);
    expect(taskOf(r).history.map((m) => textOf(m))).toEqual(["done"]);
  });

  it("multi-turn: input-required, then the answer continues the same task to completed", async () => {
    const asked = taskOf(await c.sendMessage({ message: user("ask") }));
    expect(asked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(asked.status?.message)).toBe("which one?");
    const message = user("answer", { taskId: asked.id });
    const done = taskOf(await c.sendMessage({ message }));
    expect([done.id, done.contextId, done.status?.state]).toEqual([asked.id, asked.contextId, TaskState.COMPLETED]);
    expect(done.history.map((m) => textOf(m))).toEqual(["ask", "which one?", "answer", "got answer in 3"]);
  });

  it("refuses an unknown task, a terminal task and a contextId that is not the task's", async () => {
    expect(await failure(c.sendMessage({ message: user("answer", { taskId: "nope" }) }))).toBe("TaskNotFoundError");
    const done = taskOf(await c.sendMessage({ message: user("echo") }));
    const again = user("answer", { taskId: done.id });
    expect(await failure(c.sendMessage({ message: again }))).toBe("UnsupportedOperationError");
    expect(await failure(collect(c.sendStreamingMessage({ message: again })))).toBe("UnsupportedOperationError");
    const asked = taskOf(await c.sendMessage({ message: user("ask") }));
    const wrong = user("answer", { taskId: asked.id, contextId: "another-context" });
    expect(await failure(c.sendMessage({ message: wrong }))).toBe("InvalidParamsError");
  });

  it("streams the Task first, then its events, ending at the terminal state", async () => {
    const events = await collect(c.sendStreamingMessage({ message: user("echo") }));
    expect(events.map(shape)).toEqual(["task SUBMITTED", "status WORKING", "artifactUpdate", "status COMPLETED"]);
    const asked = await collect(c.sendStreamingMessage({ message: user("ask") }));
    expect(asked.map(shape)).toEqual(["task SUBMITTED", "status WORKING", "status INPUT_REQUIRED"]);
    const id = (asked[0]!.payload.value as Task).id;
    const cont = await collect(c.sendStreamingMessage({ message: user("answer", { taskId: id }) }));
    expect(cont.map(shape)).toEqual(["task WORKING", "status WORKING", "status COMPLETED"]);
  });

  it("appended artifact chunks, a reply within the task and a burst of updates keep their order", async () => {
    const events = await collect(c.sendStreamingMessage({ message: user("chunks") }));
    expect(events.map(shape)).toEqual([
      "task SUBMITTED",
      "status WORKING",
      "artifactUpdate",
      "artifactUpdate",
      "message",
      "status COMPLETED",
    ]);
    const chunk = events[3]!.payload.value as { append: boolean; lastChunk: boolean };
    expect([chunk.append, chunk.lastChunk]).toEqual([true, true]);
    const task = await c.getTask({ id: (events[0]!.payload.value as Task).id });
    expect(task.artifacts.map((a) => textOf(a))).toEqual(["xy"]);
    expect(task.history.map((m) => textOf(m))).toEqual(["chunks", "note"]);
    const burst = taskOf(await c.sendMessage({ message: user("burst") }));
    expect(burst.artifacts.map((a) => a.artifactId)).toEqual(Array.from({ length: 20 }, (_, i) => `b${i}`));
  });

  it("an early return ends the wait where the task was left; publishing nothing fails", async () => {
    expect(taskOf(await c.sendMessage({ message: user("leave") })).status?.state).toBe(TaskState.WORKING);
    const events = await collect(c.sendStreamingMessage({ message: user("leave") }));
    expect(events.map(shape)).toEqual(["task SUBMITTED", "status WORKING"]);
    expect(await failure(c.sendMessage({ message: user("nothing") }))).toBe("InternalError");
    expect(servers.serverErrors.at(-1)).toMatch(/^SendMessage: Error: task \S+: the executor returned without a reply/);
  });

  it("returnImmediately answers at once; two subscribers get the same events to the end", async () => {
    const task = taskOf(await c.sendMessage({ message: user("gate"), configuration: { returnImmediately: true } }));
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(task.status?.state);
    await until("the executor waits at its gate", () => gates.has(task.id));
    const subscribers = [c.subscribeToTask({ id: task.id }), c.subscribeToTask({ id: task.id })].map((s) =>
      s[Symbol.asyncIterator](),
    );
    for (const s of subscribers) expect(shape((await s.next()).value as StreamResponse)).toBe("task WORKING");
    gates.get(task.id)!();
    const rest = await Promise.all(subscribers.map((s) => collect({ [Symbol.asyncIterator]: () => s })));
    expect(rest.map((events) => events.map(shape))).toEqual([["status COMPLETED"], ["status COMPLETED"]]);
    expect(await failure(collect(c.subscribeToTask({ id: task.id })))).toBe("UnsupportedOperationError");
    expect(await failure(collect(c.subscribeToTask({ id: "no-such-task" })))).toBe("TaskNotFoundError");
  });

  it("a subscriber that joins mid-way gets every update once: the Task's, then the events after it", async () => {
    const configuration = { returnImmediately: true };
    const task = taskOf(await c.sendMessage({ message: user("trickle"), configuration }));
    const it = c.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
    const first = (await it.next()).value as StreamResponse;
    await until("the executor waits at its gate", () => gates.has(task.id));
    gates.get(task.id)!();
    const rest = await collect({ [Symbol.asyncIterator]: () => it });
    const seen = [
      ...(first.payload.value as Task).artifacts.map((a) => a.artifactId),
      ...rest.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value.artifact?.artifactId] : [])),
    ];
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `t${i}`));
    expect(shape(rest.at(-1)!)).toBe("status COMPLETED");
  });

  it("cancel: the task is CANCELED, the executor's signal aborts, its late update is dropped", async () => {
    const task = taskOf(await c.sendMessage({ message: user("wait"), configuration: { returnImmediately: true } }));
    const canceled = await c.cancelTask({ id: task.id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    await until("the executor's signal aborted", () => aborted.has(task.id));
    await until("the executor's late update resolved", () => lateDone.has(task.id));
    expect((await c.getTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
    expect(await failure(c.cancelTask({ id: task.id }))).toBe("TaskNotCancelableError");
    expect(await failure(c.cancelTask({ id: "no-such-task" }))).toBe("TaskNotFoundError");
  });

  it("an executor that throws leaves its task FAILED without the error's details, and onError told", async () => {
    const before = errors.length;
    const task = taskOf(await c.sendMessage({ message: user("boom") }));
    expect(task.status?.state).toBe(TaskState.FAILED);
    expect(textOf(task.status?.message)).not.toContain("secret");
    expect(errors.slice(before).map(String)).toContain("Error: secret detail");
    // A throw before the task exists is the call's InternalError, reported by the server, not the handler.
    expect(await failure(c.sendMessage({ message: user("early-boom") }))).toBe("InternalError");
    expect(servers.serverErrors.at(-1)).toBe("SendMessage: Error: early secret");
    // An executor refuses a message with an A2A error before any task: that is the call's answer.
    expect(await failure(c.sendMessage({ message: user("refuse") }))).toBe("ContentTypeNotSupportedError");
    const stream = c.sendStreamingMessage({ message: user("refuse") });
    expect(await failure(collect(stream))).toBe("ContentTypeNotSupportedError");
  });

  it("push configs: create (URL screened), get, list, delete, scoped to the task; deliveries", async () => {
    const task = taskOf(await c.sendMessage({ message: user("ask") }));
    const url = "https://hooks.example/a2a";
    expect(await failure(c.createTaskPushNotificationConfig({ taskId: task.id, url: "http://x.example" }))).toBe(
      "InvalidParamsError",
    );
    expect(await failure(c.createTaskPushNotificationConfig({ taskId: "no-such-task", url }))).toBe(
      "TaskNotFoundError",
    );
    const made = await c.createTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1", url, token: "tok" });
    expect([made.id, made.taskId, made.url]).toEqual(["cfg-1", task.id, url]);
    expect((await c.getTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" })).token).toBe("tok");
    if (way === "JSONRPC 0.3") {
      // v0.3's get names only the task (the id is waived there): the task's first config.
      expect((await c.getTaskPushNotificationConfig({ taskId: task.id })).id).toBe("cfg-1");
    }
    const list = await c.listTaskPushNotificationConfigs({ taskId: task.id });
    expect(list.configs.map((x) => x.id)).toEqual(["cfg-1"]);
    const before = deliveries.length;
    await c.sendMessage({ message: user("answer", { taskId: task.id }) });
    await until("deliveries for the continued task", () => deliveries.length >= before + 3);
    const mine = deliveries.slice(before).filter((d) => d.config.taskId === task.id);
    const version = way === "JSONRPC 0.3" ? "0.3" : "1.0";
    expect(new Set(mine.map((d) => d.protocolVersion))).toEqual(new Set([version]));
    const last = JSON.parse(mine.at(-1)!.body) as { statusUpdate?: { status?: { state?: string } } };
    const older = JSON.parse(mine.at(-1)!.body) as { status?: { state?: string } };
    if (version === "1.0") expect(last.statusUpdate?.status?.state).toBe("TASK_STATE_COMPLETED");
    else expect(older.status?.state).toBe("completed");
    await c.deleteTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" });
    await c.deleteTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" });
    expect(await failure(c.getTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" }))).toBe("TaskNotFoundError");
    expect(await failure(c.listTaskPushNotificationConfigs({ taskId: "no-such-task" }))).toBe("TaskNotFoundError");
  });

  it("a push config given with the message gets the task's first events", async () => {
    const before = deliveries.length;
    const configuration = { taskPushNotificationConfig: { url: "https://hooks.example/first" } };
    const task = taskOf(await c.sendMessage({ message: user("echo"), configuration }));
    await until(
      "four deliveries",
      () => deliveries.slice(before).filter((d) => d.config.taskId === task.id).length >= 4,
    );
    const mine = deliveries.slice(before).filter((d) => d.config.taskId === task.id);
    expect(mine).toHaveLength(4);
    expect(mine[0]!.config.id).not.toBe("");
  });
});

describe.each(WAYS.filter((w) => w !== "JSONRPC 0.3"))("ListTasks and tenants over %s", (way: Way) => {
  it("filters by context and status, pages within 1..100, trims history and artifacts, per tenant", async () => {
    const tenant = `tenant-${crypto.randomUUID()}`;
    const c = servers.client(way, tenant);
    const contextId = `ctx-${crypto.randomUUID()}`;
    const ids: string[] = [];
    for (const text of ["echo", "echo", "ask"]) {
      ids.push(taskOf(await c.sendMessage({ message: user(text, { contextId }) })).id);
    }
    const all = await c.listTasks({ contextId });
    expect([all.totalSize, all.pageSize, all.nextPageToken]).toEqual([3, 50, ""]);
    // Newest status first (tasks made in the same millisecond may come in either order).
    expect(all.tasks.map((t) => t.id).sort()).toEqual([...ids].sort());
    const ms = all.tasks.map((t) => timestampMs(t.status!.timestamp!));
    expect(ms).toEqual([...ms].sort((a, b) => b - a));
    expect(all.tasks.every((t) => t.artifacts.length === 0)).toBe(true);
    const withArtifacts = await c.listTasks({ contextId, includeArtifacts: true, historyLength: 1 });
    expect(withArtifacts.tasks.map((t) => t.artifacts.length).sort()).toEqual([0, 1, 1]);
    expect(withArtifacts.tasks.map((t) => t.history.length)).toEqual([1, 1, 1]);
    const completed = await c.listTasks({ contextId, status: TaskState.COMPLETED });
    expect(completed.tasks.map((t) => t.id).sort()).toEqual(ids.slice(0, 2).sort());

    const first = await c.listTasks({ contextId, pageSize: 2 });
    expect([first.tasks.length, first.totalSize, first.pageSize]).toEqual([2, 3, 2]);
    expect(first.nextPageToken).not.toBe("");
    const second = await c.listTasks({ contextId, pageSize: 2, pageToken: first.nextPageToken });
    expect([...first.tasks, ...second.tasks].map((t) => t.id)).toEqual(all.tasks.map((t) => t.id));
    expect(second.nextPageToken).toBe("");
    for (const pageSize of [0, 101]) expect(await failure(c.listTasks({ pageSize }))).toBe("InvalidParamsError");
    expect(await failure(c.listTasks({ historyLength: -1 }))).toBe("InvalidParamsError");
    expect(await failure(c.getTask({ id: ids[0]!, historyLength: -1 }))).toBe("InvalidParamsError");
    expect(await failure(c.listTasks({ pageToken: "not-a-token" }))).toBe("InvalidParamsError");

    const other = servers.client(way, `other-${tenant}`);
    expect((await other.listTasks({ contextId })).totalSize).toBe(0);
    expect(await failure(other.getTask({ id: ids[0]! }))).toBe("TaskNotFoundError");
    expect(await failure(other.cancelTask({ id: ids[2]! }))).toBe("TaskNotFoundError");
    const answer = user("answer", { taskId: ids[2]! });
    expect(await failure(other.sendMessage({ message: answer }))).toBe("TaskNotFoundError");
    const url = "https://hooks.example/t";
    expect(await failure(other.createTaskPushNotificationConfig({ taskId: ids[2]!, url }))).toBe("TaskNotFoundError");
    expect((await servers.client(way).listTasks({ contextId })).totalSize).toBe(0);
  });

  it("statusTimestampAfter keeps the tasks whose status changed at or after it", async () => {
    const c = servers.client(way, `tenant-${crypto.randomUUID()}`);
    const contextId = `ctx-${crypto.randomUUID()}`;
    const old = taskOf(await c.sendMessage({ message: user("echo", { contextId }) }));
    const after = old.status!.timestamp!;
    const later = { seconds: after.seconds + 1n, nanos: after.nanos };
    expect((await c.listTasks({ contextId, statusTimestampAfter: later })).totalSize).toBe(0);
    const earlier = { seconds: after.seconds - 1n, nanos: after.nanos };
    expect((await c.listTasks({ contextId, statusTimestampAfter: earlier })).tasks.map((t) => t.id)).toEqual([old.id]);
    // The same instant counts ("greater than or equal", a2a.proto); 0.4 ms later does not (no rounding to ms).
    expect((await c.listTasks({ contextId, statusTimestampAfter: after })).tasks.map((t) => t.id)).toEqual([old.id]);
    const justAfter = { seconds: after.seconds, nanos: after.nanos + 400_000 };
    expect((await c.listTasks({ contextId, statusTimestampAfter: justAfter })).totalSize).toBe(0);
  });
});
