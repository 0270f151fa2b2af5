/**
 * The start that SendMessage and SendStreamingMessage share: check the call,
 * listen to the task, then let the executor run.
 *
 *   new task      message without taskId: a new task id; the message's
 *                 contextId, or a new one, kept for the task and the reply
 *   continuation  message with taskId: TaskNotFoundError when the tenant has
 *                 no such task (S1 §3.4.2); UnsupportedOperationError when it
 *                 is in a terminal state (S1 §3.1.1: "Messages sent to Tasks
 *                 that are in a terminal state ... cannot accept further
 *                 messages"); InvalidParamsError when the message's contextId
 *                 is not the task's (S1 §3.4.3: "Agents MUST reject messages
 *                 containing mismatching contextId and taskId"); the busy error
 *                 while a turn runs on it (turns.ts: one message at a time).
 *                 The message joins the history, the task becomes WORKING
 *                 (from input-required, auth-required, ...) and the call's
 *                 turn starts, in one commit
 *   push config   configuration.taskPushNotificationConfig: refused without
 *                 push (PushNotificationNotSupportedError) or when the checks
 *                 of push-config-check.ts refuse it (header fields, URL),
 *                 before anything is written; stored for the task (with the
 *                 call's protocol version) before its first event is pushed
 *
 *   owner         the authorize policy (access.ts) names the owner a new
 *                 task records and the owner the continued task must have:
 *                 another owner's task is TaskNotFoundError as a missing one
 *                 (in the read, the commit joining the message, and the push
 *                 config's put alike); the executor gets the caller as
 *                 RequestContext.principal
 *
 * A tenant, message.taskId or message.contextId holding a NUL character is
 * InvalidParamsError naming it (store-keys.ts). Every refusal comes before
 * the executor runs and before a stream starts.
 * The watch listens before the task is read or created, so the caller sees
 * every event after the version it starts from. When the executor returns
 * with the task neither terminal nor interrupted, the watch ends at the
 * version the task had then, so no caller waits for a task nobody works on
 * (when the store cannot even say that version, it ends at once, and the
 * caller's read of the task says what failed).
 */
import type { HandlerContext } from "../core/definition.js";
import { A2AError } from "../core/a2a-error.js";
import { TaskState, TERMINAL_STATES, type Message, type SendMessageRequest } from "./a2a-types.js";
import { scopeOf, tenantOf, type HandlerDeps } from "./handler-deps.js";
import { RunEar, startRun, type Run } from "./run.js";
import type { StoredPushConfig, StoredTask } from "./store.js";
import { checkPushConfig } from "./push-config-check.js";
import { checkHistoryLength, stateName, statusEvent, withStatus, type MessagePlace } from "./task-shapes.js";
import { watchTask, type TaskWatch, type WatchKeeps } from "./task-watch.js";
import { deepCopy } from "./copy.js";
import { type Committed, committedCopy, type LastWrite, type Origin } from "./task-writer.js";
import { busyTaskError } from "./turns.js";
import { checkKeys } from "./store-keys.js";

export interface SendStart {
  readonly tenant: string;
  readonly place: MessagePlace;
  readonly watch: TaskWatch;
  readonly run: Run;
  /** The continued task after the message joined it (the call's own copy); undefined for a new task. */
  readonly continued: Committed | undefined;
}

async function pushConfigOf(
  deps: HandlerDeps,
  req: SendMessageRequest,
  context: HandlerContext,
  at: { tenant: string; taskId: string; operation: string },
): Promise<StoredPushConfig | undefined> {
  const config = req.configuration?.taskPushNotificationConfig;
  if (!config) return undefined;
  if (!deps.push) {
    throw new A2AError("PushNotificationNotSupportedError", "SendMessage: this agent sends no push notifications");
  }
  await checkPushConfig(deps.push.sender, config, {
    operation: at.operation,
    path: "configuration.taskPushNotificationConfig.",
  });
  const id = config.id || deps.newId();
  return { config: { ...config, tenant: at.tenant, taskId: at.taskId, id }, protocolVersion: context.protocolVersion };
}

const terminalRefusal = (taskId: string, state: TaskState) =>
  new A2AError(
    "UnsupportedOperationError",
    `Task ${taskId} is ${stateName(state)}, a terminal state; it takes no more messages`,
  );

/** The place of the message: a new task, or the stored task it continues (checked), with that task as read. */
async function placeOf(
  deps: HandlerDeps,
  message: Message,
  tenant: string,
  visible: string | undefined,
): Promise<{ place: MessagePlace; stored?: StoredTask }> {
  if (!message.taskId) return { place: { taskId: deps.newId(), contextId: message.contextId || deps.newId() } };
  const stored = await deps.store.get(tenant, message.taskId, visible);
  if (!stored) throw new A2AError("TaskNotFoundError", `Task ${message.taskId} not found`);
  if (message.contextId && message.contextId !== stored.task.contextId) {
    throw new A2AError(
      "InvalidParamsError",
      `message.contextId ${message.contextId} is not the context ${stored.task.contextId} of task ${message.taskId}`,
    );
  }
  const state = stored.task.status?.state ?? TaskState.UNSPECIFIED;
  // Refused here, before a push config is stored or anything listens; the commit checks again (a cancel may win).
  if (TERMINAL_STATES.has(state)) throw terminalRefusal(message.taskId, state);
  if (stored.turn !== undefined) throw busyTaskError(deps.busyError, message.taskId);
  return { place: { taskId: stored.task.id, contextId: stored.task.contextId }, stored };
}

async function continueTask(
  deps: HandlerDeps,
  tenant: string,
  message: Message,
  turn: string,
  at: { origin: Origin; visible: string | undefined; last: LastWrite },
): Promise<Committed> {
  const committed = await deps.writer.change(
    tenant,
    message.taskId,
    (stored) => {
      const state = stored.task.status?.state ?? TaskState.UNSPECIFIED;
      if (TERMINAL_STATES.has(state)) throw terminalRefusal(message.taskId, state);
      if (stored.turn !== undefined) throw busyTaskError(deps.busyError, message.taskId);
      const task = withStatus({ ...stored.task, history: [...stored.task.history, message] }, TaskState.WORKING);
      return { task, events: [statusEvent(task)], startTurn: turn };
    },
    at.origin,
    // Starts from the read that placed the message (a stale one costs a retry), and leaves the commit in `last`.
    { owner: at.visible, last: at.last },
  );
  if (!committed) throw new Error(`Task ${message.taskId}: the message could not join it`);
  return { task: committedCopy(committed), version: committed.version };
}

/**
 * Checks the call, listens, joins or prepares the task and starts the executor (see the header). `keeps`: what
 * the watch keeps for the caller (task-watch.ts), every event for a stream, the ends for a blocking send.
 */
export async function startSend(
  deps: HandlerDeps,
  req: SendMessageRequest,
  context: HandlerContext,
  operation: string,
  keeps: WatchKeeps,
): Promise<SendStart> {
  if (!req.message) throw new A2AError("InvalidParamsError", `${operation}: message is required`);
  checkHistoryLength(req.configuration?.historyLength, `${operation}: configuration.historyLength`);
  const tenant = tenantOf(context, req);
  const { taskId, contextId } = req.message;
  checkKeys(operation, { tenant, "message.taskId": taskId, "message.contextId": contextId });
  const scope = await scopeOf(deps, context, operation);
  const { place, stored } = await placeOf(deps, req.message, tenant, scope.visible);
  const userMessage: Message = { ...req.message, ...place };
  const pushConfig = await pushConfigOf(deps, req, context, { tenant, taskId: place.taskId, operation });
  const putConfig = async () => {
    if (pushConfig) await deps.store.putPushConfig(tenant, pushConfig, scope.visible);
  };
  const origin: Origin = { operation, context };
  // Not the user's idGenerator: a turn id never leaves the runtime.
  const turn = crypto.randomUUID();
  // A new task's id was made here: it is at version 0 until this call creates it; a continued one was just read.
  const watch = await watchTask(deps.hub, tenant, place.taskId, stored?.version ?? 0, keeps);
  const last: LastWrite = { stored };
  let ear: RunEar | undefined;
  try {
    // The run hears its task from before the message joins it: a cancel right after the join aborts the executor.
    ear = await RunEar.listen(deps.hub, tenant, place.taskId);
    let continued: Committed | undefined;
    if (req.message.taskId) {
      await putConfig();
      continued = await continueTask(deps, tenant, userMessage, turn, { origin, visible: scope.visible, last });
    }
    const run = startRun({
      ear,
      executor: deps.executor,
      writer: deps.writer,
      tenant,
      place,
      userMessage,
      turn,
      mode: continued ? "task" : "open",
      newId: deps.newId,
      owner: scope.owner,
      origin,
      onCreated: putConfig,
      // The executor's own copy: what it holds is shared with neither the store nor the caller.
      continued: continued ? deepCopy(continued.task) : undefined,
      lastWrite: continued ? last.stored : undefined,
      // A blocking send answers from the executor's last commit (task-writer.ts).
      answersFromLastWrite: keeps === "ends",
      extensions: context.extensions,
      configuration: req.configuration,
      metadata: req.metadata,
      protocolVersion: context.protocolVersion,
      principal: context.principal,
      report: (e) => deps.report(e, operation, context),
      telemetry: deps.telemetry,
    });
    void run.settled
      .then(async (ended) => {
        // A task left terminal or interrupted ends the watch by its own event; else end at the version as it is.
        if (!ended) watch.endAt((await deps.store.get(tenant, place.taskId))?.version ?? 0);
      })
      .catch((e: unknown) => {
        // The store failed (it is unreachable): end the watch now, so the caller's read answers, not waits forever.
        watch.endAt(0);
        deps.report(e, operation, context);
      });
    return { tenant, place, watch, run, continued };
  } catch (e) {
    // Both stop whatever the other does; the call's own refusal is what the caller hears.
    await Promise.allSettled([watch.stop(), ear?.stop()]);
    throw e;
  }
}

/** The promise, or the signal's abort (the caller went away) as a rejection. */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
