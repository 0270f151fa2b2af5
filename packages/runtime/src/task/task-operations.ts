/**
 * The operations on stored tasks, each scoped by the call's tenant
 * (handler-deps.ts): a task of another tenant is TaskNotFoundError.
 *
 *   GetTask          the task, history trimmed by historyLength
 *   ListTasks        filters (contextId, status, statusTimestampAfter: at or
 *                    after, a2a.proto) and paging by the store; pageSize 1 to 100, 50 when unset
 *                    (a2a.proto ListTasksRequest.page_size), else
 *                    InvalidParamsError; artifacts only with includeArtifacts
 *                    (S1 §3.1.4: false by default)
 *   CancelTask       commits CANCELED (compare-and-set, re-checked on each
 *                    read); a task in a terminal state is
 *                    TaskNotCancelableError (S1 §3.1.5). The executor's
 *                    signal aborts when its run sees the CANCELED event
 *   SubscribeToTask  listen, read, refuse a terminal task
 *                    (UnsupportedOperationError, S1 §3.1.6), then the Task
 *                    and the events after the version read, up to the one that
 *                    leaves the task terminal or interrupted
 */
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "../definition.js";
import { A2AError } from "../a2a-error.js";
import {
  TaskState,
  TERMINAL_STATES,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from "./a2a-types.js";
import { tenantOf, type HandlerDeps } from "./handler-deps.js";
import { checkHistoryLength, stateName, statusEvent, taskEvent, taskView, withStatus } from "./task-shapes.js";
import { eventReader, watchTask } from "./task-watch.js";
import { committedCopy } from "./task-writer.js";

export const DEFAULT_PAGE_SIZE = 50;

/** The instant in milliseconds, cut to the microsecond (the stores' precision), never rounded up past it. */
function microsecondMs(ts: Timestamp): number {
  return (Number(ts.seconds) * 1_000_000 + Math.floor(ts.nanos / 1000)) / 1000;
}
export const MAX_PAGE_SIZE = 100;

export async function getTask(deps: HandlerDeps, req: GetTaskRequest, context: HandlerContext): Promise<Task> {
  checkHistoryLength(req.historyLength, "GetTask: historyLength");
  const stored = await deps.store.get(tenantOf(context, req), req.id);
  if (!stored) throw new A2AError("TaskNotFoundError", `Task ${req.id} not found`);
  return taskView(stored.task, req.historyLength);
}

export async function listTasks(
  deps: HandlerDeps,
  req: ListTasksRequest,
  context: HandlerContext,
): Promise<ListTasksResponse> {
  const pageSize = req.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new A2AError("InvalidParamsError", `ListTasks: pageSize must be 1 to ${MAX_PAGE_SIZE}, got ${pageSize}`);
  }
  checkHistoryLength(req.historyLength, "ListTasks: historyLength");
  const page = await deps.store.list(tenantOf(context, req), {
    contextId: req.contextId,
    status: req.status,
    statusAfterMs: req.statusTimestampAfter ? microsecondMs(req.statusTimestampAfter) : undefined,
    pageSize,
    pageToken: req.pageToken,
  });
  return {
    $typeName: "lf.a2a.v1.ListTasksResponse",
    tasks: page.tasks.map((t) => taskView(t, req.historyLength, req.includeArtifacts ?? false)),
    nextPageToken: page.nextPageToken,
    pageSize,
    totalSize: page.totalSize,
  };
}

export async function cancelTask(deps: HandlerDeps, req: CancelTaskRequest, context: HandlerContext): Promise<Task> {
  const committed = await deps.writer.change(
    tenantOf(context, req),
    req.id,
    (stored) => {
      const state = stored.task.status?.state ?? TaskState.UNSPECIFIED;
      if (TERMINAL_STATES.has(state)) {
        throw new A2AError("TaskNotCancelableError", `Task ${req.id} is ${stateName(state)}, a terminal state`);
      }
      const task = withStatus(stored.task, TaskState.CANCELED);
      return { task, events: [statusEvent(task, req.metadata)] };
    },
    { operation: "CancelTask", context },
  );
  if (!committed) throw new Error(`CancelTask: task ${req.id} was not written`);
  return committedCopy(committed);
}

export async function* subscribeToTask(
  deps: HandlerDeps,
  req: SubscribeToTaskRequest,
  context: HandlerContext,
): AsyncGenerator<StreamResponse> {
  const tenant = tenantOf(context, req);
  const watch = await watchTask(deps.hub, tenant, req.id);
  try {
    const stored = await deps.store.get(tenant, req.id);
    if (!stored) throw new A2AError("TaskNotFoundError", `Task ${req.id} not found`);
    const state = stored.task.status?.state ?? TaskState.UNSPECIFIED;
    if (TERMINAL_STATES.has(state)) {
      throw new A2AError("UnsupportedOperationError", `Task ${req.id} is ${stateName(state)}, a terminal state`);
    }
    yield taskEvent(stored.task);
    const read = eventReader(watch, stored.version, context.signal);
    for (let e = await read(); e !== undefined; e = await read()) yield e;
  } finally {
    await watch.stop();
  }
}
