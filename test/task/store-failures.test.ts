/**
 * A store that fails in the middle of a turn (as PostgreSQL does when it
 * restarts): the memory store behind a proxy that, from the commit that would
 * complete the task on, fails every call with the 503 InternalError the
 * PostgreSQL store gives when it cannot reach its database. The blocking send
 * whose executor ran into it must answer with that error, not wait forever
 * for the completion event of a commit that never held (updater.ts: a failed
 * commit ends no stream; send-start.ts: a watch whose task the store cannot
 * read ends at once). Bounded: a send still unanswered after WAIT_MS fails.
 * And what nobody waits to retry is asked again while the store is unavailable (store-retry.ts): the FAILED
 * status of an executor that threw, and the push configs read after a commit (else the loss is reported).
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import {
  type AgentExecutor,
  createMemoryTaskStore,
  createTaskHandler,
  type PushSender,
  TaskState,
  type TaskStore,
} from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, SendMessageRequestSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { handlerContext } from "../helpers/task-values.js";

const WAIT_MS = 10_000;

const context = handlerContext();

const unavailable = () =>
  new A2AError("InternalError", "PostgreSQL task store unavailable: (simulated) failed; retry later", {
    httpStatus: 503,
  });

/** The memory store, down (every call fails) from the first change that would complete a task on. */
function failingAtCompletion(withUpdate: boolean): TaskStore {
  const memory = createMemoryTaskStore();
  let down = false;
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (down) throw unavailable();
      return call(...args);
    };
  const store: TaskStore = {
    get: guard((t, id) => memory.get(t, id)),
    commit: guard(async (t, c) => {
      if (c.task.status?.state === TaskState.COMPLETED) {
        down = true;
        throw unavailable();
      }
      return memory.commit(t, c);
    }),
    list: guard((t, q) => memory.list(t, q)),
    endTurn: guard((t, id, turn) => memory.endTurn(t, id, turn)),
    subscribe: (t, id, l) => memory.subscribe(t, id, l),
    putPushConfig: guard((t, s) => memory.putPushConfig(t, s)),
    getPushConfig: guard((t, id, c) => memory.getPushConfig(t, id, c)),
    listPushConfigs: guard((t, id, n, p) => memory.listPushConfigs(t, id, n, p)),
    deletePushConfig: guard((t, id, c) => memory.deletePushConfig(t, id, c)),
    close: () => memory.close(),
  };
  if (!withUpdate) return store;
  return {
    ...store,
    update: guard((t, id, change) =>
      memory.update!(t, id, (stored) => {
        const made = change(stored);
        if (made?.task.status?.state === TaskState.COMPLETED) {
          down = true;
          throw unavailable();
        }
        return made;
      }),
    ),
  };
}

const executor: AgentExecutor = {
  async execute(_ctx, up) {
    await up.status(TaskState.WORKING);
    await up.status(TaskState.COMPLETED);
  },
};

describe.each([
  ["a compare-and-set store", false],
  ["a store with update", true],
])("%s that fails at the completing commit", (_name, withUpdate) => {
  it("answers the blocking send with the store's error instead of waiting forever", async () => {
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor,
      store: failingAtCompletion(withUpdate),
      onError: () => undefined,
    });
    const request = create(SendMessageRequestSchema, {
      message: { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] },
    });
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      handler.sendMessage!(request, context).then(
        () => "answered with a task",
        (e: unknown) => (e instanceof A2AError ? `${e.type}: ${e.message}` : String(e)),
      ),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no answer within ${WAIT_MS} ms`), WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    expect(answered).toBe("InternalError: PostgreSQL task store unavailable: (simulated) failed; retry later");
  });
});

/** The memory store's calls (no update: every change a compare-and-set commit), `over` in place of some. */
function memoryWith(memory: TaskStore, over: Partial<TaskStore>): TaskStore {
  return {
    get: (t, id) => memory.get(t, id),
    list: (t, q) => memory.list(t, q),
    commit: (t, c) => memory.commit(t, c),
    endTurn: (t, id, turn) => memory.endTurn(t, id, turn),
    subscribe: (t, id, l) => memory.subscribe(t, id, l),
    putPushConfig: (t, s) => memory.putPushConfig(t, s),
    getPushConfig: (t, id, c) => memory.getPushConfig(t, id, c),
    listPushConfigs: (t, id, n, p) => memory.listPushConfigs(t, id, n, p),
    deletePushConfig: (t, id, c) => memory.deletePushConfig(t, id, c),
    close: () => memory.close(),
    ...over,
  };
}

describe("a store unavailable for the FAILED status of an executor that threw", () => {
  it("is asked again until it takes it: the task ends FAILED, not WORKING with no turn", async () => {
    const memory = createMemoryTaskStore();
    // Down for the first two writes of the FAILED status (a blip), as PostgreSQL restarting is.
    let refusals = 2;
    const store = memoryWith(memory, {
      commit: async (t, c) => {
        if (c.task.status?.state === TaskState.FAILED && refusals > 0) {
          refusals -= 1;
          throw unavailable();
        }
        return memory.commit(t, c);
      },
    });
    const thrower: AgentExecutor = {
      async execute(_ctx, up) {
        await up.status(TaskState.WORKING);
        throw new Error("the executor broke");
      },
    };
    const errors: string[] = [];
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor: thrower,
      store,
      onError: (e) => errors.push(e instanceof Error ? e.message : String(e)),
    });
    const request = create(SendMessageRequestSchema, {
      message: { messageId: "m2", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] },
      configuration: { returnImmediately: true },
    });
    const answer = await handler.sendMessage!(request, context);
    const id = (answer.payload?.value as { readonly id?: string } | undefined)?.id ?? "";
    await expect
      .poll(async () => (await memory.get("", id))?.task.status?.state, { timeout: 5000 })
      .toBe(TaskState.FAILED);
    expect(refusals).toBe(0);
    expect(errors.filter((e) => e.includes("unavailable"))).toHaveLength(2);
    expect(errors).toContain("the executor broke");
  });
});

describe("a store unavailable when a commit's push configs are read", () => {
  /** The memory store whose listPushConfigs fails `failures` times, with the 503 or with `error`. */
  function listFailing(failures: number, error: () => Error = unavailable) {
    const memory = createMemoryTaskStore();
    let left = failures;
    return memoryWith(memory, {
      listPushConfigs: async (t, id, n, p) => {
        if (left > 0) {
          left -= 1;
          throw error();
        }
        return memory.listPushConfigs(t, id, n, p);
      },
    });
  }

  /** Sends one message whose task has a push config, waits for its run, and gives what was sent and told. */
  async function sendWithPush(store: TaskStore) {
    const sent: string[] = [];
    const sender: PushSender = {
      checkUrl: async () => {},
      send: (delivery) => void sent.push(delivery.body),
      idle: async () => {},
    };
    const errors: string[] = [];
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor,
      store,
      push: { sender },
      onError: (e) => errors.push(e instanceof Error ? e.message : String(e)),
    });
    const taskPushNotificationConfig = { url: "https://hooks.example/a2a" };
    const request = create(SendMessageRequestSchema, {
      message: { messageId: "m3", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] },
      configuration: { taskPushNotificationConfig },
    });
    const answer = await handler.sendMessage!(request, context);
    const id = (answer.payload?.value as { readonly id?: string } | undefined)?.id ?? "";
    return { id, sent, errors };
  }

  it("reads them again, and delivers every event", async () => {
    const { sent, errors } = await sendWithPush(listFailing(2));
    // The first commit's two events (the task, working) after two failed reads, then completed's.
    await expect.poll(() => sent.length, { timeout: 10_000 }).toBe(3);
    expect(sent.map((body) => Object.keys(JSON.parse(body) as object)[0])).toEqual([
      "task",
      "statusUpdate",
      "statusUpdate",
    ]);
    expect(errors.filter((e) => e.includes("unavailable"))).toHaveLength(2);
  });

  it("reports what it could not send, naming the task, when the read keeps failing", async () => {
    const { id, sent, errors } = await sendWithPush(listFailing(1, () => new Error("the store broke")));
    await expect.poll(() => errors.length, { timeout: 5000 }).toBeGreaterThan(0);
    // The first commit's two events are lost, reported; the next commit's read works again.
    expect(errors[0]).toBe(`push delivery for task ${id}: its push configs could not be read; 2 events not sent`);
    await expect.poll(() => sent.length).toBe(1);
  });
});
