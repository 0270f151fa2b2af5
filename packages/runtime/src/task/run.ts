/**
 * One executor call: the request context, the updater, and what happens
 * around the call.
 *
 *   cancel    before the executor starts, the run listens to its task's
 *             events (on any instance sharing the store); a CANCELED state
 *             aborts the context's signal
 *   first     resolves with the reply message or once the task exists;
 *             rejects with what the executor throws before either (an
 *             A2AError is the caller's answer, anything else InternalError),
 *             or with an Error when it returns without publishing anything
 *             (or ends while the task it made could not be set up)
 *   failure   a throw after the task exists leaves the task FAILED, with a
 *             status message that says only that the agent failed (no
 *             internal details); onError gets the error
 *   settled   resolves when the executor's call has ended, however it ended
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { TaskState, TERMINAL_STATES, type Message, type SendMessageConfiguration } from "./a2a-types.js";
import type { AgentExecutor, RequestContext } from "./executor.js";
import { agentMessage, statusEvent, withStatus } from "./task-shapes.js";
import { stateOf } from "./task-watch.js";
import { createUpdater, type FirstOutcome, type UpdaterSetup } from "./updater.js";

export interface RunSetup extends Omit<UpdaterSetup, "onFirst"> {
  readonly executor: AgentExecutor;
  readonly continued: RequestContext["task"];
  readonly extensions: readonly string[];
  readonly configuration: SendMessageConfiguration | undefined;
  readonly metadata: JsonObject | undefined;
  readonly protocolVersion: string;
  /** Tells onError about a failure no caller will see. */
  readonly report: (error: unknown) => void;
}

export interface Run {
  readonly first: Promise<FirstOutcome>;
  readonly settled: Promise<void>;
}

const FAILURE_TEXT = "The agent failed while working on this task.";

function requestContext(setup: RunSetup, message: Message, signal: AbortSignal): RequestContext {
  return {
    message,
    task: setup.continued,
    taskId: setup.place.taskId,
    contextId: setup.place.contextId,
    tenant: setup.tenant,
    extensions: setup.extensions,
    configuration: setup.configuration,
    metadata: setup.metadata,
    protocolVersion: setup.protocolVersion,
    signal,
  };
}

/** Leaves the task FAILED unless it is in a terminal state already. */
async function fail(setup: RunSetup): Promise<void> {
  const message = agentMessage(FAILURE_TEXT, setup.place, setup.newId);
  await setup.writer.change(
    setup.tenant,
    setup.place.taskId,
    (stored) => {
      const state = stored.task.status?.state ?? TaskState.UNSPECIFIED;
      if (TERMINAL_STATES.has(state)) return undefined;
      const task = withStatus(stored.task, TaskState.FAILED, message);
      return { task, events: [statusEvent(task)] };
    },
    setup.origin,
  );
}

export async function startRun(setup: RunSetup): Promise<Run> {
  const abort = new AbortController();
  const { store } = setup.writer;
  const unsubscribe = await store.subscribe(setup.tenant, setup.place.taskId, (e) => {
    if (stateOf(e.event) !== TaskState.CANCELED) return;
    // Not inside the store's delivery: the executor's abort listeners run on their own turn.
    queueMicrotask(() => abort.abort(new Error(`task ${setup.place.taskId} was canceled`)));
  });
  let answer!: (outcome: FirstOutcome) => void;
  let refuse!: (error: unknown) => void;
  const first = new Promise<FirstOutcome>((resolve, reject) => {
    answer = resolve;
    refuse = reject;
  });
  // A caller that went away no longer awaits `first`; what it would have thrown is not an unhandled rejection.
  first.catch(() => undefined);
  const updater = createUpdater({ ...setup, onFirst: answer });
  const afterThrow = async (error: unknown) => {
    if (updater.mode() === "open") return refuse(error);
    setup.report(error);
    if (updater.mode() === "task") await fail(setup).catch(setup.report);
  };
  const call = async () => {
    try {
      await setup.executor.execute(requestContext(setup, setup.userMessage, abort.signal), updater);
      if (updater.mode() === "open") {
        refuse(new Error(`task ${setup.place.taskId}: the executor returned without a reply, status or artifact`));
      }
    } catch (error) {
      await afterThrow(error);
    } finally {
      // A no-op when answered; else (the task was made but what had to follow failed) the caller hears of it.
      refuse(new Error(`task ${setup.place.taskId}: the executor ended before the call was answered`));
      await unsubscribe().catch(setup.report);
    }
  };
  return { first, settled: call() };
}
