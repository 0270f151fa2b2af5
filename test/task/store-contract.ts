/**
 * The TaskStore conformance suite (contract: packages/runtime/src/task/store.ts).
 * Any backend runs it with `describeTaskStore(name, make)`; `make` returns a
 * store, closed after each test. Every test works in tenants of its own
 * (freshTenant), so backends that keep data between tests (a database) need
 * no cleaning. Events are awaited with a bounded wait (a backend may deliver
 * them after commit resolves); nothing depends on how long anything takes.
 *
 *   commits      create (version 0), compare-and-set, concurrent writers,
 *                copies in and out, tenant scoping
 *   events       versions and order, a copy for each subscriber, failed commits publish nothing,
 *                unsubscribe, other tasks and tenants are not heard
 *   listing      newest status first, ties by id; filters contextId, status,
 *                statusAfterMs (at or after, as a2a.proto says) and their combinations;
 *                totalSize; paging by key; page tokens refused when malformed
 *                or made for another tenant or query (InvalidParamsError
 *                naming pageToken)
 *   push configs put/replace/get/delete, pageSize 0 = all, paging, scoping;
 *                at most 100 per task (the default bound), also among
 *                concurrent puts; TaskNotFoundError for a missing task
 *   keys         a NUL character or a lone surrogate in any key is InvalidParamsError naming it
 *   turns        a create or commit naming startTurn starts it; another one
 *                is refused (undefined, nothing written) while it runs, other
 *                commits hold and keep it; a commit leaving the task
 *                interrupted or terminal ends it; endTurn ends only the turn
 *                it names
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Task } from "../../packages/runtime/src/task/a2a-types.js";
import type { TaskEvent, TaskQuery, TaskStore } from "../../packages/runtime/src/task/store.js";
import {
  BASE_MS,
  freshTenant,
  makeTask,
  pushConfig,
  statusEvent,
  type TaskShape,
  taskEvent,
} from "./store-fixtures.js";

interface Fixture {
  store: TaskStore;
}

/** Waits, a bounded number of turns, until `done()` holds; the caller's expectations then say what was missing. */
export async function settle(done: () => boolean, turns = 200): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

export function query(over: Partial<TaskQuery> = {}): TaskQuery {
  return { contextId: "", status: 0, statusAfterMs: undefined, pageSize: 100, pageToken: "", ...over };
}

async function create(store: TaskStore, tenant: string, id: string, shape: TaskShape = {}): Promise<Task> {
  const task = makeTask(id, shape);
  expect(await store.commit(tenant, { task, expectedVersion: 0, events: [taskEvent(task)] })).toBe(1);
  return task;
}

/** The ids of a listing from `q.pageToken` on, page by page, checking totalSize on each page. */
async function pageAll(store: TaskStore, tenant: string, q: TaskQuery): Promise<string[]> {
  const ids: string[] = [];
  let token = q.pageToken;
  let total: number | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await store.list(tenant, { ...q, pageToken: token });
    total ??= result.totalSize;
    expect(result.totalSize).toBe(total);
    expect(result.tasks.length).toBeLessThanOrEqual(q.pageSize);
    ids.push(...result.tasks.map((t) => t.id));
    token = result.nextPageToken;
    if (!token) break;
  }
  if (!q.pageToken) expect(ids.length).toBe(total);
  return ids;
}

async function expectInvalidToken(p: Promise<unknown>): Promise<void> {
  await expect(p).rejects.toMatchObject({ name: "A2AError", type: "InvalidParamsError" });
  await expect(p).rejects.toThrow(/pageToken/);
}

export function describeTaskStore(name: string, make: () => Promise<TaskStore>): void {
  describe(`TaskStore contract: ${name}`, () => {
    const f = {} as Fixture;
    beforeEach(async () => {
      f.store = await make();
    });
    afterEach(async () => {
      await f.store.close();
    });
    describeCommits(f);
    describeEvents(f);
    describeSubscriptions(f);
    describeListing(f);
    describePaging(f);
    describePushConfigs(f);
    describeTurns(f);
    describeKeys(f);
  });
}

function describeTurns(f: Fixture): void {
  describe("turns", () => {
    it("one runs at a time: started by a commit, refused to a second, kept by others, ended by endTurn", async () => {
      const tenant = freshTenant();
      const created = makeTask("a", { state: 1 });
      const events = [taskEvent(created)];
      expect(await f.store.commit(tenant, { task: created, expectedVersion: 0, events, startTurn: "t1" })).toBe(1);
      expect((await f.store.get(tenant, "a"))?.turn).toBe("t1");
      const working = makeTask("a", { state: 2, text: "second" });
      expect(await f.store.commit(tenant, { task: working, expectedVersion: 1, events: [], startTurn: "t2" })).toBe(
        undefined,
      );
      expect((await f.store.get(tenant, "a"))?.task.history[0]?.messageId).toBe("m-hello a");
      expect(await f.store.commit(tenant, { task: working, expectedVersion: 1, events: [] })).toBe(2);
      expect((await f.store.get(tenant, "a"))?.turn).toBe("t1");
      await f.store.endTurn(tenant, "a", "t2");
      expect((await f.store.get(tenant, "a"))?.turn).toBe("t1");
      await f.store.endTurn(tenant, "a", "t1");
      expect((await f.store.get(tenant, "a"))?.turn).toBeUndefined();
      expect(await f.store.commit(tenant, { task: working, expectedVersion: 2, events: [], startTurn: "t2" })).toBe(3);
      expect((await f.store.get(tenant, "a"))?.turn).toBe("t2");
      await f.store.endTurn(tenant, "missing", "t2");
    });

    it("a commit leaving the task interrupted or terminal ends the running turn", async () => {
      const tenant = freshTenant();
      for (const [id, state] of [
        ["input", 6],
        ["auth", 8],
        ["done", 3],
        ["canceled", 5],
      ] as const) {
        const created = makeTask(id, { state: 1 });
        await f.store.commit(tenant, { task: created, expectedVersion: 0, events: [], startTurn: `turn-${id}` });
        expect((await f.store.get(tenant, id))?.turn).toBe(`turn-${id}`);
        const next = makeTask(id, { state });
        expect(await f.store.commit(tenant, { task: next, expectedVersion: 1, events: [] })).toBe(2);
        expect({ id, turn: (await f.store.get(tenant, id))?.turn }).toEqual({ id, turn: undefined });
      }
      const terminal = makeTask("born-done", { state: 3 });
      await f.store.commit(tenant, { task: terminal, expectedVersion: 0, events: [], startTurn: "never" });
      expect((await f.store.get(tenant, "born-done"))?.turn).toBeUndefined();
    });

    it("lets exactly one of several concurrent commits starting a turn win", async () => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a", { state: 6 });
      const starts = Array.from({ length: 6 }, (_, i) =>
        f.store.commit(tenant, {
          task: makeTask("a", { state: 2 }),
          expectedVersion: 1,
          events: [],
          startTurn: `${i}`,
        }),
      );
      const results = await Promise.all(starts);
      expect(results.filter((r) => r === 2)).toHaveLength(1);
      expect((await f.store.get(tenant, "a"))?.turn).toBe(`${results.indexOf(2)}`);
    });
  });
}

function describeCommits(f: Fixture): void {
  describe("commits", () => {
    it("creates at version 1 and reads the task back whole", async () => {
      const tenant = freshTenant();
      expect(await f.store.get(tenant, "a")).toBeUndefined();
      const task = await create(f.store, tenant, "a", { ms: BASE_MS + 0.5 });
      const stored = await f.store.get(tenant, "a");
      expect(stored?.version).toBe(1);
      expect(stored?.task).toEqual(task);
    });

    it("refuses a second create and a stale or missing version, writing nothing", async () => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a", { text: "first" });
      const other = makeTask("a", { text: "second" });
      expect(await f.store.commit(tenant, { task: other, expectedVersion: 0, events: [] })).toBeUndefined();
      expect(await f.store.commit(tenant, { task: other, expectedVersion: 2, events: [] })).toBeUndefined();
      expect(await f.store.commit(tenant, { task: makeTask("b"), expectedVersion: 1, events: [] })).toBeUndefined();
      expect(await f.store.get(tenant, "b")).toBeUndefined();
      const stored = await f.store.get(tenant, "a");
      expect(stored?.version).toBe(1);
      expect(stored?.task.history[0]?.messageId).toBe("m-first");
      expect(await f.store.commit(tenant, { task: other, expectedVersion: 1, events: [] })).toBe(2);
      expect(await f.store.commit(tenant, { task: other, expectedVersion: 1, events: [] })).toBeUndefined();
      expect(await f.store.commit(tenant, { task: other, expectedVersion: 2, events: [] })).toBe(3);
      expect((await f.store.get(tenant, "a"))?.task.history[0]?.messageId).toBe("m-second");
    });

    it("lets exactly one of several concurrent writers of one version win", async () => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a");
      const writers = Array.from({ length: 8 }, (_, i) =>
        f.store.commit(tenant, { task: makeTask("a", { text: `w${i}` }), expectedVersion: 1, events: [] }),
      );
      const results = await Promise.all(writers);
      expect(results.filter((r) => r === 2)).toHaveLength(1);
      expect(results.filter((r) => r === undefined)).toHaveLength(7);
      const winner = results.indexOf(2);
      expect((await f.store.get(tenant, "a"))?.task.history[0]?.messageId).toBe(`m-w${winner}`);
    });

    it("keeps its own copies: changing a committed or returned task changes nothing stored", async () => {
      const tenant = freshTenant();
      const task = await create(f.store, tenant, "a");
      const before = structuredClone(task);
      (task.history[0] as { messageId: string }).messageId = "changed by caller";
      const read = await f.store.get(tenant, "a");
      expect(read?.task).toEqual(before);
      read?.task.history.push(read.task.history[0] as never);
      const listed = await f.store.list(tenant, query());
      (listed.tasks[0] as Task).contextId = "changed";
      expect((await f.store.get(tenant, "a"))?.task).toEqual(before);
    });

    it("scopes tasks by tenant", async () => {
      const [t1, t2] = [freshTenant(), freshTenant()];
      await create(f.store, t1, "same", { text: "one" });
      expect(await f.store.get(t2, "same")).toBeUndefined();
      await create(f.store, t2, "same", { text: "two" });
      expect((await f.store.get(t1, "same"))?.task.history[0]?.messageId).toBe("m-one");
      expect((await f.store.get(t2, "same"))?.task.history[0]?.messageId).toBe("m-two");
      expect((await f.store.list(t1, query())).totalSize).toBe(1);
    });
  });
}

function describeEvents(f: Fixture): void {
  describe("events", () => {
    it("hands each commit's events, in order, with the version they produced", async () => {
      const tenant = freshTenant();
      const seen: TaskEvent[] = [];
      const stop = await f.store.subscribe(tenant, "a", (e) => seen.push(e));
      const created = await create(f.store, tenant, "a");
      const working = makeTask("a", { state: 2, ms: BASE_MS + 1 });
      const done = makeTask("a", { state: 3, ms: BASE_MS + 2 });
      expect(await f.store.commit(tenant, { task: working, expectedVersion: 1, events: [statusEvent(working)] })).toBe(
        2,
      );
      const events = [statusEvent(done), taskEvent(done)];
      expect(await f.store.commit(tenant, { task: done, expectedVersion: 2, events })).toBe(3);
      await settle(() => seen.length >= 4);
      await stop();
      expect(seen.map((e) => [e.tenant, e.taskId, e.version, e.event.payload.case])).toEqual([
        [tenant, "a", 1, "task"],
        [tenant, "a", 2, "statusUpdate"],
        [tenant, "a", 3, "statusUpdate"],
        [tenant, "a", 3, "task"],
      ]);
      expect(seen[0]?.event).toEqual(taskEvent(created));
      expect(seen[3]?.event).toEqual(taskEvent(done));
    });

    it("hands each subscriber its own copy of an event, neither the committed one nor another's", async () => {
      const tenant = freshTenant();
      const first: TaskEvent[] = [];
      const second: TaskEvent[] = [];
      const stops = [
        await f.store.subscribe(tenant, "a", (e) => first.push(e)),
        await f.store.subscribe(tenant, "a", (e) => second.push(e)),
      ];
      const created = await create(f.store, tenant, "a");
      const working = makeTask("a", { state: 2, ms: BASE_MS + 1 });
      const committed = statusEvent(working);
      await f.store.commit(tenant, { task: working, expectedVersion: 1, events: [committed] });
      await settle(() => first.length >= 2 && second.length >= 2);
      for (const stop of stops) await stop();
      const [a, b] = [first[1]?.event, second[1]?.event];
      expect(a).not.toBe(committed);
      expect(a).not.toBe(b);
      if (a?.payload.case === "statusUpdate") a.payload.value.taskId = "changed";
      expect(b).toEqual(statusEvent(working));
      expect(committed).toEqual(statusEvent(working));
      expect(first[0]?.event).not.toBe(second[0]?.event);
      expect(second[0]?.event).toEqual(taskEvent(created));
    });

    it("publishes nothing for a refused commit, nor to other tasks or tenants", async () => {
      const [tenant, other] = [freshTenant(), freshTenant()];
      const seen: TaskEvent[] = [];
      const stops = [
        await f.store.subscribe(tenant, "b", (e) => seen.push(e)),
        await f.store.subscribe(other, "a", (e) => seen.push(e)),
      ];
      const mine: TaskEvent[] = [];
      stops.push(await f.store.subscribe(tenant, "a", (e) => mine.push(e)));
      await create(f.store, tenant, "a");
      const stale = makeTask("a", { state: 4 });
      expect(await f.store.commit(tenant, { task: stale, expectedVersion: 0, events: [statusEvent(stale)] })).toBe(
        undefined,
      );
      const next = makeTask("a", { state: 2 });
      expect(await f.store.commit(tenant, { task: next, expectedVersion: 1, events: [statusEvent(next)] })).toBe(2);
      await settle(() => mine.length >= 2);
      for (const stop of stops) await stop();
      expect(mine.map((e) => e.version)).toEqual([1, 2]);
      expect(seen).toEqual([]);
    });
  });
}

function describeSubscriptions(f: Fixture): void {
  describe("subscriptions", () => {
    it("stops one subscription on unsubscribe and keeps the others", async () => {
      const tenant = freshTenant();
      const first: number[] = [];
      const second: number[] = [];
      const stopFirst = await f.store.subscribe(tenant, "a", (e) => first.push(e.version));
      const stopSecond = await f.store.subscribe(tenant, "a", (e) => second.push(e.version));
      await create(f.store, tenant, "a");
      await settle(() => first.length >= 1 && second.length >= 1);
      await stopFirst();
      await stopFirst();
      const next = makeTask("a", { state: 2 });
      await f.store.commit(tenant, { task: next, expectedVersion: 1, events: [statusEvent(next)] });
      await settle(() => second.length >= 2);
      await stopSecond();
      expect(first).toEqual([1]);
      expect(second).toEqual([1, 2]);
    });

    it("delivers many successive commits in version order", async () => {
      const tenant = freshTenant();
      const versions: number[] = [];
      const stop = await f.store.subscribe(tenant, "a", (e) => versions.push(e.version));
      await create(f.store, tenant, "a");
      for (let v = 1; v < 30; v++) {
        const t = makeTask("a", { state: 2, ms: BASE_MS + v });
        expect(await f.store.commit(tenant, { task: t, expectedVersion: v, events: [statusEvent(t)] })).toBe(v + 1);
      }
      await settle(() => versions.length >= 30);
      await stop();
      expect(versions).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    });
  });
}

/** Tasks of the listing tests: id, context, state, ms after BASE_MS. */
const LISTED: readonly [string, string, number, number][] = [
  ["t1", "c1", 1, 10],
  ["t2", "c1", 2, 20],
  ["t3", "c2", 2, 30],
  ["t4", "c2", 3, 40],
  ["t5", "c1", 3, 50],
  ["t6", "c2", 2, 50],
  ["t0", "c1", 2, 50],
];

async function seedListed(store: TaskStore, tenant: string): Promise<void> {
  for (const [id, contextId, state, ms] of LISTED)
    await create(store, tenant, id, { contextId, state, ms: BASE_MS + ms });
}

function expected(keep: (contextId: string, state: number, ms: number) => boolean): string[] {
  return LISTED.filter(([, c, s, ms]) => keep(c, s, ms))
    .sort((a, b) => b[3] - a[3] || (a[0] < b[0] ? -1 : 1))
    .map(([id]) => id);
}

function describeListing(f: Fixture): void {
  describe("listing", () => {
    it("lists newest status first, ties by id, with totalSize", async () => {
      const tenant = freshTenant();
      await seedListed(f.store, tenant);
      const page = await f.store.list(tenant, query());
      expect(page.tasks.map((t) => t.id)).toEqual(["t0", "t5", "t6", "t4", "t3", "t2", "t1"]);
      expect(page.totalSize).toBe(7);
      expect(page.nextPageToken).toBe("");
      expect(page.tasks[0]).toEqual(makeTask("t0", { contextId: "c1", state: 2, ms: BASE_MS + 50 }));
      expect(await f.store.list(freshTenant(), query())).toEqual({ tasks: [], nextPageToken: "", totalSize: 0 });
    });

    it("filters by contextId, status, statusAfterMs (at or after) and their combinations", async () => {
      const tenant = freshTenant();
      await seedListed(f.store, tenant);
      const cases: [Partial<TaskQuery>, (c: string, s: number, ms: number) => boolean][] = [
        [{ contextId: "c1" }, (c) => c === "c1"],
        [{ status: 2 }, (_c, s) => s === 2],
        [{ contextId: "c2", status: 2 }, (c, s) => c === "c2" && s === 2],
        // a2a.proto status_timestamp_after: "greater than or equal to this value"; BASE_MS + 30 is t3's instant.
        [{ statusAfterMs: BASE_MS + 30 }, (_c, _s, ms) => ms >= 30],
        [{ statusAfterMs: BASE_MS + 29.999 }, (_c, _s, ms) => ms >= 30],
        [{ statusAfterMs: BASE_MS + 30.001 }, (_c, _s, ms) => ms > 30],
        [{ contextId: "c1", statusAfterMs: BASE_MS + 10 }, (c, _s, ms) => c === "c1" && ms >= 10],
        [{ status: 2, statusAfterMs: BASE_MS + 20 }, (_c, s, ms) => s === 2 && ms >= 20],
        [{ contextId: "c1", status: 3, statusAfterMs: BASE_MS }, (c, s) => c === "c1" && s === 3],
        [{ contextId: "none" }, () => false],
        [{ status: 7 }, () => false],
        [{ statusAfterMs: BASE_MS + 50 }, (_c, _s, ms) => ms === 50],
        [{ statusAfterMs: BASE_MS + 50.001 }, () => false],
      ];
      for (const [filter, keep] of cases) {
        const page = await f.store.list(tenant, query(filter));
        const want = expected(keep);
        expect({ filter, ids: page.tasks.map((t) => t.id), total: page.totalSize }).toEqual({
          filter,
          ids: want,
          total: want.length,
        });
        expect(await pageAll(f.store, tenant, query({ ...filter, pageSize: 2 }))).toEqual(want);
      }
    });

    it("follows each commit: a changed state, context or timestamp moves the task", async () => {
      const tenant = freshTenant();
      await seedListed(f.store, tenant);
      const moved = makeTask("t1", { contextId: "c2", state: 4, ms: BASE_MS + 60 });
      expect(await f.store.commit(tenant, { task: moved, expectedVersion: 1, events: [] })).toBe(2);
      expect((await f.store.list(tenant, query())).tasks.map((t) => t.id)).toEqual([
        "t1",
        "t0",
        "t5",
        "t6",
        "t4",
        "t3",
        "t2",
      ]);
      expect((await f.store.list(tenant, query({ status: 1 }))).totalSize).toBe(0);
      expect((await f.store.list(tenant, query({ contextId: "c1" }))).tasks.map((t) => t.id)).toEqual([
        "t0",
        "t5",
        "t2",
      ]);
      const failed = await f.store.list(tenant, query({ contextId: "c2", status: 4 }));
      expect(failed.tasks).toEqual([moved]);
      expect(failed.totalSize).toBe(1);
    });
  });
}

function describePaging(f: Fixture): void {
  describe("paging", () => {
    it("pages by key: tasks that did not move neither repeat nor go missing", async () => {
      const tenant = freshTenant();
      await seedListed(f.store, tenant);
      const first = await f.store.list(tenant, query({ pageSize: 3 }));
      expect(first.tasks.map((t) => t.id)).toEqual(["t0", "t5", "t6"]);
      expect(first.nextPageToken).not.toBe("");
      // t4 (not yet listed) moves to the front, t0 (listed) is updated in place; a new task sorts first.
      await f.store.commit(tenant, {
        task: makeTask("t4", { contextId: "c2", state: 3, ms: BASE_MS + 90 }),
        expectedVersion: 1,
        events: [],
      });
      await create(f.store, tenant, "t9", { ms: BASE_MS + 95 });
      const rest = await pageAll(f.store, tenant, query({ pageSize: 2, pageToken: first.nextPageToken }));
      expect(rest).toEqual(["t3", "t2", "t1"]);
    });

    it("refuses malformed page tokens, naming pageToken", async () => {
      const tenant = freshTenant();
      await seedListed(f.store, tenant);
      const good = (await f.store.list(tenant, query({ pageSize: 2 }))).nextPageToken;
      const bad = ["x", "not a token!", "e30", Buffer.from("[1,2,3]").toString("base64url"), `${good}x`, good.slice(1)];
      for (const pageToken of bad) await expectInvalidToken(f.store.list(tenant, query({ pageSize: 2, pageToken })));
    });

    it("refuses a page token made for another tenant or another query", async () => {
      const [tenant, other] = [freshTenant(), freshTenant()];
      await seedListed(f.store, tenant);
      await seedListed(f.store, other);
      const pageToken = (await f.store.list(tenant, query({ pageSize: 2 }))).nextPageToken;
      await expectInvalidToken(f.store.list(other, query({ pageSize: 2, pageToken })));
      await expectInvalidToken(f.store.list(tenant, query({ pageSize: 2, pageToken, contextId: "c1" })));
      await expectInvalidToken(f.store.list(tenant, query({ pageSize: 2, pageToken, status: 2 })));
      await expectInvalidToken(f.store.list(tenant, query({ pageSize: 2, pageToken, statusAfterMs: BASE_MS })));
      // Another page size is the same query.
      expect((await f.store.list(tenant, query({ pageSize: 5, pageToken }))).tasks.map((t) => t.id)).toEqual([
        "t6",
        "t4",
        "t3",
        "t2",
        "t1",
      ]);
    });
  });
}

function describePushConfigs(f: Fixture): void {
  describe("push configs", () => {
    it("puts, replaces, reads and deletes one config per (task, id)", async () => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a");
      await create(f.store, tenant, "b");
      const one = pushConfig(tenant, "a", "one");
      await f.store.putPushConfig(tenant, one);
      // A config reads back with its task's owner (StoredPushConfig.owner): "" for a task made for nobody.
      expect(await f.store.getPushConfig(tenant, "a", "one")).toEqual({ ...one, owner: "" });
      expect(await f.store.getPushConfig(tenant, "b", "one")).toBeUndefined();
      expect(await f.store.getPushConfig(freshTenant(), "a", "one")).toBeUndefined();
      const replaced = { ...pushConfig(tenant, "a", "one", "https://example.com/other"), protocolVersion: "0.3" };
      await f.store.putPushConfig(tenant, replaced);
      expect(await f.store.getPushConfig(tenant, "a", "one")).toEqual({ ...replaced, owner: "" });
      expect((await f.store.listPushConfigs(tenant, "a", 0, "")).configs).toEqual([{ ...replaced, owner: "" }]);
      expect(await f.store.deletePushConfig(tenant, "b", "one")).toBe(false);
      expect(await f.store.deletePushConfig(tenant, "a", "one")).toBe(true);
      expect(await f.store.deletePushConfig(tenant, "a", "one")).toBe(false);
      expect(await f.store.getPushConfig(tenant, "a", "one")).toBeUndefined();
      expect(await f.store.listPushConfigs(tenant, "a", 0, "")).toEqual({ configs: [], nextPageToken: "" });
    });

    it("reads a config back with its task's owner, whatever owner the put names", async () => {
      const tenant = freshTenant();
      const task = makeTask("a");
      expect(await f.store.commit(tenant, { task, expectedVersion: 0, events: [], owner: "alice" })).toBe(1);
      await f.store.putPushConfig(tenant, { ...pushConfig(tenant, "a", "one"), owner: "mallory" }, "alice");
      expect((await f.store.getPushConfig(tenant, "a", "one"))?.owner).toBe("alice");
      expect((await f.store.getPushConfig(tenant, "a", "one", "alice"))?.owner).toBe("alice");
      const listed = await f.store.listPushConfigs(tenant, "a", 0, "");
      expect(listed.configs.map((c) => c.owner)).toEqual(["alice"]);
    });

    it("keeps its own copies of configs", async () => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a");
      const one = pushConfig(tenant, "a", "one");
      await f.store.putPushConfig(tenant, one);
      (one.config as { url: string }).url = "https://changed.example";
      const read = await f.store.getPushConfig(tenant, "a", "one");
      expect(read?.config.url).toBe("https://example.com/hook");
      (read?.config as { url: string }).url = "https://changed.example";
      expect((await f.store.getPushConfig(tenant, "a", "one"))?.config.url).toBe("https://example.com/hook");
    });

    it("lists all with pageSize 0, else in pages that cover each config once", async () => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a");
      await create(f.store, tenant, "b");
      const ids = ["k3", "k1", "k5", "k2", "k4"];
      for (const id of ids) await f.store.putPushConfig(tenant, pushConfig(tenant, "a", id));
      await f.store.putPushConfig(tenant, pushConfig(tenant, "b", "other"));
      const all = await f.store.listPushConfigs(tenant, "a", 0, "");
      expect(all.nextPageToken).toBe("");
      expect(all.configs.map((c) => c.config.id).sort()).toEqual([...ids].sort());
      const paged: string[] = [];
      let token = "";
      for (let i = 0; i < 10; i++) {
        const page = await f.store.listPushConfigs(tenant, "a", 2, token);
        expect(page.configs.length).toBeLessThanOrEqual(2);
        paged.push(...page.configs.map((c) => c.config.id));
        token = page.nextPageToken;
        if (!token) break;
      }
      expect(paged.sort()).toEqual([...ids].sort());
      await expectInvalidToken(f.store.listPushConfigs(tenant, "a", 2, "garbage!"));
      const first = (await f.store.listPushConfigs(tenant, "a", 2, "")).nextPageToken;
      await expectInvalidToken(f.store.listPushConfigs(tenant, "b", 2, first));
    });

    it("holds at most 100 configs per task, also among concurrent puts; none for a missing task", async () => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a");
      for (let i = 0; i < 99; i++) await f.store.putPushConfig(tenant, pushConfig(tenant, "a", `k${i}`));
      const puts = Array.from({ length: 8 }, (_, i) => f.store.putPushConfig(tenant, pushConfig(tenant, "a", `n${i}`)));
      const results = await Promise.allSettled(puts);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) {
        if (r.status === "rejected") {
          expect(r.reason).toMatchObject({ name: "A2AError", type: "InvalidParamsError" });
          expect(String(r.reason.message)).toMatch(/already has 100 push configs \(maxPushConfigsPerTask 100\)/);
        }
      }
      await f.store.putPushConfig(tenant, pushConfig(tenant, "a", "k5", "https://example.com/replaced"));
      expect((await f.store.listPushConfigs(tenant, "a", 0, "")).configs).toHaveLength(100);
      const missing = f.store.putPushConfig(tenant, pushConfig(tenant, "none", "k"));
      await expect(missing).rejects.toMatchObject({ name: "A2AError", type: "TaskNotFoundError" });
    });
  });
}

function describeKeys(f: Fixture): void {
  describe("keys", () => {
    it.each([
      ["a NUL character", "x\u0000y", "a NUL"],
      ["a lone high surrogate", "x\ud800", "a lone surrogate"],
      ["a lone low surrogate", "\udc00y", "a lone surrogate"],
    ])("refuses %s in any key, naming the field (InvalidParamsError)", async (_what, nul, says) => {
      const tenant = freshTenant();
      await create(f.store, tenant, "a");
      const refusals: [string, () => Promise<unknown>][] = [
        ["tenant", () => f.store.get(nul, "a")],
        ["taskId", () => f.store.get(tenant, nul)],
        ["task.id", () => f.store.commit(tenant, { task: makeTask(nul), expectedVersion: 0, events: [] })],
        [
          "task.contextId",
          () => f.store.commit(tenant, { task: makeTask("b", { contextId: nul }), expectedVersion: 0, events: [] }),
        ],
        ["contextId", () => f.store.list(tenant, query({ contextId: nul }))],
        ["taskId", () => f.store.subscribe(tenant, nul, () => {})],
        ["id", () => f.store.putPushConfig(tenant, pushConfig(tenant, "a", nul))],
        ["id", () => f.store.getPushConfig(tenant, "a", nul)],
        ["taskId", () => f.store.listPushConfigs(tenant, nul, 0, "")],
        ["id", () => f.store.deletePushConfig(tenant, "a", nul)],
      ];
      for (const [field, call] of refusals) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e as { type?: string; message?: string },
        );
        expect({ field, type: error?.type, named: error?.message?.includes(`${field} holds ${says}`) }).toEqual({
          field,
          type: "InvalidParamsError",
          named: true,
        });
      }
      expect(await f.store.get(tenant, "b")).toBeUndefined();
      // A surrogate pair is one character, as any other.
      await create(f.store, tenant, "pair-\u{1f600}");
      expect((await f.store.get(tenant, "pair-\u{1f600}"))?.task.id).toBe("pair-\u{1f600}");
    });
  });
}
