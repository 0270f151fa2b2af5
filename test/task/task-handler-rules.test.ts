/**
 * createTaskHandler's rules that need no wire, called in process: the
 * startup check of the definition, a handler without push, two handlers
 * (two agent instances) over one store, where a cancel on one aborts the
 * executor running on the other, and concurrent writers on one task, which
 * the compare-and-set loop keeps from losing or doubling an update.
 */
import { callerContext, principal } from "../helpers/caller-context.js";
import { describe, expect, it } from "vitest";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { A2AError } from "@protoc-gen-a2a/runtime";
import {
  createMemoryTaskStore,
  createTaskHandler,
  TaskState,
  type AgentExecutor,
  type PushSender,
} from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { A2AServiceV0_3 } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import {
  CancelTaskRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  Role,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  type SendMessageResponseSchema,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { handlerContext } from "../helpers/task-values.js";

const context = handlerContext();

const send = (text: string, more: { returnImmediately?: boolean; url?: string } = {}) =>
  create(SendMessageRequestSchema, {
    message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
    configuration: {
      returnImmediately: more.returnImmediately ?? false,
      ...(more.url ? { taskPushNotificationConfig: { url: more.url } } : {}),
    },
  });

/** The task of a handler's answer (a handler answers init shapes; this one gives whole messages). */
function taskOf(r: MessageInitShape<typeof SendMessageResponseSchema>): Task {
  if (r.payload?.case !== "task") throw new Error(`expected a task, got ${r.payload?.case}`);
  return r.payload.value as Task;
}

async function failure(call: Promise<unknown>): Promise<string> {
  const e = await call.then(
    () => undefined,
    (x: unknown) => x,
  );
  return e instanceof A2AError ? e.type : `no A2AError: ${String(e)}`;
}

const LOOKS = 400;
async function until(what: string, test: () => boolean): Promise<void> {
  for (let i = 0; i < LOOKS && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!test()) throw new Error(`not seen: ${what}`);
}

/** Works until its signal aborts, then says so. */
const aborted = new Set<string>();
const waiting: AgentExecutor = {
  async execute(ctx, up) {
    await up.status(TaskState.WORKING);
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
    aborted.add(ctx.taskId);
  },
};

describe("createTaskHandler's startup check", () => {
  it("refuses a definition that is not lf.a2a.v1.A2AService, naming it", () => {
    const wrong = A2AServiceV0_3 as unknown as typeof A2AServiceV1_0;
    expect(() => createTaskHandler({ definition: wrong, executor: waiting })).toThrow(
      "createTaskHandler: the definition of a2a.v1.A2AService (protocol 0.3) is not lf.a2a.v1.A2AService",
    );
  });

  it("refuses missing methods, other message types and missing fields, listing each", () => {
    const { service } = A2AServiceV1_0;
    const send = service.method.sendMessage.input;
    const lean = { ...send, fields: send.fields.filter((f) => f.localName !== "configuration") };
    const methods = service.methods
      .filter((m) => m.localName !== "listTasks")
      .map((m) => (m.input === send ? { ...m, input: lean } : m))
      .map((m) => (m.localName === "cancelTask" ? { ...m, output: lean } : m));
    const definition = { ...A2AServiceV1_0, service: { ...service, methods } } as unknown as typeof A2AServiceV1_0;
    expect(() => createTaskHandler({ definition, executor: waiting })).toThrow(
      "createTaskHandler: the definition of lf.a2a.v1.A2AService (protocol 1.0) does not match the task " +
        "runtime: method listTasks is missing; method cancelTask is lf.a2a.v1.CancelTaskRequest → " +
        "lf.a2a.v1.SendMessageRequest, expected lf.a2a.v1.CancelTaskRequest → lf.a2a.v1.Task; " +
        "lf.a2a.v1.SendMessageRequest lacks configuration",
    );
  });
});

describe("a handler without push", () => {
  const handler = createTaskHandler({ definition: A2AServiceV1_0, executor: waiting });

  it("has no push config operations (the servers answer PushNotificationNotSupportedError)", () => {
    expect(handler.createTaskPushNotificationConfig).toBeUndefined();
    expect(handler.getExtendedAgentCard).toBeUndefined();
    expect(Object.keys(handler).sort()).toEqual(
      ["cancelTask", "getTask", "listTasks", "sendMessage", "sendStreamingMessage", "subscribeToTask"].sort(),
    );
  });

  it("refuses a message that asks for push, before any task is made", async () => {
    const r = handler.sendMessage!(send("x", { url: "https://hooks.example/" }), context);
    expect(await failure(r)).toBe("PushNotificationNotSupportedError");
    expect((await handler.listTasks!(create(ListTasksRequestSchema), context)).totalSize).toBe(0);
  });
});

describe("idGenerator", () => {
  it("names new tasks, contexts and push configs", async () => {
    let n = 0;
    const sender: PushSender = { checkUrl: async () => undefined, send: () => undefined, idle: async () => undefined };
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor: waiting,
      push: { sender },
      idGenerator: () => `id-${++n}`,
    });
    const task = taskOf(await handler.sendMessage!(send("x", { returnImmediately: true }), context));
    expect([task.id, task.contextId]).toEqual(["id-1", "id-2"]);
    const config = await handler.createTaskPushNotificationConfig!(
      create(TaskPushNotificationConfigSchema, { taskId: task.id, url: "https://hooks.example/" }),
      context,
    );
    expect(config.id).toBe("id-3");
    await handler.cancelTask!(create(CancelTaskRequestSchema, { id: task.id }), context);
  });
});

describe("the extended agent card", () => {
  it("is answered by the extendedAgentCard option, for the caller and with the call's context", async () => {
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor: waiting,
      extendedAgentCard: async (p, ctx) => ({ name: `card for ${p.id} over ${ctx.binding}` }),
    });
    const asked = create(GetExtendedAgentCardRequestSchema);
    const card = await handler.getExtendedAgentCard!(asked, callerContext(principal("alice")));
    expect(card.name).toBe("card for alice over JSONRPC");
    await expect(handler.getExtendedAgentCard!(asked, context)).rejects.toMatchObject({ type: "UnauthenticatedError" });
  });
});

describe("two instances over one store", () => {
  it("a cancel on one aborts the executor running on the other", async () => {
    const store = createMemoryTaskStore();
    const a = createTaskHandler({ definition: A2AServiceV1_0, executor: waiting, store });
    const b = createTaskHandler({ definition: A2AServiceV1_0, executor: waiting, store });
    const task = taskOf(await a.sendMessage!(send("wait", { returnImmediately: true }), context));
    const canceled = await b.cancelTask!(create(CancelTaskRequestSchema, { id: task.id }), context);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    await until("the executor on instance a aborted", () => aborted.has(task.id));
  });

  it("concurrent cancels: exactly one commits, the others find the task terminal", async () => {
    const store = createMemoryTaskStore();
    const handlers = Array.from({ length: 4 }, () =>
      createTaskHandler({ definition: A2AServiceV1_0, executor: waiting, store }),
    );
    const task = taskOf(await handlers[0]!.sendMessage!(send("wait", { returnImmediately: true }), context));
    const cancel = create(CancelTaskRequestSchema, { id: task.id });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => handlers[i % 4]!.cancelTask!(cancel, context).then(() => "ok", String)),
    );
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(results.filter((r) => r.includes("terminal"))).toHaveLength(11);
  });
});

describe("push delivery", () => {
  it("reports a config whose protocol version has no payload to onError, and delivers the others", async () => {
    const sent: string[] = [];
    const errors: string[] = [];
    const sender: PushSender = {
      checkUrl: async () => undefined,
      send: (d) => void sent.push(`${d.config.id} ${d.protocolVersion}`),
      idle: async () => undefined,
    };
    const store = createMemoryTaskStore();
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor: waiting,
      store,
      push: { sender },
      onError: (e, at) => void errors.push(`${at.operation}: ${String(e)}`),
    });
    const task = taskOf(await handler.sendMessage!(send("wait", { returnImmediately: true }), context));
    const config = {
      $typeName: "lf.a2a.v1.TaskPushNotificationConfig" as const,
      tenant: "",
      taskId: task.id,
      token: "",
    };
    await store.putPushConfig("", {
      config: { ...config, id: "new", url: "https://n.example" },
      protocolVersion: "1.0",
    });
    await store.putPushConfig("", {
      config: { ...config, id: "old", url: "https://o.example" },
      protocolVersion: "0.3",
    });
    await handler.cancelTask!(create(CancelTaskRequestSchema, { id: task.id }), context);
    await until("the cancel's delivery", () => sent.includes("new 1.0"));
    expect(sent).toEqual(["new 1.0"]);
    expect(errors).toEqual([`CancelTask: Error: push config old of task ${task.id}: no push payload for protocol 0.3`]);
  });

  it("a push config that cannot be stored fails the new task and the call, and onError is told", async () => {
    const memory = createMemoryTaskStore();
    // The memory store, except that it cannot store push configs.
    const store = new Proxy(memory, {
      get: (target, key) =>
        key === "putPushConfig"
          ? () => Promise.reject(new Error("push configs are read-only today"))
          : (Reflect.get(target, key, target) as unknown),
    });
    const errors: string[] = [];
    const sender: PushSender = { checkUrl: async () => undefined, send: () => undefined, idle: async () => undefined };
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor: waiting,
      store,
      push: { sender },
      onError: (e) => void errors.push(String(e)),
    });
    const call = handler.sendMessage!(send("x", { url: "https://hooks.example/" }), context);
    expect(await call.then(() => "answered", String)).toMatch(/the executor ended before the call was answered$/);
    const listed = await handler.listTasks!(create(ListTasksRequestSchema), context);
    expect(listed.tasks?.map((t) => t.status?.state)).toEqual([TaskState.FAILED]);
    expect(errors).toEqual(["Error: push configs are read-only today"]);
  });
});

describe("listeners", () => {
  it("every listener the handler opens is closed: runs, streams, subscribers that stop early", async () => {
    const store = createMemoryTaskStore();
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor: waiting, store });
    const task = taskOf(await handler.sendMessage!(send("wait", { returnImmediately: true }), context));
    expect(store.stats().subscribedTasks).toBe(1);
    const subscription = handler.subscribeToTask!(create(SubscribeToTaskRequestSchema, { id: task.id }), context);
    const it = subscription[Symbol.asyncIterator]();
    expect((await it.next()).value?.payload?.case).toBe("task");
    await it.return?.();
    const stream = handler.sendStreamingMessage!(send("wait"), context)[Symbol.asyncIterator]();
    expect((await stream.next()).value?.payload?.case).toBe("task");
    await stream.return?.();
    await handler.cancelTask!(create(CancelTaskRequestSchema, { id: task.id }), context);
    await until("no listener left", () => store.stats().subscribedTasks === 1);
    const other = (await handler.listTasks!(create(ListTasksRequestSchema), context)).tasks?.find(
      (t) => t.id !== task.id,
    );
    await handler.cancelTask!(create(CancelTaskRequestSchema, { id: other!.id! }), context);
    await until("no listener left", () => store.stats().subscribedTasks === 0);
  });
});

describe("copies", () => {
  it("what an executor changes after publishing reaches neither the stored task nor the stream", async () => {
    const artifact = {
      $typeName: "lf.a2a.v1.Artifact" as const,
      artifactId: "a1",
      name: "",
      description: "",
      parts: [
        {
          $typeName: "lf.a2a.v1.Part" as const,
          content: { case: "text" as const, value: "as published" },
          filename: "",
          mediaType: "",
        },
      ],
      extensions: [],
    };
    let changed!: () => void;
    const wrote = new Promise<void>((resolve) => {
      changed = resolve;
    });
    const executor: AgentExecutor = {
      async execute(_ctx, up) {
        await up.artifact(artifact);
        artifact.parts[0]!.content.value = "changed by the executor";
        artifact.artifactId = "renamed";
        changed();
        await up.status(TaskState.COMPLETED);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor });
    const events = [];
    for await (const e of handler.sendStreamingMessage!(send("x"), context)) {
      if (e.payload?.case === "artifactUpdate") await wrote;
      events.push(e);
    }
    const streamed = events.find((e) => e.payload?.case === "artifactUpdate");
    expect(streamed?.payload?.value).toMatchObject({ artifact: { artifactId: "a1" } });
    const taskId = (events[0]!.payload!.value as Task).id;
    const stored = await handler.getTask!(create(GetTaskRequestSchema, { id: taskId }), context);
    expect(stored.artifacts?.map((a) => [a.artifactId, a.parts?.[0]?.content?.value])).toEqual([
      ["a1", "as published"],
    ]);
  });

  it("CancelTask's answer and a continued task given to the executor are copies of their own", async () => {
    const given: Task[] = [];
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        if (ctx.task) {
          given.push(ctx.task);
          ctx.task.history.length = 0;
        }
        await up.status(TaskState.INPUT_REQUIRED);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor });
    const first = taskOf(await handler.sendMessage!(send("x"), context));
    const next = send("y");
    next.message!.taskId = first.id;
    const continued = taskOf(await handler.sendMessage!(next, context));
    expect(given).toHaveLength(1);
    expect(continued.history?.length).toBe(2);
    const canceled = await handler.cancelTask!(create(CancelTaskRequestSchema, { id: first.id }), context);
    canceled.history!.length = 0;
    canceled.status!.state = TaskState.WORKING;
    const stored = await handler.getTask!(create(GetTaskRequestSchema, { id: first.id }), context);
    expect(stored.status?.state).toBe(TaskState.CANCELED);
    expect(stored.history?.map((m) => m.parts?.[0]?.content?.value)).toEqual(["x", "y"]);
  });

  it("an executor that looks at its signal only after a cancel finds it aborted", async () => {
    let look!: () => void;
    const later = new Promise<void>((resolve) => {
      look = resolve;
    });
    const seen: boolean[] = [];
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        await up.status(TaskState.WORKING);
        await later;
        seen.push(ctx.signal.aborted);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor });
    const task = taskOf(await handler.sendMessage!(send("x", { returnImmediately: true }), context));
    await handler.cancelTask!(create(CancelTaskRequestSchema, { id: task.id }), context);
    await new Promise((resolve) => setTimeout(resolve, 10));
    look();
    await until("the executor looked", () => seen.length === 1);
    expect(seen).toEqual([true]);
  });
});

describe("a compare-and-set store (no update)", () => {
  /** The memory store without `update`, so the handler reads, changes and commits as with PostgreSQL. */
  const casStore = () => {
    const memory = createMemoryTaskStore();
    return new Proxy(memory, {
      get: (target, key) => (key === "update" ? undefined : (Reflect.get(target, key, target) as unknown)),
    });
  };

  /** Publishes working, waits for `later`, then an artifact and completed; a continuing message publishes nothing. */
  const stepwise = (later: Promise<void>): AgentExecutor => ({
    async execute(ctx, up) {
      if (ctx.task) return;
      await up.status(TaskState.WORKING);
      await later;
      const artifact = { artifactId: "a1", name: "", description: "", parts: [], extensions: [] };
      await up.artifact({ $typeName: "lf.a2a.v1.Artifact", ...artifact });
      await up.status(TaskState.COMPLETED);
    },
  });

  async function settled(handler: ReturnType<typeof createTaskHandler<typeof A2AServiceV1_0.service>>, id: string) {
    for (let i = 0; i < LOOKS; i++) {
      const task = (await handler.getTask!(create(GetTaskRequestSchema, { id }), context)) as Task;
      if (task.status?.state === TaskState.COMPLETED || task.status?.state === TaskState.CANCELED) return task;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`task ${id} did not end`);
  }

  it("an executor's next change, started from what it wrote last, loses no other instance's change", async () => {
    let go!: () => void;
    const later = new Promise<void>((resolve) => {
      go = resolve;
    });
    const store = casStore();
    const a = createTaskHandler({ definition: A2AServiceV1_0, executor: stepwise(later), store });
    const task = taskOf(await a.sendMessage!(send("first", { returnImmediately: true }), context));
    let read = (await store.get("", task.id))!;
    for (let i = 0; i < LOOKS && read.task.status?.state !== TaskState.WORKING; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      read = (await store.get("", task.id))!;
    }
    // Another instance's write while the executor waits (a follow-up message would be refused: one turn at a time).
    const second = send("second").message!;
    const changed = { ...read.task, history: [...read.task.history, { ...second, taskId: task.id }] };
    expect(await store.commit("", { task: changed, expectedVersion: read.version, events: [] })).toBe(read.version + 1);
    go();
    const done = await settled(a, task.id);
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    expect(done.history?.map((m) => m.parts?.[0]?.content?.value)).toEqual(["first", "second"]);
    expect(done.artifacts?.map((x) => x.artifactId)).toEqual(["a1"]);
  });

  it("a cancel through another instance stops what the executor publishes next", async () => {
    let go!: () => void;
    const later = new Promise<void>((resolve) => {
      go = resolve;
    });
    const store = casStore();
    const a = createTaskHandler({ definition: A2AServiceV1_0, executor: stepwise(later), store });
    const b = createTaskHandler({ definition: A2AServiceV1_0, executor: stepwise(later), store });
    const task = taskOf(await a.sendMessage!(send("first", { returnImmediately: true }), context));
    await until("the task is working", () => true);
    await b.cancelTask!(create(CancelTaskRequestSchema, { id: task.id }), context);
    go();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const done = await settled(a, task.id);
    expect(done.status?.state).toBe(TaskState.CANCELED);
    expect(done.artifacts ?? []).toEqual([]);
  });
});
