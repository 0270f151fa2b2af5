/**
 * Tasks scoped to their caller (A2A v1.0 §13.1, §3.3.2), createTaskHandler
 * called in process on the memory store and on PostgreSQL: two principals,
 * alice and bob, each with tasks in one shared context id and one of their
 * own, cannot get, list (filters, pages, totalSize), cancel, subscribe to,
 * continue, or create, get, list and delete the push configs of each
 * other's tasks; each such call answers TaskNotFoundError with the message a
 * missing task gets. Each refusal is checked against the owner, for whom the
 * same call works, so a test fails if the task was simply not there. The
 * admin policy of the handler's header sees every owner; a server without
 * authentication sees the tasks of owner "", and a task committed without
 * an owner is one of those.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HandlerContext } from "@protoc-gen-a2a/runtime";
import { ownerOf, type TaskStore } from "@protoc-gen-a2a/runtime/task";
import { callerContext, principal } from "../helpers/caller-context.js";
import {
  adminSeesAll,
  BACKENDS,
  cancelRequest,
  configRequest,
  deleteConfigRequest,
  firstOf,
  getConfigRequest,
  getRequest,
  listAll,
  listConfigsRequest,
  listRequest,
  refusal,
  type ScopedHandler,
  scopedHandler,
  send,
  sendRequest,
  subscribeRequest,
  TaskState,
} from "../helpers/scoping-agent.js";
import { freshTenant, makeTask } from "./store-fixtures.js";

const ALICE = principal("alice");
const BOB = principal("bob");
/** The owners the default policy records for them (ownerOf: scheme/id). */
const [ALICE_OWNER, BOB_OWNER] = [ownerOf(ALICE), ownerOf(BOB)];
const ROOT = principal("root", ["admin"]);

/** TaskNotFoundError as a missing task answers it. */
const notFound = (id: string) => ({ type: "TaskNotFoundError", message: `Task ${id} not found` });

/** One tenant per test: the tests share a store (and on PostgreSQL a schema) without meeting. */
interface World {
  readonly alice: HandlerContext;
  readonly bob: HandlerContext;
  readonly root: HandlerContext;
  readonly nobody: HandlerContext;
}

function world(): World {
  const tenant = freshTenant();
  return {
    alice: callerContext(ALICE, { tenant }),
    bob: callerContext(BOB, { tenant }),
    root: callerContext(ROOT, { tenant }),
    nobody: callerContext(undefined, { tenant }),
  };
}

/** Three tasks of one caller: shared context open, shared context completed, own context open. */
async function threeTasks(h: ScopedHandler, context: HandlerContext, own: string) {
  const open = await send(h, context, "ask", { contextId: "shared" });
  const asked = await send(h, context, "ask", { contextId: "shared" });
  const done = await send(h, context, "answer", { taskId: asked.id });
  const mine = await send(h, context, "ask", { contextId: own });
  return { open: open.id, done: done.id, mine: mine.id, all: [open.id, done.id, mine.id] };
}

describe.each(BACKENDS)("tasks scoped to their owner, $name store", (backend) => {
  let store: TaskStore;
  let h: ScopedHandler;
  let admin: ScopedHandler;

  beforeAll(async () => {
    store = await backend.make();
    h = scopedHandler(store);
    admin = scopedHandler(store, adminSeesAll);
  });

  afterAll(async () => {
    await store?.close();
  });

  it("GetTask: another principal's task is TaskNotFoundError, as a missing one", async () => {
    const w = world();
    const a = await send(h, w.alice);
    expect((await h.getTask!(getRequest(a.id), w.alice)).id).toBe(a.id);
    expect(await refusal(h.getTask!(getRequest(a.id), w.bob))).toEqual(notFound(a.id));
    expect(await refusal(h.getTask!(getRequest("no-such-task"), w.bob))).toEqual(notFound("no-such-task"));
    expect(await refusal(h.getTask!(getRequest(a.id), w.nobody))).toEqual(notFound(a.id));
  });

  it("ListTasks: filters, pages and totalSize count only the caller's tasks", async () => {
    const w = world();
    const alice = await threeTasks(h, w.alice, "alice-own");
    const bob = await threeTasks(h, w.bob, "bob-own");
    for (const [who, mine] of [
      [w.alice, alice],
      [w.bob, bob],
    ] as const) {
      const unpaged = await listAll(h, who, {}, 50);
      expect(unpaged.ids.sort()).toEqual([...mine.all].sort());
      expect(unpaged.totals).toEqual([3]);
      const paged = await listAll(h, who);
      expect(paged.ids).toEqual((await listAll(h, who, {}, 50)).ids);
      expect(paged.totals).toEqual([3, 3, 3]);
      const shared = await listAll(h, who, { contextId: "shared" });
      expect(shared.ids.sort()).toEqual([mine.open, mine.done].sort());
      expect(shared.totals).toEqual([2, 2]);
      expect(await listAll(h, who, { status: TaskState.COMPLETED })).toEqual({ ids: [mine.done], totals: [1] });
      const open = await listAll(h, who, { contextId: "shared", status: TaskState.INPUT_REQUIRED });
      expect(open).toEqual({ ids: [mine.open], totals: [1] });
      const since = await listAll(h, who, { statusTimestampAfter: { seconds: 0n, nanos: 0 } });
      expect(since.totals).toEqual([3, 3, 3]);
    }
    expect(await listAll(h, w.alice, { contextId: "bob-own" }, 50)).toEqual({ ids: [], totals: [0] });
    expect(await listAll(h, w.nobody, {}, 50)).toEqual({ ids: [], totals: [0] });
  });

  it("ListTasks: a page token of one principal does not page another's list", async () => {
    const w = world();
    await threeTasks(h, w.alice, "alice-own");
    await threeTasks(h, w.bob, "bob-own");
    const first = await h.listTasks!(listRequest({ pageSize: 1 }), w.alice);
    expect(first.nextPageToken).not.toBe("");
    const token = first.nextPageToken ?? "";
    const replayed = await refusal(h.listTasks!(listRequest({ pageSize: 1, pageToken: token }), w.bob));
    expect(replayed.type).toBe("InvalidParamsError");
  });

  it("CancelTask: another principal's task is not found and stays as it was", async () => {
    const w = world();
    const a = await send(h, w.alice);
    expect(await refusal(h.cancelTask!(cancelRequest(a.id), w.bob))).toEqual(notFound(a.id));
    expect((await h.getTask!(getRequest(a.id), w.alice)).status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect((await h.cancelTask!(cancelRequest(a.id), w.alice)).status?.state).toBe(TaskState.CANCELED);
  });

  it("SubscribeToTask: another principal's task is not found", async () => {
    const w = world();
    const a = await send(h, w.alice);
    const own = await firstOf(h.subscribeToTask!(subscribeRequest(a.id), w.alice));
    expect(own?.payload?.case === "task" && own.payload.value.id).toBe(a.id);
    expect(await refusal(firstOf(h.subscribeToTask!(subscribeRequest(a.id), w.bob)))).toEqual(notFound(a.id));
  });

  it("SubscribeToTask: another principal's watched task costs the store what a missing one does", async () => {
    const w = world();
    const calls: string[] = [];
    // The store as the handler sees it, recording each method called.
    const counted = new Proxy(store, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const hc = scopedHandler(counted);
    const a = await send(hc, w.alice);
    // Alice watches her task: the handler listens to it already when bob asks.
    const watching = hc.subscribeToTask!(subscribeRequest(a.id), w.alice)[Symbol.asyncIterator]();
    expect((await watching.next()).done).toBe(false);
    const costOf = async (id: string) => {
      calls.length = 0;
      expect(await refusal(firstOf(hc.subscribeToTask!(subscribeRequest(id), w.bob)))).toEqual(notFound(id));
      return [...calls];
    };
    const hidden = await costOf(a.id);
    expect(hidden).toEqual(await costOf("no-such-task"));
    expect(hidden).toEqual(["get"]);
    await watching.return?.(undefined);
  });

  it("SendMessage: a message to another principal's task is not found, and does not join it", async () => {
    const w = world();
    const a = await send(h, w.alice);
    const before = (await h.getTask!(getRequest(a.id), w.alice)).history?.length;
    expect(await refusal(send(h, w.bob, "answer", { taskId: a.id }))).toEqual(notFound(a.id));
    const streamed = h.sendStreamingMessage!(sendRequest("answer", { taskId: a.id }), w.bob);
    expect(await refusal(firstOf(streamed))).toEqual(notFound(a.id));
    const pushed = send(h, w.bob, "answer", { taskId: a.id, url: "https://hooks.example/bob" });
    expect(await refusal(pushed)).toEqual(notFound(a.id));
    const after = await h.getTask!(getRequest(a.id), w.alice);
    expect([after.history?.length, after.status?.state]).toEqual([before, TaskState.INPUT_REQUIRED]);
    expect((await h.listTaskPushNotificationConfigs!(listConfigsRequest(a.id), w.alice)).configs).toEqual([]);
    expect((await send(h, w.alice, "answer", { taskId: a.id })).status?.state).toBe(TaskState.COMPLETED);
  });

  it("push configs: another principal's task has none to create, get, list or delete", async () => {
    const w = world();
    const a = await send(h, w.alice);
    const made = await h.createTaskPushNotificationConfig!(configRequest(a.id, "https://hooks.example/a"), w.alice);
    const id = made.id ?? "";
    const create = h.createTaskPushNotificationConfig!(configRequest(a.id, "https://hooks.example/b"), w.bob);
    expect(await refusal(create)).toEqual(notFound(a.id));
    expect(await refusal(h.getTaskPushNotificationConfig!(getConfigRequest(a.id, id), w.bob))).toEqual(notFound(a.id));
    expect(await refusal(h.getTaskPushNotificationConfig!(getConfigRequest(a.id, ""), w.bob))).toEqual(notFound(a.id));
    expect(await refusal(h.listTaskPushNotificationConfigs!(listConfigsRequest(a.id), w.bob))).toEqual(notFound(a.id));
    const deleted = h.deleteTaskPushNotificationConfig!(deleteConfigRequest(a.id, id), w.bob);
    expect(await refusal(deleted)).toEqual(notFound(a.id));
    const listed = await h.listTaskPushNotificationConfigs!(listConfigsRequest(a.id), w.alice);
    expect(listed.configs?.map((c) => [c.id, c.url])).toEqual([[id, "https://hooks.example/a"]]);
    expect((await h.getTaskPushNotificationConfig!(getConfigRequest(a.id, id), w.alice)).url).toBe(
      "https://hooks.example/a",
    );
    await h.deleteTaskPushNotificationConfig!(deleteConfigRequest(a.id, id), w.alice);
    expect((await h.listTaskPushNotificationConfigs!(listConfigsRequest(a.id), w.alice)).configs).toEqual([]);
  });

  it("the store applies the owner in its own reads of push configs too", async () => {
    const w = world();
    const tenant = w.alice.tenant ?? "";
    const a = await send(h, w.alice);
    await h.createTaskPushNotificationConfig!(configRequest(a.id, "https://hooks.example/a", "c1"), w.alice);
    expect(await store.getPushConfig(tenant, a.id, "c1", BOB_OWNER)).toBeUndefined();
    expect((await store.getPushConfig(tenant, a.id, "c1", ALICE_OWNER))?.config.url).toBe("https://hooks.example/a");
    expect((await store.listPushConfigs(tenant, a.id, 0, "", BOB_OWNER)).configs).toEqual([]);
    expect((await store.listPushConfigs(tenant, a.id, 0, "")).configs).toHaveLength(1);
    expect(await store.deletePushConfig(tenant, a.id, "c1", BOB_OWNER)).toBe(false);
    expect(await store.get(tenant, a.id, BOB_OWNER)).toBeUndefined();
    expect((await store.get(tenant, a.id, ALICE_OWNER))?.task.id).toBe(a.id);
    expect((await store.get(tenant, a.id))?.task.id).toBe(a.id);
    expect(await store.deletePushConfig(tenant, a.id, "c1", ALICE_OWNER)).toBe(true);
  });

  it("the admin policy sees every owner's tasks and creates its own; others still see only theirs", async () => {
    const w = world();
    const alice = await threeTasks(h, w.alice, "alice-own");
    const bob = await threeTasks(h, w.bob, "bob-own");
    const everyone = [...alice.all, ...bob.all].sort();
    const all = await listAll(admin, w.root, {}, 4);
    expect([all.ids.sort(), all.totals]).toEqual([everyone, [6, 6]]);
    const shared = await listAll(admin, w.root, { contextId: "shared" });
    expect(shared.ids.sort()).toEqual([alice.open, alice.done, bob.open, bob.done].sort());
    expect((await admin.getTask!(getRequest(bob.mine), w.root)).id).toBe(bob.mine);
    const url = "https://hooks.example/root";
    await admin.createTaskPushNotificationConfig!(configRequest(alice.open, url, "r1"), w.root);
    expect((await h.getTaskPushNotificationConfig!(getConfigRequest(alice.open, "r1"), w.alice)).url).toBe(url);
    expect((await admin.cancelTask!(cancelRequest(alice.mine), w.root)).status?.state).toBe(TaskState.CANCELED);
    const own = await send(admin, w.root);
    expect(await refusal(h.getTask!(getRequest(own.id), w.alice))).toEqual(notFound(own.id));
    expect(await refusal(admin.getTask!(getRequest(bob.mine), w.alice))).toEqual(notFound(bob.mine));
    expect((await listAll(admin, w.alice, {}, 50)).totals).toEqual([3]);
    expect((await listAll(admin, w.root, { status: TaskState.CANCELED }, 50)).ids).toEqual([alice.mine]);
    expect((await listAll(admin, w.root, {}, 50)).totals).toEqual([7]);
  });

  it('a server without authentication sees the tasks of owner "", and only those', async () => {
    const w = world();
    const tenant = w.nobody.tenant ?? "";
    const n = await send(h, w.nobody);
    const a = await send(h, w.alice);
    expect((await h.getTask!(getRequest(n.id), w.nobody)).id).toBe(n.id);
    expect(await listAll(h, w.nobody, {}, 50)).toEqual({ ids: [n.id], totals: [1] });
    expect(await refusal(h.getTask!(getRequest(n.id), w.alice))).toEqual(notFound(n.id));
    expect(await refusal(h.getTask!(getRequest(a.id), w.nobody))).toEqual(notFound(a.id));
    // A task committed without an owner (as before owners existed) belongs to "".
    await store.commit(tenant, { task: makeTask("ownerless"), expectedVersion: 0, events: [] });
    expect((await h.getTask!(getRequest("ownerless"), w.nobody)).id).toBe("ownerless");
    expect(await refusal(h.getTask!(getRequest("ownerless"), w.alice))).toEqual(notFound("ownerless"));
    expect((await admin.getTask!(getRequest("ownerless"), w.root)).id).toBe("ownerless");
    expect((await listAll(h, w.nobody, {}, 50)).totals).toEqual([2]);
  });
});
