/**
 * SendMessage and SendStreamingMessage, after the shared start (send-start.ts).
 *
 *   SendMessage           a reply-only executor's message is the answer (no
 *                         task). Else the task: returnImmediately answers it at
 *                         once; by default the call waits until the task is in
 *                         a terminal or interrupted state (S1 §3.2.2), or the
 *                         executor returned leaving it as it was; the answer is
 *                         the task as stored then (when this call's executor
 *                         made that version, its copy of it, not a read). A
 *                         task the store dropped as it ended (terminalTtlMs
 *                         0, or evicted to make room) is answered as this
 *                         call last knew it (its executor's last commit the
 *                         writer kept, or the continued task, else only the id
 *                         and context: history and artifacts may be fewer than
 *                         were stored), with the ending event's status and its
 *                         message added to the history
 *   SendStreamingMessage  the message alone, or the Task first and then its
 *                         events, up to the one that leaves the task terminal
 *                         or interrupted (S1 §3.1.2)
 *
 * configuration.historyLength trims the task in the answer (and the stream's
 * first Task). A caller that goes away stops waiting; the task goes on.
 */
import type { HandlerContext } from "../core/definition.js";
import type { SendMessageRequest, SendMessageResponse, StreamResponse, Task } from "./a2a-types.js";
import type { HandlerDeps } from "./handler-deps.js";
import { startSend, unlessAborted, type SendStart } from "./send-start.js";
import { messageEvent, taskEvent, taskView } from "./task-shapes.js";
import { eventReader } from "./task-watch.js";
import { deepCopy } from "./copy.js";
import { withNames } from "../core/records.js";

const answerTask = (task: Task): SendMessageResponse => ({
  $typeName: "lf.a2a.v1.SendMessageResponse",
  payload: { case: "task", value: task },
});

/** What a call knew of the task when its wait ended: the last version it had, and the event that ended it. */
interface LastKnown {
  readonly task: Task | undefined;
  readonly event: StreamResponse | undefined;
}

/** The task as stored, else (dropped as it ended) as last known with the ending status (module rules). */
async function storedView(
  deps: HandlerDeps,
  start: SendStart,
  historyLength: number | undefined,
  known?: LastKnown,
): Promise<Task> {
  const stored = await deps.store.get(start.tenant, start.place.taskId);
  if (stored) return taskView(stored.task, historyLength);
  const ended = known?.event?.payload.case === "statusUpdate" ? known.event.payload.value : undefined;
  if (ended?.status === undefined) {
    // No ending event (returnImmediately): what this call's executor committed last, if the writer kept it.
    if (known?.task !== undefined) return taskView(deepCopy(known.task), historyLength);
    throw new Error(`task ${start.place.taskId} vanished from the store`);
  }
  const { taskId: id, contextId, status } = ended;
  const task: Task = known?.task
    ? deepCopy(known.task)
    : { $typeName: "lf.a2a.v1.Task", id, contextId, artifacts: [], history: [] };
  const history = status.message ? [...task.history, status.message] : task.history;
  return taskView(withNames(task, { status, history }), historyLength);
}

export async function sendMessage(
  deps: HandlerDeps,
  req: SendMessageRequest,
  context: HandlerContext,
): Promise<SendMessageResponse> {
  // The call waits for the task to stop and reads it then: the watch keeps only the events that end the wait.
  const start = await startSend(deps, req, context, "SendMessage", "ends");
  const historyLength = req.configuration?.historyLength;
  try {
    let afterVersion = 0;
    if (start.continued) afterVersion = start.continued.version;
    else {
      const first = await unlessAborted(start.run.first, context.signal);
      if (first.kind === "message") {
        return { $typeName: "lf.a2a.v1.SendMessageResponse", payload: { case: "message", value: first.message } };
      }
    }
    if (req.configuration?.returnImmediately) {
      if (start.continued) return answerTask(taskView(start.continued.task, historyLength));
      const known = { task: start.run.lastWrite()?.task, event: undefined };
      return answerTask(await storedView(deps, start, historyLength, known));
    }
    const progress = { version: afterVersion };
    const read = eventReader(start.watch, afterVersion, context.signal, progress);
    let ending: StreamResponse | undefined;
    // Waiting for the event that ends the wait (the only kind the watch keeps); the answer is the task after it.
    for (let e = await read(); e !== undefined; e = await read()) ending = e;
    // The version the wait ended at: its ending event's, or where the watch stood when the executor returned.
    const reached = progress.version > afterVersion ? progress.version : start.watch.seen();
    // This call's executor committed that very version: its copy is the stored task, without reading it back.
    const own = start.run.lastWrite();
    if (own?.version === reached) return answerTask(taskView(deepCopy(own.task), historyLength));
    const known = { task: own?.task ?? start.continued?.task, event: ending };
    return answerTask(await storedView(deps, start, historyLength, known));
  } finally {
    await start.watch.stop();
  }
}

/** The stream's first Task, trimmed to the call's historyLength. */
function firstTask(event: StreamResponse, historyLength: number | undefined): StreamResponse {
  return event.payload.case === "task" ? taskEvent(taskView(event.payload.value, historyLength)) : event;
}

export async function* sendStreamingMessage(
  deps: HandlerDeps,
  req: SendMessageRequest,
  context: HandlerContext,
): AsyncGenerator<StreamResponse> {
  const start = await startSend(deps, req, context, "SendStreamingMessage", "events");
  const historyLength = req.configuration?.historyLength;
  try {
    if (start.continued) yield taskEvent(taskView(start.continued.task, historyLength));
    else {
      const first = await unlessAborted(start.run.first, context.signal);
      if (first.kind === "message") {
        yield messageEvent(first.message);
        return;
      }
    }
    // Read here rather than through a nested generator: one layer of promises less per event.
    const read = eventReader(start.watch, start.continued?.version ?? 0, context.signal);
    let event = await read();
    if (event !== undefined && !start.continued) {
      yield firstTask(event, historyLength);
      event = await read();
    }
    for (; event !== undefined; event = await read()) yield event;
  } finally {
    await start.watch.stop();
  }
}
