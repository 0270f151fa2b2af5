import { describe, expect, it } from "vitest";
import { createMemoryTaskStore } from "../../packages/runtime/src/task/memory-store.js";
import type { StreamResponse, Task } from "../../packages/runtime/src/task/a2a-types.js";
import type { TaskEvent } from "../../packages/runtime/src/task/store.js";

function task(id: string, state: number, seconds: number): Task {
  return {
    $typeName: "lf.a2a.v1.Task",
    id,
    contextId: "c",
    status: {
      $typeName: "lf.a2a.v1.TaskStatus",
      state,
      timestamp: { $typeName: "google.protobuf.Timestamp", seconds: BigInt(seconds), nanos: 0 },
    },
    artifacts: [],
    history: [],
  };
}

function taskEvent(t: Task): StreamResponse {
  return { $typeName: "lf.a2a.v1.StreamResponse", payload: { case: "task", value: t } };
}

describe("memory task store (smoke)", () => {
  it("creates, commits by version, publishes and lists", async () => {
    const store = createMemoryTaskStore();
    const seen: TaskEvent[] = [];
    const stop = await store.subscribe("", "t1", (e) => seen.push(e));
    expect(
      await store.commit("", { task: task("t1", 1, 10), expectedVersion: 0, events: [taskEvent(task("t1", 1, 10))] }),
    ).toBe(1);
    expect(await store.commit("", { task: task("t1", 2, 11), expectedVersion: 0, events: [] })).toBeUndefined();
    expect(
      await store.commit("", { task: task("t1", 3, 12), expectedVersion: 1, events: [taskEvent(task("t1", 3, 12))] }),
    ).toBe(2);
    await stop();
    expect(seen.map((e) => e.version)).toEqual([1, 2]);
    expect((await store.get("", "t1"))?.version).toBe(2);
    const page = await store.list("", {
      contextId: "",
      status: 0,
      statusAfterMs: undefined,
      pageSize: 10,
      pageToken: "",
    });
    expect(page.tasks.map((t) => t.id)).toEqual(["t1"]);
    expect(page.totalSize).toBe(1);
  });
});
