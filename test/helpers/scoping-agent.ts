/**
 * What the task-scoping tests share (test/task/task-scoping*.test.ts): a small
 * agent whose first message leaves its task INPUT_REQUIRED and whose "answer"
 * completes it, remembering the principal each call came from; request
 * builders for every task operation; the stores to run on (memory, and
 * PostgreSQL on a migrated schema of its own); and readers of answers and
 * refusals.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { A2AError, type HandlerContext, type Principal } from "@protoc-gen-a2a/runtime";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import {
  createMemoryTaskStore,
  createTaskHandler,
  type AgentExecutor,
  type PushSender,
  ownerOf,
  type TaskAuthorizer,
  type TaskStore,
} from "@protoc-gen-a2a/runtime/task";
import pg from "pg";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import {
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  Role,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  TaskState,
  type SendMessageResponseSchema,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { postgresUrl, uniqueSchema } from "./postgres.js";

export { TaskState };

/** The principal of each executor call, by task id (the last call's). */
export const callers = new Map<string, Principal | undefined>();

const textOf = (parts: readonly { readonly content: { case: string | undefined; value?: unknown } }[]) =>
  parts.map((p) => (p.content.case === "text" ? String(p.content.value) : "")).join("");

/** "answer" completes the task; anything else asks for input (the task stays open). */
export const askingAgent: AgentExecutor = {
  async execute(ctx, up) {
    callers.set(ctx.taskId, ctx.principal);
    if (textOf(ctx.message.parts) === "answer") return up.status(TaskState.COMPLETED, "thanks");
    return up.status(TaskState.INPUT_REQUIRED, "which one?");
  },
};

/** Accepts every webhook URL and delivers nothing: the tests look at the configs, not at deliveries. */
export const quietSender: PushSender = {
  checkUrl: async () => undefined,
  send: () => undefined,
  idle: async () => undefined,
};

/** The admin policy of createTaskHandler's header: the "admin" scope sees every owner's tasks. */
export const adminSeesAll: TaskAuthorizer = (p) => ({
  owner: ownerOf(p),
  seesAll: p?.scopes.includes("admin") ?? false,
});

export type ScopedHandler = ReturnType<typeof scopedHandler>;

/** The v1.0 handler of the asking agent over `store`, with push configs, and the given policy (default: none). */
export function scopedHandler(store: TaskStore, authorize?: TaskAuthorizer) {
  return createTaskHandler({
    definition: A2AServiceV1_0,
    executor: askingAgent,
    store,
    push: { sender: quietSender },
    ...(authorize ? { authorize } : {}),
  });
}

export interface Backend {
  readonly name: string;
  /** A new store; PostgreSQL ones on one migrated schema per test file. */
  make(): Promise<TaskStore>;
}

let schema: Promise<string> | undefined;

export const BACKENDS: readonly Backend[] = [
  { name: "memory", make: async () => createMemoryTaskStore() },
  {
    name: "postgres",
    async make() {
      schema ??= (async () => {
        const name = uniqueSchema("scoping");
        const admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
        await migrate(admin, { schema: name });
        await admin.end();
        return name;
      })();
      return createPostgresTaskStore({ pool: postgresUrl(), definition: A2AServiceV1_0, schema: await schema });
    },
  },
];

export interface SendOptions {
  readonly taskId?: string;
  readonly contextId?: string;
  readonly url?: string;
}

export const sendRequest = (text: string, options: SendOptions = {}) =>
  create(SendMessageRequestSchema, {
    message: {
      messageId: crypto.randomUUID(),
      role: Role.USER,
      taskId: options.taskId ?? "",
      contextId: options.contextId ?? "",
      parts: [{ content: { case: "text", value: text } }],
    },
    ...(options.url ? { configuration: { taskPushNotificationConfig: { url: options.url } } } : {}),
  });

/** The task of a SendMessage answer. */
export function taskOf(r: MessageInitShape<typeof SendMessageResponseSchema>): Task {
  if (r.payload?.case !== "task") throw new Error(`expected a task, got ${r.payload?.case}`);
  return r.payload.value as Task;
}

/** Sends `text` as a new task (or to `options.taskId`) and answers the task. */
export async function send(h: ScopedHandler, context: HandlerContext, text = "ask", options: SendOptions = {}) {
  return taskOf(await h.sendMessage!(sendRequest(text, options), context));
}

export const getRequest = (id: string) => create(GetTaskRequestSchema, { id });
export const cancelRequest = (id: string) => create(CancelTaskRequestSchema, { id });
export const subscribeRequest = (id: string) => create(SubscribeToTaskRequestSchema, { id });
export const listRequest = (init: MessageInitShape<typeof ListTasksRequestSchema> = {}) =>
  create(ListTasksRequestSchema, init);
export const configRequest = (taskId: string, url: string, id = "") =>
  create(TaskPushNotificationConfigSchema, { taskId, url, id });
export const getConfigRequest = (taskId: string, id: string) =>
  create(GetTaskPushNotificationConfigRequestSchema, { taskId, id });
export const listConfigsRequest = (taskId: string) => create(ListTaskPushNotificationConfigsRequestSchema, { taskId });
export const deleteConfigRequest = (taskId: string, id: string) =>
  create(DeleteTaskPushNotificationConfigRequestSchema, { taskId, id });

/** What a refused call threw: the A2AError's type and message (anything else fails the test). */
export async function refusal(call: Promise<unknown>): Promise<{ type: string; message: string }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof A2AError)) throw new Error(`expected an A2AError, got ${String(error)}`);
  return { type: error.type, message: error.message };
}

/** The first item of a stream (then the stream is closed). */
export async function firstOf<T>(stream: AsyncIterable<T>): Promise<T | undefined> {
  const it = stream[Symbol.asyncIterator]();
  try {
    return (await it.next()).value;
  } finally {
    await it.return?.();
  }
}

/** Every task id over the pages of a ListTasks of `pageSize`, and the totalSize each page gave. */
export async function listAll(
  h: ScopedHandler,
  context: HandlerContext,
  init: MessageInitShape<typeof ListTasksRequestSchema> = {},
  pageSize = 1,
): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let pageToken = "";
  do {
    const page = await h.listTasks!(listRequest({ ...init, pageSize, pageToken }), context);
    ids.push(...(page.tasks ?? []).map((t) => t.id ?? ""));
    totals.push(page.totalSize ?? -1);
    pageToken = page.nextPageToken ?? "";
  } while (pageToken !== "");
  return { ids, totals };
}
