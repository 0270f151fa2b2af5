/**
 * One executor call: the request context, the updater, and what happens
 * around the call.
 *
 *   cancel    the run listens to its task's events (on any instance
 *             sharing the store) from before a continued task's message
 *             joins it (RunEar, made by startSend), so a cancel committed
 *             before the executor starts is heard too; CANCELED aborts the
 *             context's signal, and so does a terminal state the run did
 *             not write (FAILED by another instance's lease sweep, which
 *             took the run for lost: its later changes would be refused);
 *             its own terminal commit does not
 *   first     resolves with the reply message or once the task exists;
 *             rejects with what the executor throws before either (an
 *             A2AError is the caller's answer, anything else InternalError),
 *             or with an Error when it returns without publishing anything
 *             (or ends while the task it made could not be set up)
 *   failure   a throw after the task exists leaves the task FAILED, with a
 *             status message that says only that the agent failed (no
 *             internal details); onError gets the error. A store that is
 *             unavailable for that write (a database blip: a 503) is asked
 *             again (store-retry.ts), each failure told to onError:
 *             the turn ends right after, and a task left WORKING with no
 *             turn would stay so
 *   turn      the call runs as one turn of its task (turns.ts); when it
 *             returns (or throws) with a task made or continued, its turn
 *             ends, if it still runs, before `settled` resolves
 *   trace     with telemetry, the turn is traced from before the executor
 *             starts to its return or throw and its updater calls settling
 *             (after a throw, to the FAILED status written for it), told
 *             each event of its task meanwhile; the updater's commits and
 *             that status carry it (Origin.turn), so their pushes are traced
 *             under it
 *   calls     the run waits for the updater's calls to settle after the
 *             executor returns or throws: one that returns without awaiting
 *             them still publishes them, in its turn; then it closes the
 *             updater, so a call made later is refused; a call that failed
 *             other than with an A2A error is told to onError once (with the
 *             executor's throw, if it carries it), unless the caller is
 *             answered with it (see RunReports)
 *   settled   resolves when the executor's call has ended, however it ended:
 *             true when what the run published last (or found, when the task
 *             had ended before) left the task terminal or interrupted, so
 *             that the streams of its events end by themselves
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Principal } from "../core/principal.js";
import { A2AError } from "../core/a2a-error.js";
import { whileStoreUnavailable } from "./store-retry.js";
import { TaskState, TERMINAL_STATES, type Message, type SendMessageConfiguration } from "./a2a-types.js";
import type { AgentExecutor, RequestContext } from "./executor.js";
import { agentMessage, stateName, statusEvent, withStatus } from "./task-shapes.js";
import type { TaskHub } from "./task-hub.js";
import { stateOf } from "./task-watch.js";
import type { TaskTelemetry, TurnTrace } from "./telemetry.js";
import type { StoredTask } from "./store.js";
import { createUpdater, type FirstOutcome, type UpdaterSetup } from "./updater.js";
import { withNames } from "../core/records.js";
import { isTaskGone } from "./task-writer.js";

export interface RunSetup extends Omit<UpdaterSetup, "onFirst"> {
  /** The run's listener on its task (RunEar.listen), stopped when the run ends. */
  readonly ear: RunEar;
  readonly executor: AgentExecutor;
  readonly continued: RequestContext["task"];
  readonly extensions: readonly string[];
  readonly configuration: SendMessageConfiguration | undefined;
  readonly metadata: JsonObject | undefined;
  readonly protocolVersion: string;
  /** The caller of the message (HandlerContext.principal). */
  readonly principal: Principal | undefined;
  /** Tells onError about a failure no caller will see. */
  readonly report: (error: unknown) => void;
  /** Follows the turn (telemetry.ts), when the handler has telemetry. */
  readonly telemetry: TaskTelemetry | undefined;
}

export interface Run {
  readonly first: Promise<FirstOutcome>;
  readonly settled: Promise<boolean>;
  /** The executor's last commit (RunUpdater.lastWrite). */
  lastWrite(): StoredTask | undefined;
}

const FAILURE_TEXT = "The agent failed while working on this task.";

/** The executor's abort signal, made when first asked for (most executors never look at it). */
class LazyAbort {
  private controller: AbortController | undefined;
  private reason: { value: unknown } | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason.value);
    }
    return this.controller.signal;
  }

  /** Whether the run heard its task end elsewhere (a cancel), whether or not the executor asked for the signal. */
  get fired(): boolean {
    return this.reason !== undefined;
  }

  /**
   * Whether `error` is the signal's abort: its reason (fetch rejects with it) or an AbortError caused by it
   * (node:timers/promises, events.once).
   */
  threw(error: unknown): boolean {
    if (this.reason === undefined) return false;
    return error === this.reason.value || (error instanceof Error && error.cause === this.reason.value);
  }

  abort(reason: unknown): void {
    if (this.reason) return;
    this.reason = { value: reason };
    this.controller?.abort(reason);
  }
}

/** What the ear asks of the run's updater: whether a terminal event at `version` was the run's own. */
interface RunWrites {
  idle(): Promise<void>;
  lastVersion(): number | undefined;
}

/**
 * The run's listener on its task: CANCELED aborts the executor's signal, and so does another terminal state the
 * run did not write itself (FAILED by another instance's lease sweep, which took the run for lost), once the
 * run's own calls have settled; each event goes to the turn's trace once there is one. Made before the task's
 * message joins it, so that nothing committed after the join goes unheard; stopped once (`stop`) when the run
 * ends, or by its maker when the run never starts.
 */
export class RunEar {
  readonly abort = new LazyAbort();
  /** Told each event of the task, once the turn is traced. */
  trace: TurnTrace | undefined;
  /** The run's updater, once it has one: what tells its own terminal commit from another's. */
  writes: RunWrites | undefined;
  private stopListening: (() => Promise<void>) | undefined;

  static async listen(hub: TaskHub, tenant: string, taskId: string): Promise<RunEar> {
    const ear = new RunEar();
    // "reads": the run looks at the state and keeps nothing.
    ear.stopListening = await hub.listen(tenant, taskId, "reads", (e) => {
      ear.trace?.event(e.event);
      const state = stateOf(e.event);
      if (state === undefined || !TERMINAL_STATES.has(state)) return;
      const abort = (why: string) => ear.abort.abort(new Error(`task ${taskId} ${why}`));
      // Not inside the store's delivery: the executor's abort listeners run on their own turn.
      if (state === TaskState.CANCELED) queueMicrotask(() => abort("was canceled"));
      else void ear.endedElsewhere(e.version).then((elsewhere) => elsewhere && abort(`ended (${stateName(state)})`));
    });
    return ear;
  }

  /** Whether the terminal commit at `version` was not the run's own (its calls settled first). */
  private async endedElsewhere(version: number): Promise<boolean> {
    const writes = this.writes;
    if (writes === undefined) return true;
    await writes.idle();
    return (writes.lastVersion() ?? 0) < version;
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.();
  }
}

function requestContext(setup: RunSetup, message: Message, abort: LazyAbort): RequestContext {
  return {
    get signal() {
      return abort.signal;
    },
    message,
    task: setup.continued,
    taskId: setup.place.taskId,
    contextId: setup.place.contextId,
    tenant: setup.tenant,
    extensions: setup.extensions,
    configuration: setup.configuration,
    metadata: setup.metadata,
    protocolVersion: setup.protocolVersion,
    principal: setup.principal,
  };
}

/**
 * What the run's updater is made with: the names of UpdaterSetup only, from the run's setup and `own`. Named one
 * by one, not copied: copying every name of the setup (withNames) cost about 5 µs a send.
 */
function updaterSetup(
  setup: RunSetup,
  own: Pick<UpdaterSetup, "origin" | "onFirst" | "onCallFailed" | "heardEnd">,
): UpdaterSetup {
  // Required: a name UpdaterSetup gains must be named here too.
  const made: Required<UpdaterSetup> = {
    writer: setup.writer,
    tenant: setup.tenant,
    place: setup.place,
    userMessage: setup.userMessage,
    turn: setup.turn,
    mode: setup.mode,
    heardEnd: own.heardEnd,
    newId: setup.newId,
    owner: setup.owner,
    origin: own.origin,
    onCreated: setup.onCreated,
    onFirst: own.onFirst,
    lastWrite: setup.lastWrite,
    answersFromLastWrite: setup.answersFromLastWrite,
    onCallFailed: own.onCallFailed,
  };
  return made;
}

/** fail(), asked again while the store is unavailable (store-retry.ts), each failure reported; whether it held. */
async function failWithRetries(setup: RunSetup, ended: () => boolean): Promise<boolean> {
  try {
    await whileStoreUnavailable(() => fail(setup, ended), setup.report);
    return true;
  } catch (error) {
    setup.report(error);
    return false;
  }
}

/**
 * Leaves the task FAILED unless it is in a terminal state already or works on another turn. A task the store no
 * longer holds is left as it is once the run knows it ended or was interrupted (`ended`: a store drops no other
 * task, store.ts); else its loss is the failure.
 */
async function fail(setup: RunSetup, ended: () => boolean): Promise<void> {
  const message = agentMessage(FAILURE_TEXT, setup.place, setup.newId);
  await ignoringGone(
    ended,
    setup.writer.change(
      setup.tenant,
      setup.place.taskId,
      (stored) => {
        const state = stored.task.status?.state ?? TaskState.UNSPECIFIED;
        if (TERMINAL_STATES.has(state)) return undefined;
        // The next message's turn is not this call's to fail.
        if (stored.turn !== undefined && stored.turn !== setup.turn) return undefined;
        const task = withStatus(stored.task, TaskState.FAILED, message);
        return { task, events: [statusEvent(task)] };
      },
      setup.origin,
    ),
  );
}

/** Awaits a change; a task the store no longer holds is left as it is when the run knows it ended. */
async function ignoringGone(ended: () => boolean, change: Promise<unknown>): Promise<void> {
  try {
    await change;
  } catch (error) {
    if (!isTaskGone(error) || !ended()) throw error;
  }
}

/** The turn's trace, when the handler has telemetry. */
function traceTurn(setup: RunSetup): TurnTrace | undefined {
  const { tenant, place, origin } = setup;
  return setup.telemetry?.turn({
    tenant,
    taskId: place.taskId,
    contextId: place.contextId,
    operation: origin.operation,
    context: origin.context,
  });
}

/**
 * What the run tells onError, each error once: what the executor throws once its task exists, and the failures
 * of updater calls other than A2A errors (a store fault, a bug; an A2A error is an answer). Until the caller is
 * answered, a failed call is held back: if the caller is answered with it, it is not told. Also keeps the first
 * updater call that failed, for the caller.
 */
class RunReports {
  private readonly seen = new WeakSet<object>();
  private held: unknown[] | undefined = [];
  firstCallFailure: { readonly error: unknown } | undefined;

  constructor(private readonly sink: (error: unknown) => void) {}

  /** Tells onError, unless told or answered before. */
  readonly report = (error: unknown): void => {
    if (this.isSeen(error)) return;
    this.sink(error);
  };

  /** The caller is answered (with `error`, if given, which onError is then not told): what was held is told. */
  readonly answered = (error?: unknown): void => {
    if (error !== undefined) this.isSeen(error);
    const held = this.held ?? [];
    this.held = undefined;
    for (const e of held) this.report(e);
  };

  readonly callFailed = (error: unknown): void => {
    this.firstCallFailure ??= { error };
    if (error instanceof A2AError) return;
    if (this.held) this.held.push(error);
    else this.report(error);
  };

  /** Whether `error` was told or answered already; marks it so. */
  private isSeen(error: unknown): boolean {
    if (typeof error !== "object" || error === null) return false;
    if (this.seen.has(error)) return true;
    this.seen.add(error);
    return false;
  }
}

export function startRun(setup: RunSetup): Run {
  const abort = setup.ear.abort;
  const reports = new RunReports(setup.report);
  let settle!: { resolve: (outcome: FirstOutcome) => void; reject: (error: unknown) => void };
  let answered = false;
  const first = new Promise<FirstOutcome>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const answer = (outcome: FirstOutcome) => {
    answered = true;
    settle.resolve(outcome);
    reports.answered();
  };
  const refuse = (error: unknown) => {
    answered = true;
    settle.reject(error);
    reports.answered(error);
  };
  // A continued task exists already: the caller is answered, so no failure of the call is held back from onError.
  if (setup.mode === "task") answer({ kind: "task" });
  // A caller that went away no longer awaits `first`; what it would have thrown is not an unhandled rejection.
  first.catch(() => undefined);
  // Started once the run listens: a store that cannot listen fails the call before any turn is traced.
  const trace = traceTurn(setup);
  setup.ear.trace = trace;
  const origin = trace ? withNames(setup.origin, { turn: trace }) : setup.origin;
  const heardEnd = () => abort.fired;
  const updater = createUpdater(
    updaterSetup(setup, { origin, onFirst: answer, onCallFailed: reports.callFailed, heardEnd }),
  );
  const ended = () => abort.fired || updater.ended();
  setup.ear.writes = updater;
  let failed = false;
  const afterThrow = async (error: unknown) => {
    if (updater.mode() === "open") return refuse(error);
    // The executor rejected with its own signal's reason, as fetch(url, { signal }) does: the cancel, not a fault.
    if (!abort.threw(error)) reports.report(error);
    if (updater.mode() === "task") failed = await failWithRetries(setup, ended);
  };
  const call = async (): Promise<boolean> => {
    try {
      await setup.executor.execute(requestContext(setup, setup.userMessage, abort), updater);
      // An executor may return before the calls it made have settled: the run (and its trace) ends with them.
      await updater.idle();
      trace?.end();
      if (updater.mode() === "open") {
        // Its calls failed (not awaited, or caught), or it made none.
        const none = new Error(`task ${setup.place.taskId}: the executor returned without a reply, status or artifact`);
        refuse(reports.firstCallFailure ? reports.firstCallFailure.error : none);
      }
    } catch (error) {
      await updater.idle();
      await afterThrow(error);
      trace?.end(error);
    } finally {
      // What the executor publishes from here on is refused (updater.ts); a call that slipped in settles first.
      updater.close();
      await updater.idle();
      // When not answered yet (the task was made but what had to follow failed), the caller hears of it.
      if (!answered) refuse(new Error(`task ${setup.place.taskId}: the executor ended before the call was answered`));
      if (updater.mode() === "task") {
        await setup.writer.store.endTurn(setup.tenant, setup.place.taskId, setup.turn).catch(setup.report);
      }
      await setup.ear.stop().catch(setup.report);
    }
    return failed || updater.ended();
  };
  return { first, settled: call(), lastWrite: () => updater.lastWrite() };
}
