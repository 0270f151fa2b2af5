/**
 * The memory store's byte budget (packages/runtime/src/task/memory-budget.ts,
 * memory-size.ts): terminal tasks dropped oldest first to stay within
 * maxBytes, and none for a write that would not fit with all of them
 * dropped (nor by maxTasks for such a create); a new task, or a commit
 * growing an active one, refused past it
 * (InternalError, HTTP 503, naming maxBytes, the tenant and the task) while a
 * task may still end, and so a push config past it (configs count to their task,
 * a terminal one's too); a tenant's active tasks held to maxTenantShare, so that
 * tenant A filling the store leaves tenant B served (through real servers);
 * an estimate that is not far under the heap the tasks take; and the example
 * agent in a child process with A2A_MEMORY_MAX_BYTES, sent 0.9 MB texts until
 * well past its budget: it stays up, and its heap after collection stays
 * within the budget and a fixed overhead.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import {
  type AgentExecutor,
  createMemoryTaskStore,
  createTaskHandler,
  type MemoryTaskStore,
  TaskState,
} from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type ExampleProcess, startExampleProcess, stopAllExampleProcesses } from "../helpers/example-process.js";
import type { Task } from "../../packages/runtime/src/task/a2a-types.js";
import { makeTask, pushConfig, type TaskShape } from "./store-fixtures.js";
import { startTaskServers, type TaskServers } from "./task-servers.js";

const MIB = 1024 * 1024;
const DONE = 3;

/** A task whose one message holds `kb` kilobytes of text. */
function sized(id: string, kb: number, shape: TaskShape = {}): Task {
  const task = makeTask(id, shape);
  const [first, ...rest] = task.history[0]!.parts;
  const text = { ...first!, content: { case: "text" as const, value: `${id}:${"x".repeat(kb * 1024)}` } };
  return { ...task, history: [{ ...task.history[0]!, parts: [text, ...rest] }] };
}

async function put(store: MemoryTaskStore, tenant: string, id: string, kb: number, state = 2): Promise<number> {
  const current = await store.get(tenant, id);
  const task = sized(id, kb, { state });
  const version = await store.commit(tenant, { task, expectedVersion: current?.version ?? 0, events: [] });
  if (version === undefined) throw new Error(`commit of ${id} lost`);
  return version;
}

async function refusal(call: Promise<unknown>): Promise<A2AError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof A2AError)) throw new Error(`expected an A2AError, got ${String(error)}`);
  return error;
}

describe("memory store: maxBytes", () => {
  it("drops terminal tasks, the one that ended longest ago first, to stay within maxBytes", async () => {
    const store = createMemoryTaskStore({ maxBytes: MIB });
    for (let i = 0; i < 30; i++) {
      await put(store, "t", `done${i}`, 120, DONE);
      expect(store.stats().bytes).toBeLessThanOrEqual(MIB);
    }
    expect(store.stats().tasks).toBeGreaterThanOrEqual(5);
    expect(store.stats().tasks).toBeLessThan(10);
    expect(await store.get("t", "done0")).toBeUndefined();
    expect(await store.get("t", "done29")).toBeDefined();
    const kept = (
      await store.list("t", { contextId: "", status: 0, statusAfterMs: undefined, pageSize: 100, pageToken: "" })
    ).totalSize;
    expect(kept).toBe(store.stats().tasks);
  });

  it("refuses a new task when only active tasks are left, naming maxBytes, the tenant and the task", async () => {
    const store = createMemoryTaskStore({ maxBytes: MIB, maxTenantShare: 1, maxOwnerShare: 1 });
    let made = 0;
    for (; made < 20; made++) {
      const refused = await store.commit("ten", { task: sized(`a${made}`, 120), expectedVersion: 0, events: [] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (refused !== undefined) {
        expect(refused).toBeInstanceOf(A2AError);
        const error = refused as A2AError;
        expect([error.type, error.options.httpStatus]).toEqual(["InternalError", 503]);
        expect(error.message).toMatch(new RegExp(`task a${made} \\(tenant "ten"\\).*maxBytes ${MIB}`));
        break;
      }
    }
    expect(made).toBeGreaterThanOrEqual(5);
    expect(made).toBeLessThan(10);
    expect(await store.get("ten", `a${made}`)).toBeUndefined();
    expect(store.stats().bytes).toBeLessThanOrEqual(MIB);
    // One ends; its room goes to the next new task.
    await put(store, "ten", "a0", 120, DONE);
    await put(store, "ten", `a${made}`, 120);
    expect(await store.get("ten", "a0")).toBeUndefined();
  });

  it("refuses a commit growing an active task past the budget, and still lets a task end", async () => {
    const store = createMemoryTaskStore({ maxBytes: MIB, maxTenantShare: 1, maxOwnerShare: 1 });
    for (let i = 0; i < 4; i++) await put(store, "t", `a${i}`, 240);
    const grow = store.commit("t", { task: sized("a0", 400), expectedVersion: 1, events: [] });
    expect((await refusal(grow)).message).toMatch(/cannot store task a0 \(tenant "t"\).*maxBytes/);
    expect((await store.get("t", "a0"))?.version).toBe(1);
    // A FAILED status with a short message: a little more, never refused.
    const stored = (await store.get("t", "a1"))!;
    const failed = { ...stored.task, status: { ...stored.task.status!, state: 4 }, history: [...stored.task.history] };
    failed.history.push({ ...failed.history[0]!, messageId: "failure", parts: [] });
    expect(await store.commit("t", { task: failed, expectedVersion: 1, events: [] })).toBe(2);
  });

  it("refuses a write that would not fit with every terminal task dropped, and drops none", async () => {
    // Each tenant's active tasks stay within their share: only the store in all is full.
    const store = createMemoryTaskStore({ maxBytes: MIB, maxTenantShare: 0.6, maxOwnerShare: 1 });
    await put(store, "A", "a0", 240);
    await put(store, "A", "a1", 240);
    await put(store, "B", "b0", 240);
    await put(store, "B", "done0", 60, DONE);
    await put(store, "B", "done1", 60, DONE);
    const before = store.stats();
    const grow = store.commit("B", { task: sized("b0", 580), expectedVersion: 1, events: [] });
    expect((await refusal(grow)).message).toMatch(/cannot store task b0 \(tenant "B"\).*maxBytes.*terminal tasks/);
    expect(store.stats()).toEqual(before);
    expect([await store.get("B", "done0"), await store.get("B", "done1")].map((t) => t?.version)).toEqual([1, 1]);
    // A write that fits once the oldest is dropped drops it alone.
    await put(store, "B", "b0", 440);
    expect([await store.get("B", "done0"), await store.get("B", "done1")].map((t) => t?.version)).toEqual([
      undefined,
      1,
    ]);
  });

  it("refuses such a create before making room for it by maxTasks, so no terminal task goes", async () => {
    const store = createMemoryTaskStore({ maxBytes: MIB, maxTasks: 2, maxTenantShare: 0.6, maxOwnerShare: 1 });
    await put(store, "A", "active", 500);
    await put(store, "A", "done", 10, DONE);
    const create = store.commit("B", { task: sized("new", 590), expectedVersion: 0, events: [] });
    expect((await refusal(create)).message).toMatch(/cannot store task new \(tenant "B"\).*maxBytes/);
    expect((await store.get("A", "done"))?.version).toBe(1);
    expect(store.stats()).toMatchObject({ tasks: 2, terminalTasks: 1 });
  });

  it("keeps a tenant's active tasks within maxTenantShare; another tenant is still served", async () => {
    const store = createMemoryTaskStore({ maxBytes: MIB, maxTenantShare: 0.5 });
    let error: A2AError | undefined;
    for (let i = 0; i < 10 && error === undefined; i++) {
      error = await store.commit("A", { task: sized(`a${i}`, 100), expectedVersion: 0, events: [] }).then(
        () => undefined,
        (e: unknown) => e as A2AError,
      );
    }
    expect(error?.message).toMatch(/tenant "A"\).*maxTenantShare 0.5/);
    expect(error?.options.httpStatus).toBe(503);
    // A's terminal tasks fill the rest, and make way for B's.
    for (let i = 0; i < 6; i++) await put(store, "A", `done${i}`, 100, DONE);
    for (let i = 0; i < 4; i++) await put(store, "B", `b${i}`, 100);
    expect(store.stats().bytes).toBeLessThanOrEqual(MIB);
    expect((await store.get("B", "b3"))?.version).toBe(1);
  });

  it.each([
    ["working", 2],
    ["completed", DONE],
  ])("counts push configs to their %s task: refused past the budget, given back when deleted", async (_, state) => {
    const store = createMemoryTaskStore({
      maxBytes: MIB,
      maxTenantShare: 1,
      maxOwnerShare: 1,
      maxPushConfigsPerTask: 1000,
    });
    // A terminal task's configs get no "tasks can end" slack: that is for the commit ending a task.
    await put(store, "t", "hooked", 1, state);
    const empty = store.stats().bytes;
    // Configs of about 3.4 KB estimated (under the 4 KiB of slack a commit ending a task gets): ~300 in a MiB.
    const config = (id: string) => {
      const made = pushConfig("t", "hooked", id, `https://example.com/${"p".repeat(500)}`);
      return { ...made, config: { ...made.config, token: "t".repeat(1000) } };
    };
    let stored = 0;
    const error = await refusal(
      (async () => {
        for (; stored < 1000; stored++) await store.putPushConfig("t", config(`c${stored}`));
      })(),
    );
    expect([error.type, error.options.httpStatus]).toEqual(["InternalError", 503]);
    expect(error.message).toMatch(/task hooked \(tenant "t"\).*maxBytes 1048576/);
    expect(stored).toBeGreaterThan(10);
    expect(stored).toBeLessThan(600);
    expect(store.stats().bytes).toBeLessThanOrEqual(MIB);
    for (let i = 0; i < stored; i++) await store.deletePushConfig("t", "hooked", `c${i}`);
    expect(store.stats().bytes).toBe(empty);
  });

  it("estimates a task changed by 40 updates as it estimates the same task committed whole", async () => {
    const store = createMemoryTaskStore();
    const start = makeTask("inc", { state: TaskState.WORKING });
    await store.commit("", { task: start, expectedVersion: 0, events: [] });
    const part = (text: string) => ({
      ...start.history[0]!.parts[0]!,
      content: { case: "text" as const, value: text },
    });
    const artifact = (id: string, text: string) => ({
      $typeName: "lf.a2a.v1.Artifact" as const,
      artifactId: id,
      name: "",
      description: "",
      parts: [part(text)],
      extensions: [],
    });
    for (let i = 0; i < 40; i++) {
      await store.update!("", "inc", ({ task }) => {
        const artifacts = [...task.artifacts];
        if (i % 4 === 0) artifacts.push(artifact(`a${i}`, "é".repeat(i * 50)));
        else if (i % 4 === 1) artifacts[0] = { ...artifacts[0]!, parts: [...artifacts[0]!.parts, part(`more ${i}`)] };
        else if (i % 4 === 2) artifacts[artifacts.length - 1] = artifact(`a${i}`, "x".repeat(2000 + i));
        const history = i % 4 === 3 ? [...task.history, { ...task.history[0]!, messageId: `m${i}` }] : task.history;
        const status = i % 2 === 0 ? task.status : { ...task.status!, state: TaskState.WORKING };
        return { task: { ...task, artifacts, history, status }, events: [] };
      });
    }
    const final = (await store.get("", "inc"))!.task;
    const whole = createMemoryTaskStore();
    await whole.commit("", { task: final, expectedVersion: 0, events: [] });
    expect(store.stats().bytes).toBe(whole.stats().bytes);
  });

  it("estimates no less than two thirds of the heap its tasks take", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const store = createMemoryTaskStore({ maxBytes: 1024 * MIB, maxTasks: 100_000 });
    const base = heap();
    for (let i = 0; i < 2000; i++) {
      const wide = i % 2 === 0 ? "x".repeat(3000) : "é€".repeat(1500);
      const task = makeTask(`t${i}`, { contextId: `c${i}`, text: `${i}:${wide}` });
      await store.commit("", { task, expectedVersion: 0, events: [] });
    }
    const used = heap() - base;
    expect(store.stats().bytes).toBeGreaterThan((used * 2) / 3);
  });
});

describe("one tenant filling a served store", () => {
  let servers: TaskServers | undefined;
  afterAll(async () => {
    await servers?.close();
  });

  it("leaves the other tenant served", async () => {
    /** "hold …": works until canceled; anything else is echoed and completed. */
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        const part = ctx.message.parts[0]?.content;
        const text = part?.case === "text" ? part.value : "";
        await up.status(TaskState.WORKING);
        if (text.startsWith("hold")) {
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          return;
        }
        await up.status(TaskState.COMPLETED, text.slice(0, 10));
      },
    };
    const store = createMemoryTaskStore({ maxBytes: 2 * MIB, maxTenantShare: 0.5 });
    servers = await startTaskServers(createTaskHandler({ definition: A2AServiceV1_0, executor, store }));
    const [a, b] = ["A", "B"].map((tenant) => servers!.client("HTTP+JSON 1.0", tenant));
    const message = (text: string) => ({
      messageId: crypto.randomUUID(),
      role: Role.USER,
      parts: [{ content: { case: "text" as const, value: `${text}:${"y".repeat(200 * 1024)}` } }],
    });
    let refused: A2AError | undefined;
    for (let i = 0; i < 20 && refused === undefined; i++) {
      refused = await a!.sendMessage({ message: message("hold"), configuration: { returnImmediately: true } }).then(
        () => undefined,
        (e: unknown) => e as A2AError,
      );
    }
    expect(refused).toBeInstanceOf(A2AError);
    expect(refused?.type).toBe("InternalError");
    expect(refused?.message).toMatch(/tenant "A"\).*maxTenantShare/);
    for (let i = 0; i < 20; i++) {
      const answer = await b!.sendMessage({ message: message(`echo ${i}`) });
      expect(answer.payload.case === "task" && answer.payload.value.status?.state).toBe(TaskState.COMPLETED);
    }
    expect(servers.serverErrors).toEqual([]);
  });
});

describe("the example agent past its byte budget", () => {
  let agent: ExampleProcess | undefined;
  afterAll(async () => {
    await stopAllExampleProcesses();
  });

  it("stays up, with its heap within the budget and a fixed overhead, through 0.9 MB sends", async () => {
    const budget = 24 * MIB;
    agent = await startExampleProcess({ A2A_MEMORY_MAX_BYTES: String(budget) }, { heapProbe: true });
    const client = createA2AServiceRestClient({ url: agent.urls.rest });
    const big = "z".repeat(900_000);
    const send = (i: number) =>
      client.sendMessage({
        message: { messageId: `m${i}`, role: Role.USER, parts: [{ content: { case: "text", value: `${i}${big}` } }] },
      });
    // Warm up (JIT, pools), then measure from there.
    for (let i = 0; i < 3; i++) await send(i);
    const base = await agent.heapUsed();
    for (let i = 3; i < 110; i++) {
      const answer = await send(i);
      expect(answer.payload.case === "task" && answer.payload.value.status?.state).toBe(TaskState.COMPLETED);
    }
    const after = await agent.heapUsed();
    expect(agent.alive()).toBe(true);
    // 107 sends of 0.9 MB (each task holds it twice: message and artifact) went through a 24 MiB budget.
    expect(after - base).toBeLessThan(budget + 16 * MIB);
  });
});
