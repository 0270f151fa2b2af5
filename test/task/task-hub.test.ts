/**
 * The task hub of createTaskHandler: one store subscription per task for all
 * of a handler's listeners, readers called first with the store's copy,
 * every keeper but the first with a copy of its own, the last one leaving
 * unsubscribing, a throwing listener not keeping the event from the others,
 * and a store that cannot listen letting the next listen() try again.
 */
import { describe, expect, it } from "vitest";
import type { Task } from "../../packages/runtime/src/task/a2a-types.js";
import { createMemoryTaskStore } from "../../packages/runtime/src/task/memory-store.js";
import type { TaskEvent, TaskStore } from "../../packages/runtime/src/task/store.js";
import { TaskHub } from "../../packages/runtime/src/task/task-hub.js";
import { makeTask, taskEvent } from "./store-fixtures.js";

async function commitNew(store: TaskStore, id: string): Promise<Task> {
  const task = makeTask(id);
  await store.commit("", { task, expectedVersion: 0, events: [taskEvent(task)] });
  return task;
}

describe("task hub", () => {
  it("subscribes once per task, however many listen, and unsubscribes when the last one leaves", async () => {
    const store = createMemoryTaskStore();
    const hub = new TaskHub(store);
    const versions: string[] = [];
    const stops = [
      await hub.listen("", "a", "reads", (e) => versions.push(`r${e.version}`)),
      await hub.listen("", "a", "keeps", (e) => versions.push(`k${e.version}`)),
      await hub.listen("", "a", "keeps", (e) => versions.push(`K${e.version}`)),
    ];
    expect(store.stats().subscribedTasks).toBe(1);
    await commitNew(store, "a");
    expect(versions).toEqual(["r1", "k1", "K1"]);
    await stops[0]?.();
    await stops[1]?.();
    expect(store.stats().subscribedTasks).toBe(1);
    await stops[2]?.();
    await stops[2]?.();
    expect(store.stats().subscribedTasks).toBe(0);
    await hub.listen("", "a", "keeps", (e) => versions.push(`again${e.version}`));
    await store.commit("", { task: makeTask("a"), expectedVersion: 1, events: [taskEvent(makeTask("a"))] });
    expect(versions.at(-1)).toBe("again2");
  });

  it("gives readers first and the first keeper the store's copy, and every other keeper its own", async () => {
    const store = createMemoryTaskStore();
    const hub = new TaskHub(store);
    const got: [string, TaskEvent][] = [];
    await hub.listen("", "a", "keeps", (e) => got.push(["keeper 1", e]));
    await hub.listen("", "a", "keeps", (e) => got.push(["keeper 2", e]));
    await hub.listen("", "a", "reads", (e) => got.push(["reader", e]));
    const task = await commitNew(store, "a");
    expect(got.map(([who]) => who)).toEqual(["reader", "keeper 1", "keeper 2"]);
    const [reader, first, second] = got.map(([, e]) => e.event);
    expect(first).toBe(reader);
    expect(second).not.toBe(first);
    (first!.payload.value as Task).history.length = 0;
    expect(second).toEqual(taskEvent(task));
  });

  it("hands the event to every listener when one throws, and lets the store report the throw", async () => {
    const reported: string[] = [];
    const store = createMemoryTaskStore({ onListenerError: (e) => reported.push(String(e)) });
    const hub = new TaskHub(store);
    const seen: number[] = [];
    await hub.listen("", "a", "reads", () => {
      throw new Error("reader broke");
    });
    await hub.listen("", "a", "keeps", (e) => seen.push(e.version));
    await commitNew(store, "a");
    expect(seen).toEqual([1]);
    expect(reported).toEqual(["Error: reader broke"]);
  });

  it("lets the next listen() try again when the store could not listen", async () => {
    const memory = createMemoryTaskStore();
    let refuse = true;
    const store: TaskStore = new Proxy(memory, {
      get: (target, key) =>
        key === "subscribe" && refuse
          ? () => Promise.reject(new Error("no LISTEN today"))
          : (Reflect.get(target, key, target) as unknown),
    });
    const hub = new TaskHub(store);
    await expect(hub.listen("", "a", "keeps", () => {})).rejects.toThrow("no LISTEN today");
    refuse = false;
    const seen: number[] = [];
    await hub.listen("", "a", "keeps", (e) => seen.push(e.version));
    await commitNew(memory, "a");
    expect(seen).toEqual([1]);
  });
});
