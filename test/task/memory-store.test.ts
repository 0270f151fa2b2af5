/**
 * The in-memory TaskStore: the conformance suite (store-contract.ts), then
 * what only this backend promises: synchronous in-order delivery (also when
 * a listener commits), bounds (maxTasks, terminal tasks dropped first, a
 * refused create when every task is active, terminalTtlMs and
 * interruptedTtlMs on an injected clock, an unref'd sweep timer), push configs and listeners leaving with
 * their task, and memory that stays flat under a long run of tasks.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { Task } from "../../packages/runtime/src/task/a2a-types.js";
import { createMemoryTaskStore, type MemoryTaskStore } from "../../packages/runtime/src/task/memory-store.js";
import type { TaskEvent } from "../../packages/runtime/src/task/store.js";
import { describeTaskStore, query } from "./store-contract.js";
import { BASE_MS, makeTask, pushConfig, statusEvent, type TaskShape, taskEvent } from "./store-fixtures.js";

describeTaskStore("memory", async () => createMemoryTaskStore());

async function put(store: MemoryTaskStore, id: string, shape: TaskShape = {}, tenant = ""): Promise<Task> {
  const task = makeTask(id, shape);
  const current = await store.get(tenant, id);
  const version = await store.commit(tenant, { task, expectedVersion: current?.version ?? 0, events: [] });
  expect(version).toBe((current?.version ?? 0) + 1);
  return task;
}

const DONE = { state: 3 } as const;
/** Shares that let one tenant and one owner take the whole store: the tests of the bounds in all. */
const WHOLE_SHARES = { maxTenantShare: 1, maxOwnerShare: 1 } as const;

describe("memory task store: delivery", () => {
  it("delivers before commit returns, and in version order when a listener commits", async () => {
    const store = createMemoryTaskStore();
    const seen: number[] = [];
    await store.subscribe("", "a", (e) => {
      if (e.version !== 1) return;
      const next = makeTask("a", { state: 2 });
      void store.commit("", { task: next, expectedVersion: 1, events: [statusEvent(next)] });
    });
    await store.subscribe("", "a", (e) => seen.push(e.version));
    const task = makeTask("a");
    const committing = store.commit("", { task, expectedVersion: 0, events: [taskEvent(task)] });
    expect(seen).toEqual([1, 2]);
    expect(await committing).toBe(1);
    expect((await store.get("", "a"))?.version).toBe(2);
  });

  it("reports a throwing listener and still serves the others, each with its own copy", async () => {
    const failures: [unknown, TaskEvent][] = [];
    const store = createMemoryTaskStore({ onListenerError: (error, event) => failures.push([error, event]) });
    const copies: TaskEvent[] = [];
    await store.subscribe("", "a", (e) => {
      copies.push(e);
      (e.event.payload.value as Task).id = "mutated";
    });
    await store.subscribe("", "a", () => {
      throw new Error("listener broke");
    });
    await store.subscribe("", "a", (e) => copies.push(e));
    const task = makeTask("a");
    expect(await store.commit("", { task, expectedVersion: 0, events: [taskEvent(task)] })).toBe(1);
    expect(failures.map(([e, ev]) => [(e as Error).message, ev.taskId, ev.version])).toEqual([
      ["listener broke", "a", 1],
    ]);
    expect(copies).toHaveLength(2);
    expect(copies[1]?.event).toEqual(taskEvent(task));
    expect(task.id).toBe("a");
  });

  it("resolves the commit even when onListenerError throws too", async () => {
    const store = createMemoryTaskStore({
      onListenerError: () => {
        throw new Error("reporter broke");
      },
    });
    const versions: number[] = [];
    await store.subscribe("", "a", () => {
      throw new Error("listener broke");
    });
    await store.subscribe("", "a", (e) => versions.push(e.version));
    const task = makeTask("a");
    expect(await store.commit("", { task, expectedVersion: 0, events: [taskEvent(task)] })).toBe(1);
    expect(await store.commit("", { task, expectedVersion: 1, events: [taskEvent(task)] })).toBe(2);
    expect(versions).toEqual([1, 2]);
  });
});

describe("memory task store: bounds", () => {
  it("drops the terminal task that ended longest ago, and with it its configs and listeners", async () => {
    const store = createMemoryTaskStore({ maxTasks: 3, ...WHOLE_SHARES });
    await put(store, "x", DONE);
    await put(store, "y", DONE);
    await put(store, "active");
    await put(store, "x", { state: 4 }); // x ends again: y now ended longest ago
    await store.putPushConfig("", pushConfig("", "y", "hook"));
    await store.subscribe("", "y", () => {});
    expect(store.stats()).toMatchObject({ tasks: 3, terminalTasks: 2, pushConfigs: 1, subscribedTasks: 1 });
    await put(store, "z");
    expect(await store.get("", "y")).toBeUndefined();
    expect(store.stats()).toMatchObject({ tasks: 3, terminalTasks: 1, pushConfigs: 0, subscribedTasks: 0 });
    expect((await store.list("", query())).tasks.map((t) => t.id).sort()).toEqual(["active", "x", "z"]);
    expect((await store.list("", query({ status: 3 }))).totalSize).toBe(0);
    await put(store, "w");
    expect(await store.get("", "x")).toBeUndefined();
  });

  it("refuses a create when every stored task is active, naming maxTasks, until one ends", async () => {
    const store = createMemoryTaskStore({ maxTasks: 2, ...WHOLE_SHARES });
    await put(store, "a", {}, "t1");
    await put(store, "b", {}, "t2");
    const refused = store.commit("t1", { task: makeTask("c"), expectedVersion: 0, events: [] });
    await expect(refused).rejects.toMatchObject({ name: "A2AError", type: "InternalError" });
    await expect(refused).rejects.toThrow(/maxTasks 2/);
    expect(await store.get("t1", "c")).toBeUndefined();
    await put(store, "a", { state: 2 }, "t1"); // updates still go through when full
    await put(store, "b", DONE, "t2");
    await put(store, "c", {}, "t1");
    expect(await store.get("t2", "b")).toBeUndefined();
    expect(store.stats().tasks).toBe(2);
  });

  it("drops terminal tasks terminalTtlMs after their last commit, on the store's clock", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ terminalTtlMs: 1000, now: () => now });
    await put(store, "done", DONE);
    await put(store, "active");
    await store.putPushConfig("", pushConfig("", "done", "hook"));
    now = 999;
    await put(store, "later", DONE);
    expect((await store.get("", "done"))?.version).toBe(1);
    now = 1000;
    expect(await store.get("", "done")).toBeUndefined();
    expect(await store.getPushConfig("", "done", "hook")).toBeUndefined();
    expect((await store.list("", query())).tasks.map((t) => t.id)).toEqual(["active", "later"]);
    now = 1_000_000;
    expect(store.stats()).toMatchObject({ tasks: 1, terminalTasks: 0, pushConfigs: 0 });
    expect((await store.get("", "active"))?.version).toBe(1);
    await store.close();
  });
  it("keeps a tenant's active tasks within maxTenantShare of maxTasks; another tenant still creates", async () => {
    const store = createMemoryTaskStore({ maxTasks: 10, maxTenantShare: 0.5 });
    for (const id of ["a", "b", "c", "d", "e"]) await put(store, id, {}, "A");
    const refused = store.commit("A", { task: makeTask("f"), expectedVersion: 0, events: [] });
    await expect(refused).rejects.toMatchObject({ name: "A2AError", type: "InternalError" });
    const why = "the tenant's active tasks would number 6, past its share (maxTenantShare 0.5) of maxTasks 10: 5 tasks";
    await expect(refused).rejects.toThrow(`task f (tenant "A"): ${why}`);
    for (const id of ["a", "b", "c", "d", "e"]) await put(store, id, {}, "B");
    // Updates of A's active tasks still go through; one ending makes room for another.
    await put(store, "a", { state: 2 }, "A");
    await put(store, "a", DONE, "A");
    await put(store, "f", {}, "A");
  });

  it("keeps one owner's active tasks within maxOwnerShare; another owner of the tenant still creates", async () => {
    const store = createMemoryTaskStore({ maxTasks: 8, maxOwnerShare: 0.25, maxTenantShare: 1 });
    const create = (id: string, owner: string) =>
      store.commit("t", { task: makeTask(id), expectedVersion: 0, events: [], owner });
    expect([await create("m1", "mallory"), await create("m2", "mallory")]).toEqual([1, 1]);
    const refused = create("m3", "mallory");
    await expect(refused).rejects.toThrow(
      "the owner's active tasks would number 3, past its share (maxOwnerShare 0.25 of maxTenantShare 1)",
    );
    // The refusal names the tenant and the task, never the owner.
    await expect(refused).rejects.not.toThrow(/mallory/);
    expect([await create("a1", "alice"), await create("a2", "alice")]).toEqual([1, 1]);
    expect(store.stats().tasks).toBe(4);
  });

  it("by default keeps a caller to half its tenant's share; unauthenticated callers share the tenant's", async () => {
    const store = createMemoryTaskStore({ maxTasks: 10 });
    const create = (id: string, owner: string) =>
      store.commit("t", { task: makeTask(id), expectedVersion: 0, events: [], owner });
    await create("a1", "alice");
    await create("a2", "alice");
    const refused = create("a3", "alice");
    await expect(refused).rejects.toThrow(
      "the owner's active tasks would number 3, past its share (maxOwnerShare 0.5 of maxTenantShare 0.5) of " +
        "maxTasks 10: 2 tasks",
    );
    expect(await create("b1", "bob")).toBe(1);
    for (const id of ["x1", "x2"]) expect(await create(id, "")).toBe(1);
    await expect(create("x3", "")).rejects.toThrow("the tenant's active tasks would number 6");
  });

  it("counts a task to the owner that created it, whatever later commits name", async () => {
    // A store without update() gets every commit through commit(): TaskCommit.owner is ignored after the create.
    const store = createMemoryTaskStore({ maxTasks: 4, maxTenantShare: 1, maxOwnerShare: 0.5 });
    for (let round = 0; round < 3; round++) {
      for (const id of [`a${round}-1`, `a${round}-2`]) {
        await store.commit("t", { task: makeTask(id), expectedVersion: 0, events: [], owner: "alice" });
        await store.commit("t", { task: makeTask(id, DONE), expectedVersion: 1, events: [] });
      }
    }
    expect(store.stats()).toMatchObject({ tasks: 4, terminalTasks: 4 });
  });

  it("refuses a create past a share before it makes room: no other task is dropped for it", async () => {
    const store = createMemoryTaskStore({ maxTasks: 4, maxTenantShare: 0.5 });
    await put(store, "b-done-1", DONE, "b");
    await put(store, "b-done-2", DONE, "b");
    await put(store, "a1", {}, "a");
    await put(store, "a2", {}, "a");
    await expect(store.commit("a", { task: makeTask("a3"), expectedVersion: 0, events: [] })).rejects.toThrow(
      "past its share (maxTenantShare 0.5)",
    );
    expect((await store.get("b", "b-done-1"))?.version).toBe(1);
    expect(store.stats().tasks).toBe(4);
    // So for the byte share: a's second 20 KB task would pass half of 64 KiB.
    const bytes = createMemoryTaskStore({ maxTasks: 4, maxBytes: 64 * 1024, maxTenantShare: 0.5 });
    const big = (id: string) => {
      const task = makeTask(id);
      const text = { ...task.history[0]!.parts[0]!, content: { case: "text" as const, value: "x".repeat(20_000) } };
      return { ...task, history: [{ ...task.history[0]!, parts: [text] }] };
    };
    await bytes.commit("a", { task: big("a1"), expectedVersion: 0, events: [] });
    for (const id of ["d1", "d2", "d3"]) await put(bytes, id, DONE, "b");
    await expect(bytes.commit("a", { task: big("a2"), expectedVersion: 0, events: [] })).rejects.toThrow(
      "past its share (maxTenantShare 0.5) of maxBytes",
    );
    expect([bytes.stats().tasks, (await bytes.get("b", "d1"))?.version]).toEqual([4, 1]);
  });

  it("floors an owner's share of its tenant's share at each step", async () => {
    // 100 * 0.7 is 70, and a tenth of it 7; 100 * (0.7 * 0.1) is 6.999…, floored to 6.
    const store = createMemoryTaskStore({ maxTasks: 100, maxTenantShare: 0.7, maxOwnerShare: 0.1 });
    const create = (id: string) =>
      store.commit("t", { task: makeTask(id), expectedVersion: 0, events: [], owner: "alice" });
    for (let i = 0; i < 7; i++) expect(await create(`a${i}`)).toBe(1);
    await expect(create("a7")).rejects.toThrow("of maxTasks 100: 7 tasks");
  });

  it("keeps one owner's active tasks within maxOwnerShare of maxBytes", async () => {
    const store = createMemoryTaskStore({ maxBytes: 64 * 1024, maxOwnerShare: 0.25, maxTenantShare: 1 });
    const big = (id: string) => {
      const task = makeTask(id);
      const [first] = task.history[0]!.parts;
      const text = { ...first!, content: { case: "text" as const, value: "x".repeat(10_000) } };
      return { ...task, history: [{ ...task.history[0]!, parts: [text] }] };
    };
    const create = (id: string, owner: string) =>
      store.commit("t", { task: big(id), expectedVersion: 0, events: [], owner });
    await create("m1", "mallory");
    await expect(create("m2", "mallory")).rejects.toThrow(
      /the owner's active tasks would hold \d+ bytes, past its share/,
    );
    expect(await create("a1", "alice")).toBe(1);
  });

  it("refuses a share out of range, naming it", () => {
    expect(() => createMemoryTaskStore({ maxOwnerShare: 0 })).toThrow(/maxOwnerShare must be above 0 and at most 1/);
    expect(() => createMemoryTaskStore({ maxOwnerShare: 1.5 })).toThrow(/maxOwnerShare/);
  });

  it("drops each terminal task at its own TTL's end, also after the oldest made room for a new task", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ terminalTtlMs: 100, maxTasks: 3, ...WHOLE_SHARES, now: () => now });
    await put(store, "a", DONE); // its TTL ends at 100
    now = 10;
    await put(store, "b");
    now = 20;
    await put(store, "c", DONE); // at 120
    now = 30;
    await put(store, "d"); // the store is full: a, the oldest terminal task, makes room
    expect(await store.get("", "a")).toBeUndefined();
    now = 50;
    await put(store, "b", DONE); // at 150
    now = 119;
    expect(await store.get("", "c")).toBeDefined();
    now = 120;
    expect(await store.get("", "c")).toBeUndefined();
    now = 149;
    expect((await store.get("", "b"))?.version).toBe(2);
    now = 150;
    expect(await store.get("", "b")).toBeUndefined();
    expect(store.stats()).toMatchObject({ tasks: 1, terminalTasks: 0 });
    await store.close();
  });
});

describe("memory task store: interrupted tasks", () => {
  const INPUT_REQUIRED = { state: 6 } as const;
  const AUTH_REQUIRED = { state: 8 } as const;

  it("drops input- and auth-required tasks interruptedTtlMs after their last commit; working ones stay", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ interruptedTtlMs: 1000, terminalTtlMs: 5000, now: () => now });
    await put(store, "input", INPUT_REQUIRED);
    await put(store, "auth", AUTH_REQUIRED);
    await put(store, "working");
    await put(store, "done", DONE);
    await store.putPushConfig("", pushConfig("", "input", "hook"));
    expect(store.stats()).toMatchObject({ tasks: 4, interruptedTasks: 2, terminalTasks: 1 });
    now = 500;
    await put(store, "auth", AUTH_REQUIRED); // a commit starts its TTL again: now it ends at 1500
    now = 999;
    expect((await store.get("", "input"))?.version).toBe(1);
    now = 1000;
    expect(await store.get("", "input")).toBeUndefined();
    expect(await store.getPushConfig("", "input", "hook")).toBeUndefined();
    expect((await store.get("", "auth"))?.version).toBe(2);
    now = 1500;
    expect((await store.list("", query())).tasks.map((t) => t.id).sort()).toEqual(["done", "working"]);
    expect(store.stats()).toMatchObject({ tasks: 2, interruptedTasks: 0, terminalTasks: 1 });
    now = 1_000_000;
    expect((await store.get("", "working"))?.version).toBe(1);
    await store.close();
  });

  it("leaves a task that was answered, and keeps one someone subscribes to", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ interruptedTtlMs: 100, terminalTtlMs: Infinity, now: () => now });
    await put(store, "answered", INPUT_REQUIRED);
    await put(store, "watched", INPUT_REQUIRED);
    const unsubscribe = await store.subscribe("", "watched", () => {});
    now = 50;
    await put(store, "answered", { state: 2 }); // a next turn works on it: it no longer expires
    now = 150;
    expect((await store.get("", "answered"))?.version).toBe(2);
    expect((await store.get("", "watched"))?.version).toBe(1); // kept while subscribed
    expect(store.stats()).toMatchObject({ interruptedTasks: 1 });
    now = 400;
    await unsubscribe(); // its TTL starts again: it ends at 500
    now = 499;
    expect(await store.get("", "watched")).toBeDefined();
    now = 500;
    expect(await store.get("", "watched")).toBeUndefined();
    await put(store, "answered", DONE);
    now = 1_000_000;
    expect(store.stats()).toMatchObject({ tasks: 1, interruptedTasks: 0, terminalTasks: 1 });
    await store.close();
  });

  it("lets a task kept for its subscribers expire once close() has dropped them", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ interruptedTtlMs: 100, terminalTtlMs: Infinity, now: () => now });
    await put(store, "watched", INPUT_REQUIRED);
    await store.subscribe("", "watched", () => {}); // never unsubscribed: close() drops the listener
    now = 150;
    expect(await store.get("", "watched")).toBeDefined();
    await store.close();
    now = 249;
    expect(await store.get("", "watched")).toBeDefined();
    now = 250;
    expect(await store.get("", "watched")).toBeUndefined();
    expect(store.stats()).toMatchObject({ tasks: 0, interruptedTasks: 0 });
  });

  it("gives an owner whose prompts went unanswered its share back once they expire", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ maxTasks: 8, maxTenantShare: 1, maxOwnerShare: 0.25, now: () => now });
    const create = (id: string, state: number) =>
      store.commit("", { task: makeTask(id, { state }), expectedVersion: 0, events: [], owner: "alice" });
    await create("a", 6);
    await create("b", 8);
    const refused = create("c", 2);
    await expect(refused).rejects.toThrow(/owner's active tasks would number 3/);
    now = 7 * 24 * 3_600_000; // DEFAULT_INTERRUPTED_TTL_MS
    expect(await create("c", 2)).toBe(1);
    expect(store.stats()).toMatchObject({ tasks: 1, interruptedTasks: 0 });
    await store.close();
  });

  it("refuses an interruptedTtlMs that is not a count of milliseconds", () => {
    expect(() => createMemoryTaskStore({ interruptedTtlMs: -1 })).toThrow(/interruptedTtlMs/);
    expect(() => createMemoryTaskStore({ interruptedTtlMs: 1.5 })).toThrow(/interruptedTtlMs/);
  });
});

describe("memory task store: time and limits", () => {
  it("lets the process exit while a TTL store is open (the sweep timer is unref'd)", () => {
    const built = resolve("packages/runtime/dist/task/memory-store.js");
    expect(existsSync(built), "run `npm run build` first").toBe(true);
    const script = `import { createMemoryTaskStore } from ${JSON.stringify(built)};
      createMemoryTaskStore({ terminalTtlMs: 5000 }); console.log("open");`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect({ signal: child.signal, status: child.status, out: child.stdout.trim() }).toEqual({
      signal: null,
      status: 0,
      out: "open",
    });
  });

  it("refuses push configs for unknown tasks and beyond maxPushConfigsPerTask", async () => {
    const store = createMemoryTaskStore({ maxPushConfigsPerTask: 2 });
    await expect(store.putPushConfig("", pushConfig("", "nope", "h"))).rejects.toMatchObject({
      type: "TaskNotFoundError",
    });
    await put(store, "a");
    await store.putPushConfig("", pushConfig("", "a", "h1"));
    await store.putPushConfig("", pushConfig("", "a", "h2"));
    await store.putPushConfig("", pushConfig("", "a", "h2", "https://example.com/replaced"));
    const third = store.putPushConfig("", pushConfig("", "a", "h3"));
    await expect(third).rejects.toMatchObject({ type: "InvalidParamsError" });
    await expect(third).rejects.toThrow(/maxPushConfigsPerTask 2/);
  });

  it("refuses options out of range", () => {
    expect(() => createMemoryTaskStore({ maxTasks: 0 })).toThrow(/maxTasks/);
    expect(() => createMemoryTaskStore({ terminalTtlMs: -1 })).toThrow(/terminalTtlMs/);
    expect(() => createMemoryTaskStore({ maxPushConfigsPerTask: 1.5 })).toThrow(/maxPushConfigsPerTask/);
  });
});

describe("memory task store: flat memory", () => {
  it("holds at most maxTasks tasks (and their configs) over 3 * maxTasks terminal tasks", async () => {
    const maxTasks = 200;
    const store = createMemoryTaskStore({ maxTasks });
    for (let i = 0; i < 3 * maxTasks; i++) {
      const id = `t${i}`;
      await put(store, id, { contextId: `ctx${i}`, ms: BASE_MS + i }, `tenant${i % 3}`);
      await store.putPushConfig(`tenant${i % 3}`, pushConfig(`tenant${i % 3}`, id, "hook"));
      await store.subscribe(`tenant${i % 3}`, id, () => {});
      await put(store, id, { contextId: `ctx${i}`, ms: BASE_MS + i, state: 3 }, `tenant${i % 3}`);
      expect(store.stats().tasks).toBeLessThanOrEqual(maxTasks);
    }
    expect(store.stats()).toMatchObject({
      tasks: maxTasks,
      terminalTasks: maxTasks,
      pushConfigs: maxTasks,
      subscribedTasks: maxTasks,
    });
    let listed = 0;
    for (const tenant of ["tenant0", "tenant1", "tenant2"]) listed += (await store.list(tenant, query())).totalSize;
    expect(listed).toBe(maxTasks);
    expect((await store.list("tenant0", query({ contextId: "ctx0" }))).totalSize).toBe(0);
    expect((await store.list("tenant2", query({ contextId: `ctx${3 * maxTasks - 1}` }))).totalSize).toBe(1);
  });

  it("keeps the heap flat while 5 * maxTasks tasks pass through", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const maxTasks = 4000;
    const store = createMemoryTaskStore({ maxTasks });
    const base = heap();
    const run = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        await put(store, `t${i}`, { contextId: `ctx${i}`, ms: BASE_MS + i, state: 3, text: "x".repeat(2000) });
      }
    };
    await run(0, maxTasks);
    const full = heap() - base;
    await run(maxTasks, 5 * maxTasks);
    const after = heap() - base;
    expect(store.stats().tasks).toBe(maxTasks);
    // Four more stores' worth of tasks went through; a leak of even a quarter of each would show as full.
    expect(full).toBeGreaterThan(maxTasks * 2000);
    expect(after).toBeLessThan(full * 1.5);
  });
});

describe("memory task store: update", () => {
  /** A change of the kind the handler makes: one new artifact, the rest of the stored task reused. */
  const withArtifact = (stored: Task, text: string): Task => ({
    ...stored,
    artifacts: [
      ...stored.artifacts,
      {
        $typeName: "lf.a2a.v1.Artifact",
        artifactId: text,
        name: "",
        description: "",
        parts: [{ $typeName: "lf.a2a.v1.Part", content: { case: "text", value: text }, filename: "", mediaType: "" }],
        extensions: [],
      },
    ],
  });

  it("commits the change on the stored task, one version on, and publishes its events", async () => {
    const store = createMemoryTaskStore();
    const seen: number[] = [];
    await store.subscribe("", "a", (e) => seen.push(e.version));
    await put(store, "a");
    let given: Task | undefined;
    const result = await store.update?.("", "a", (stored) => {
      given = stored.task;
      const task = withArtifact(stored.task, "one");
      return { task, events: [statusEvent(task)] };
    });
    expect(result).toBe(2);
    expect(seen).toEqual([2]);
    const read = await store.get("", "a");
    expect(read?.version).toBe(2);
    expect(read?.task.artifacts.map((a) => a.artifactId)).toEqual(["one"]);
    expect(read?.task).not.toBe(given);
  });

  it("answers undefined for no such task, 'declined' for a declined change; writes and publishes nothing", async () => {
    const store = createMemoryTaskStore();
    const seen: number[] = [];
    await store.subscribe("", "a", (e) => seen.push(e.version));
    expect(await store.update?.("", "a", () => undefined)).toBeUndefined();
    await put(store, "a");
    expect(await store.update?.("", "a", () => undefined)).toBe("declined");
    const refused = store.update?.("", "a", () => {
      throw new Error("refused by the change");
    });
    await expect(refused).rejects.toThrow("refused by the change");
    const renamed = store.update?.("", "a", (s) => ({ task: { ...s.task, id: "b" }, events: [] }));
    await expect(renamed).rejects.toThrow(/renamed/);
    expect((await store.get("", "a"))?.version).toBe(1);
    expect(seen).toEqual([]);
  });

  it("keeps its own copy of what the change added, and versions share nothing a reader gets", async () => {
    const store = createMemoryTaskStore();
    await put(store, "a");
    let added: Task | undefined;
    for (const text of ["one", "two", "three"]) {
      await store.update?.("", "a", (stored) => {
        added = withArtifact(stored.task, text);
        return { task: added, events: [] };
      });
    }
    const before = (await store.get("", "a"))?.task;
    // What the change made is its maker's: changing it afterwards changes nothing stored. (What it reused from
    // the stored task it must leave alone, store.ts.)
    const made = added?.artifacts[2] as { artifactId: string; parts: { content: { value: unknown } }[] };
    made.artifactId = "renamed by the writer";
    (made.parts[0] as { content: { value: unknown } }).content.value = "changed by the writer";
    (added as { metadata: unknown }).metadata = { changed: true };
    const read = await store.get("", "a");
    expect(read?.task).toEqual(before);
    expect(read?.task.artifacts.map((a) => a.artifactId)).toEqual(["one", "two", "three"]);
    // A reader's copy is its own too, down to the parts the versions share.
    (read?.task.artifacts[0]?.parts as unknown[]).length = 0;
    expect((await store.get("", "a"))?.task).toEqual(before);
  });

  it("moves the task in the listing when the change moves its status", async () => {
    const store = createMemoryTaskStore();
    await put(store, "a", { ms: BASE_MS + 1 });
    await put(store, "b", { ms: BASE_MS + 2 });
    await store.update?.("", "a", () => ({ task: makeTask("a", { state: 3, ms: BASE_MS + 3 }), events: [] }));
    expect((await store.list("", query())).tasks.map((t) => t.id)).toEqual(["a", "b"]);
    expect((await store.list("", query({ status: 3 }))).tasks.map((t) => t.id)).toEqual(["a"]);
    expect((await store.list("", query({ status: 1 }))).tasks.map((t) => t.id)).toEqual(["b"]);
    // Same instant, another state: the task leaves the state's set, keeps its place in the whole list.
    await store.update?.("", "a", () => ({ task: makeTask("a", { state: 4, ms: BASE_MS + 3 }), events: [] }));
    expect((await store.list("", query({ status: 3 }))).totalSize).toBe(0);
    expect((await store.list("", query({ status: 4, contextId: "ctx" }))).tasks.map((t) => t.id)).toEqual(["a"]);
    expect((await store.list("", query())).tasks.map((t) => t.id)).toEqual(["a", "b"]);
  });
});
