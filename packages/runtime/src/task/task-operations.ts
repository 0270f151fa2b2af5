/**
 * The operations on stored tasks, each scoped by the call's tenant
 * (handler-deps.ts) and by the owner the authorize policy lets it see
 * (access.ts), both applied in the store's read: a task of another tenant or
 * owner is TaskNotFoundError, as a missing one, and ListTasks lists, counts
 * (totalSize) and pages only the visible tasks. A tenant, id or contextId
 * holding a NUL character is InvalidParamsError naming it (store-keys.ts).
 *
 *   GetTask          the task, history trimmed by historyLength
 *   ListTasks        filters (contextId, status, statusTimestampAfter: at or
 *                    after, a2a.proto; outside years 1 to 9999 InvalidParamsError)
 *                    and paging by the store; pageSize 1 to 100, 50 when unset
 *                    (a2a.proto ListTasksRequest.page_size), else
 *                    InvalidParamsError; artifacts only with includeArtifacts
 *                    (S1 §3.1.4: false by default)
 *   CancelTask       commits CANCELED (compare-and-set, re-checked on each
 *                    read); a task in a terminal state is
 *                    TaskNotCancelableError (S1 §3.1.5). The executor's
 *                    signal aborts when its run sees the CANCELED event
 *   traces           GetTask, CancelTask and SubscribeToTask link the call's
 *                    span to the call that started the task's last turn, on
 *                    whichever instance (StoredTask.turnTrace, call-trace.ts)
 *   SubscribeToTask  listen, read, refuse a terminal task
 *                    (UnsupportedOperationError, S1 §3.1.6), then the Task
 *                    and the events after the version read, up to the one that
 *                    leaves the task terminal or interrupted. A caller that
 *                    does not see every owner reads the task once before it
 *                    listens: listening to a task others watch already costs
 *                    the store nothing, so another owner's task would answer
 *                    sooner, and with fewer queries, than a missing one
 */
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "../core/definition.js";
import { A2AError } from "../core/a2a-error.js";
import { linkToTurn } from "../core/call-trace.js";
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
import { scopeOf, tenantOf, type HandlerDeps } from "./handler-deps.js";
import { checkHistoryLength, stateName, statusEvent, taskEvent, taskView, withStatus } from "./task-shapes.js";
import { checkKeys } from "./store-keys.js";
import type { TaskQuery } from "./store.js";
import { taskSizes } from "./memory-size.js";
import { eventReader, watchTask } from "./task-watch.js";
import { committedCopy } from "./task-writer.js";

export const DEFAULT_PAGE_SIZE = 50;

/** google.protobuf.Timestamp's range in seconds: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;

/**
 * statusTimestampAfter in milliseconds, cut to the microsecond (the stores' precision), never rounded up past
 * it; outside Timestamp's range (a binary request may carry any int64) it is InvalidParamsError.
 */
function statusAfterMs(ts: Timestamp): number {
  if (ts.seconds < MIN_SECONDS || ts.seconds > MAX_SECONDS || ts.nanos < 0 || ts.nanos > 999_999_999) {
    throw new A2AError(
      "InvalidParamsError",
      `ListTasks: statusTimestampAfter (${ts.seconds} s, ${ts.nanos} ns) is outside years 1 to 9999`,
    );
  }
  return (Number(ts.seconds) * 1_000_000 + Math.floor(ts.nanos / 1000)) / 1000;
}
export const MAX_PAGE_SIZE = 100;

/** A task the store does not hold for the caller: missing, of another tenant, or of another owner alike. */
const notFound = (id: string) => new A2AError("TaskNotFoundError", `Task ${id} not found`);

export async function getTask(deps: HandlerDeps, req: GetTaskRequest, context: HandlerContext): Promise<Task> {
  checkHistoryLength(req.historyLength, "GetTask: historyLength");
  const tenant = tenantOf(context, req);
  checkKeys("GetTask", { tenant, id: req.id });
  const { visible } = await scopeOf(deps, context, "GetTask");
  const stored = await deps.store.get(tenant, req.id, visible);
  if (!stored) throw notFound(req.id);
  linkToTurn(context.values, stored.turnTrace);
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
  const tenant = tenantOf(context, req);
  checkKeys("ListTasks", { tenant, contextId: req.contextId });
  const { visible } = await scopeOf(deps, context, "ListTasks");
  const query: TaskQuery = {
    owner: visible,
    contextId: req.contextId,
    status: req.status,
    statusAfterMs: req.statusTimestampAfter ? statusAfterMs(req.statusTimestampAfter) : undefined,
    pageSize,
    pageToken: req.pageToken,
    view: { historyLength: req.historyLength, includeArtifacts: req.includeArtifacts ?? false },
    maxBytes: deps.maxListBytes,
  };
  const view = (t: Task) => taskView(t, req.historyLength, req.includeArtifacts ?? false);
  let page = await deps.store.list(tenant, query);
  let tasks = page.tasks.map(view);
  const fit = fittingTasks(tasks, deps.maxListBytes);
  if (fit < tasks.length) {
    // The store gave more than fits (it does not take the hint): the same listing again, cut where the bytes end.
    page = await deps.store.list(tenant, { ...query, pageSize: fit });
    tasks = page.tasks.slice(0, fit).map(view);
  }
  const { nextPageToken, totalSize } = page;
  return { $typeName: "lf.a2a.v1.ListTasksResponse", tasks, nextPageToken, pageSize, totalSize };
}

/** How many of the first `tasks` fit in `maxBytes`, estimated (memory-size.ts); at least one. */
function fittingTasks(tasks: readonly Task[], maxBytes: number): number {
  let bytes = 0;
  const over = tasks.findIndex((t, i) => {
    bytes += taskSizes(t).bytes;
    return i > 0 && bytes > maxBytes;
  });
  return over < 0 ? tasks.length : over;
}

export async function cancelTask(deps: HandlerDeps, req: CancelTaskRequest, context: HandlerContext): Promise<Task> {
  const tenant = tenantOf(context, req);
  checkKeys("CancelTask", { tenant, id: req.id });
  const { visible } = await scopeOf(deps, context, "CancelTask");
  let turnTrace: string | undefined;
  const committed = await deps.writer.change(
    tenant,
    req.id,
    (stored) => {
      turnTrace = stored.turnTrace;
      const state = stored.task.status?.state ?? TaskState.UNSPECIFIED;
      if (TERMINAL_STATES.has(state)) {
        throw new A2AError("TaskNotCancelableError", `Task ${req.id} is ${stateName(state)}, a terminal state`);
      }
      const task = withStatus(stored.task, TaskState.CANCELED);
      return { task, events: [statusEvent(task, req.metadata)] };
    },
    { operation: "CancelTask", context },
    { owner: visible },
  );
  if (!committed) throw new Error(`CancelTask: task ${req.id} was not written`);
  linkToTurn(context.values, turnTrace);
  return committedCopy(committed);
}

export async function* subscribeToTask(
  deps: HandlerDeps,
  req: SubscribeToTaskRequest,
  context: HandlerContext,
): AsyncGenerator<StreamResponse> {
  const tenant = tenantOf(context, req);
  checkKeys("SubscribeToTask", { tenant, id: req.id });
  const { visible } = await scopeOf(deps, context, "SubscribeToTask");
  // A caller that does not see every owner reads first: listening costs the store less when the task is watched
  // already, and another owner's task must cost what a missing one does (access.ts).
  if (visible !== undefined && !(await deps.store.get(tenant, req.id, visible))) throw notFound(req.id);
  const watch = await watchTask(deps.hub, tenant, req.id);
  try {
    // Until this read shows the task, the watch only buffers: nothing of another owner's task reaches the caller.
    const stored = await deps.store.get(tenant, req.id, visible);
    if (!stored) throw notFound(req.id);
    linkToTurn(context.values, stored.turnTrace);
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
