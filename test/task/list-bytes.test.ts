/**
 * ListTasks bounded in bytes (createTaskHandler maxListBytes): a page ends before the task that would take its
 * tasks, as answered, past the bound (the first task always comes), and its nextPageToken lists the rest, so
 * walking the pages still meets every task once, in order. What counts is what the call keeps: a listing
 * without artifacts is not cut by their size. On the memory store and on PostgreSQL, which both take the store
 * hints (they read or copy only what the listing keeps, and stop at the bound by their own estimate), and on a
 * store that takes neither (the handler lists the same page again, shorter).
 */
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import {
  createMemoryTaskStore,
  createTaskHandler,
  type Task,
  type TaskQuery,
  type TaskStore,
} from "@protoc-gen-a2a/runtime/task";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { A2AServiceV1_0, type A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { ListTasksRequestSchema, ListTasksResponseSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { callerContext } from "../helpers/caller-context.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { BASE_MS, freshTenant, makeTask, message, taskEvent } from "./store-fixtures.js";

const KIB = 1024;
const TASKS = 9;
/** Each task: an artifact of 75 KiB and three history messages of 5 KiB (the first, oldest, of 25 KiB). */
const ARTIFACT = 75 * KIB;

/** A history message whose one text part holds `n` times `c`. */
function textMessage(n: number, c: string) {
  const part = {
    $typeName: "lf.a2a.v1.Part",
    content: { case: "text", value: c.repeat(n) },
    filename: "",
    mediaType: "",
  };
  return { ...message(c), parts: [part] } as ReturnType<typeof message>;
}

function bigTask(i: number): Task {
  const task = makeTask(`t${i}`, { ms: BASE_MS - i * 1000 });
  const artifactText = { case: "text" as const, value: "a".repeat(ARTIFACT) };
  return {
    ...task,
    history: [textMessage(25 * KIB, "h"), textMessage(5 * KIB, "i"), textMessage(5 * KIB, "j")],
    artifacts: [
      {
        $typeName: "lf.a2a.v1.Artifact",
        artifactId: "a",
        name: "",
        description: "",
        parts: [{ $typeName: "lf.a2a.v1.Part", content: artifactText, filename: "", mediaType: "" }],
        extensions: [],
      },
    ],
  };
}

const executor = { execute: async () => {} };

/** Every page of a listing: the ids on each. */
async function pages(
  handler: A2AServiceHandler,
  tenant: string,
  ask: { includeArtifacts?: boolean; historyLength?: number },
): Promise<string[][]> {
  const out: string[][] = [];
  let pageToken = "";
  do {
    const request = create(ListTasksRequestSchema, { tenant, pageSize: 100, pageToken, ...ask });
    const listTasks = handler.listTasks ?? expect.fail("the task handler has listTasks");
    const page = create(ListTasksResponseSchema, await listTasks(request, callerContext(undefined)));
    out.push(page.tasks.map((t) => t.id));
    if (ask.includeArtifacts)
      for (const t of page.tasks) expect(t.artifacts[0]?.parts[0]?.content.value).toHaveLength(ARTIFACT);
    else for (const t of page.tasks) expect(t.artifacts).toEqual([]);
    if (ask.historyLength !== undefined) for (const t of page.tasks) expect(t.history).toHaveLength(ask.historyLength);
    pageToken = page.nextPageToken;
    expect(out.length).toBeLessThanOrEqual(TASKS);
  } while (pageToken !== "");
  return out;
}

const ids = Array.from({ length: TASKS }, (_, i) => `t${i}`);

/** `store` with its list replaced by `list`: a store of one's own around it. */
function withList(store: TaskStore, list: TaskStore["list"]): TaskStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === "list") return list;
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The store, with each list call's query recorded. */
function recording(store: TaskStore): { store: TaskStore; queries: TaskQuery[] } {
  const queries: TaskQuery[] = [];
  const list: TaskStore["list"] = (tenant, query) => {
    queries.push(query);
    return store.list(tenant, query);
  };
  return { store: withList(store, list), queries };
}

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function postgresStore(): Promise<TaskStore> {
  const pool = new pg.Pool({ connectionString: postgresUrl(), max: 4 });
  const schema = uniqueSchema("list_bytes");
  await migrate(pool, { schema });
  const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema });
  cleanup.push(async () => {
    await store.close();
    await pool.end();
  });
  return store;
}

/** A store of one's own that takes neither hint: the memory store, the hints dropped from every query. */
async function hintless(): Promise<TaskStore> {
  const store = createMemoryTaskStore();
  return withList(store, (tenant, query) => store.list(tenant, { ...query, view: undefined, maxBytes: undefined }));
}

describe.each([
  ["memory", async () => createMemoryTaskStore(), true],
  ["PostgreSQL", postgresStore, true],
  ["hintless", hintless, false],
] as const)("on the %s store", (_name, make, honorsHint) => {
  it("cuts pages at maxListBytes by what each call keeps, and the pages still list every task once", async () => {
    const tenant = freshTenant();
    const given = await make();
    for (let i = 0; i < TASKS; i++) {
      const task = bigTask(i);
      expect(await given.commit(tenant, { task, expectedVersion: 0, events: [taskEvent(task)] })).toBe(1);
    }
    const { store, queries } = recording(given);
    // About 112 KiB a task with its artifact and history, 37 KiB without the artifact, 12 KiB with two messages.
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store, maxListBytes: 280 * KIB });

    const whole = await pages(handler, tenant, { includeArtifacts: true });
    expect(whole).toEqual([["t0", "t1"], ["t2", "t3"], ["t4", "t5"], ["t6", "t7"], ["t8"]]);
    // The stores stopped at the bound themselves; the hintless store's pages were listed twice, the second shorter.
    expect(queries.map((q) => q.pageSize)).toEqual(
      honorsHint ? [100, 100, 100, 100, 100] : [100, 2, 100, 2, 100, 2, 100, 2, 100],
    );

    expect(await pages(handler, tenant, {})).toEqual([ids.slice(0, 7), ids.slice(7)]);
    expect(await pages(handler, tenant, { historyLength: 2 })).toEqual([ids]);
    expect(await pages(handler, tenant, { includeArtifacts: true, historyLength: 0 })).toEqual([
      ["t0", "t1", "t2"],
      ["t3", "t4", "t5"],
      ["t6", "t7", "t8"],
    ]);
  });

  it("answers one task a page when a single task is over the bound", async () => {
    const tenant = freshTenant();
    const store = await make();
    for (let i = 0; i < 3; i++) {
      const task = bigTask(i);
      await store.commit(tenant, { task, expectedVersion: 0, events: [taskEvent(task)] });
    }
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store, maxListBytes: 10 * KIB });
    expect(await pages(handler, tenant, { includeArtifacts: true })).toEqual([["t0"], ["t1"], ["t2"]]);
  });
});

describe.each([
  ["memory", async () => createMemoryTaskStore()],
  ["PostgreSQL", postgresStore],
] as const)("the %s store, asked for a view", (_name, make) => {
  it("gives, as the store hint asks, only the last messages and no artifacts", async () => {
    const tenant = freshTenant();
    const store = await make();
    const task = bigTask(0);
    await store.commit(tenant, { task, expectedVersion: 0, events: [taskEvent(task)] });
    const query = { contextId: "", status: 0, statusAfterMs: undefined, pageSize: 10, pageToken: "" } as const;
    const [last] = (await store.list(tenant, { ...query, view: { historyLength: 1, includeArtifacts: false } })).tasks;
    expect([last?.history, last?.artifacts]).toEqual([task.history.slice(-1), []]);
    const [none] = (await store.list(tenant, { ...query, view: { historyLength: 0, includeArtifacts: true } })).tasks;
    expect([none?.history, none?.artifacts]).toEqual([[], task.artifacts]);
    const [whole] = (await store.list(tenant, query)).tasks;
    expect(whole).toEqual(task);
  });
});

it("refuses a maxListBytes that is no positive integer, naming it", () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    expect(() => createTaskHandler({ definition: A2AServiceV1_0, executor, maxListBytes: bad })).toThrow(
      `createTaskHandler: maxListBytes must be a positive integer, got ${bad}`,
    );
  }
});
