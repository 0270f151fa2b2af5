/**
 * The TaskUpdater one executor call gets. Its calls apply in the order they
 * were made (one queue), each as a compare-and-set change (task-writer.ts).
 *
 *   open      nothing published yet (a new task): `reply` answers the call
 *             with that message and no task is made; `status` or `artifact`
 *             creates the task with the call applied, in one commit: its
 *             events are the Task as SUBMITTED, with the user's message as
 *             its history, then the call's own (so a reader sees the task
 *             submitted, then the change, as if they were two commits)
 *   message   the call was answered with a message: nothing more can be
 *             published (the updater refuses, naming the task id)
 *   task      the task exists: status (stamped now; its message joins the
 *             history), artifact (replace by artifactId, or append parts),
 *             reply (joins the history, event: the Message)
 *
 * A change to a task in a terminal state is dropped: after CancelTask, what
 * the executor publishes is no longer wanted (S1 §3.1.5). So is a change to a
 * task on which another turn runs (turns.ts): this call's turn ended when it
 * left the task interrupted, and the task now works on the next message.
 *
 * Grouping (group commit): the calls made while the updater's previous commit
 * is under way, or in the same synchronous stretch of code as the first (the
 * updater looks one microtask after a call: `await Promise.all([
 * status(WORKING), artifact(a), status(COMPLETED)])`), go into one commit, in
 * the order made: each change applies to the task the one before it left, the
 * events are those of one commit per call, in the same order, and each call
 * resolves once that commit holds.
 *
 *   cut       a status that ends the task or interrupts it (input-required,
 *             auth-required) is the last call of its commit: the turn ends
 *             there (turns.ts), as it would alone, and the calls after it
 *             make the next commit (after a terminal state, they are dropped)
 *   failure   a call whose own change throws rejects alone; the others commit
 *             without it. A commit the store refuses (a key, a bound) or
 *             fails rejects every call in it: calls made together are stored
 *             together or not at all. Calls are never retried
 *   bounds    a commit holds at most MAX_GROUP_CALLS calls
 *
 * Closed (`close`, once the executor's call has ended and its calls settled), the updater refuses every call,
 * naming the task: what an executor publishes after its call ended (from a timer, say) is not stored, so it
 * cannot make a task, or change one, that no turn of it runs on.
 *
 * Calls awaited one by one still commit one by one. A call that fails is told
 * to `onCallFailed` as well as to its caller, and its promise never counts as
 * an unhandled rejection: an executor that does not await a call does not
 * bring the process down when a commit fails.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import {
  TaskState,
  TERMINAL_STATES,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
} from "./a2a-types.js";
import type { ArtifactOptions, TaskUpdater } from "./executor.js";
import type { StoredTask } from "./store.js";
import { agentMessage, messageEvent, statusEvent, taskEvent, withStatus, type MessagePlace } from "./task-shapes.js";
import { endsStreams } from "./task-watch.js";
import { isTaskGone, type LastWrite, type Origin, type TaskChange, type TaskWriter } from "./task-writer.js";

export type UpdaterMode = "open" | "message" | "task";

/** What the call learns first: the reply message, or that the task exists. */
export type FirstOutcome = { readonly kind: "message"; readonly message: Message } | { readonly kind: "task" };

export interface UpdaterSetup {
  readonly writer: TaskWriter;
  readonly tenant: string;
  readonly place: MessagePlace;
  /** The user's message, with the task's ids. */
  readonly userMessage: Message;
  /** This call's turn (turns.ts): started with the task it creates, or by the commit that joined the message. */
  readonly turn: string;
  /** "task" when continuing a stored task, else "open". */
  readonly mode: UpdaterMode;
  /** Whether the run heard its task end elsewhere (a cancel): a task the store no longer holds was dropped then. */
  readonly heardEnd?: (() => boolean) | undefined;
  readonly newId: () => string;
  /** The owner a task this call creates records (access.ts); the updater's own changes name no owner. */
  readonly owner: string;
  readonly origin: Origin;
  /** Called once the task is created, before anything else is published (a SendMessage push config). */
  readonly onCreated: () => Promise<void>;
  /** Told the first outcome. */
  readonly onFirst: (outcome: FirstOutcome) => void;
  /** The continued task as the call's own commit left it: the first change starts there, not from a read. */
  readonly lastWrite?: StoredTask | undefined;
  /** A blocking send answers from the updater's last commit (LastWrite.answers). */
  readonly answersFromLastWrite?: boolean | undefined;
  /** Told each call that fails, awaited or not (see the header). */
  readonly onCallFailed?: ((error: unknown) => void) | undefined;
}

export interface RunUpdater extends TaskUpdater {
  mode(): UpdaterMode;
  /**
   * Whether the last change that held (committed, or declined on a fresh read) found or left the task terminal or
   * interrupted (its streams end by themselves); a change whose commit failed leaves it as it was.
   */
  ended(): boolean;
  /** What this updater committed last and the version it made, when the store let it keep a copy (task-writer.ts). */
  lastWrite(): StoredTask | undefined;
  /** The version of the updater's last commit, if it made one (kept whether or not lastWrite() is). */
  lastVersion(): number | undefined;
  /** Resolves once every call made so far has settled (an executor may return before its calls do). */
  idle(): Promise<void>;
  /** Refuses every call from now on (see the header). */
  close(): void;
}

function mergeArtifact(task: Task, artifact: Artifact, append: boolean): Task {
  const at = task.artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  const artifacts = [...task.artifacts];
  if (at < 0) artifacts.push(artifact);
  else if (append) artifacts[at] = { ...artifacts[at]!, parts: [...artifacts[at]!.parts, ...artifact.parts] };
  else artifacts[at] = artifact;
  return { ...task, artifacts };
}

function artifactEvent(task: Task, artifact: Artifact, options: ArtifactOptions): StreamResponse {
  return {
    $typeName: "lf.a2a.v1.StreamResponse",
    payload: {
      case: "artifactUpdate",
      value: {
        $typeName: "lf.a2a.v1.TaskArtifactUpdateEvent",
        taskId: task.id,
        contextId: task.contextId,
        artifact,
        append: options.append ?? false,
        lastChunk: options.lastChunk ?? false,
        metadata: options.metadata,
      },
    },
  };
}

/** The task a first update creates: submitted, the user's message its history. */
const submittedTask = (setup: UpdaterSetup): Task =>
  withStatus(
    {
      $typeName: "lf.a2a.v1.Task",
      id: setup.place.taskId,
      contextId: setup.place.contextId,
      artifacts: [],
      history: [setup.userMessage],
    },
    TaskState.SUBMITTED,
  );

/** The most calls one commit takes (see the header): bounds a statement's size and a group's wait. */
export const MAX_GROUP_CALLS = 100;

/** One updater call waiting for its commit. */
interface Step {
  /** What the call publishes, for its errors: "status", "artifact" or "reply". */
  readonly what: string;
  /** The call's change to the task. */
  readonly apply: (task: Task) => TaskChange;
  /** A reply's own answer when nothing was published before it: the call's whole answer, no task made. */
  readonly answer?: (() => void) | undefined;
  /** A status that ends or interrupts the task: the last call of its commit (see the header). */
  readonly cuts: boolean;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const isTerminal = (task: Task) => TERMINAL_STATES.has(task.status?.state ?? TaskState.UNSPECIFIED);

/**
 * The steps' changes one after the other from `task` (see the header; a status that ends the task is the last step
 * given, so nothing follows a terminal state): one whose change throws is left out and its error kept in
 * `failures` (cleared first: a compare-and-set retry computes everything again).
 */
function applySteps(steps: readonly Step[], task: Task, failures: Map<Step, unknown>): TaskChange {
  failures.clear();
  let current = task;
  const events: StreamResponse[] = [];
  for (const step of steps) {
    try {
      const made = step.apply(current);
      current = made.task;
      events.push(...made.events);
    } catch (error) {
      failures.set(step, error);
    }
  }
  return { task: current, events };
}

/**
 * The calls waiting, handed to `run` in groups: all those made before the previous group settled, or in the same
 * synchronous stretch of code as the first. `run` settles every step it is given.
 */
function stepQueue(run: (group: Step[]) => Promise<void>, onFailed: (error: unknown) => void) {
  const waiting: Step[] = [];
  let running: Promise<void> | undefined;
  const drain = async () => {
    // One microtask first: the calls made in the same synchronous stretch join the first group.
    await undefined;
    while (waiting.length > 0) {
      const group = waiting.splice(0, MAX_GROUP_CALLS);
      // `run` settles its steps; should it throw, they fail with that, and the queue goes on.
      await run(group).catch((error: unknown) => {
        for (const step of group) step.reject(error);
      });
    }
    running = undefined;
  };
  return {
    push(step: Omit<Step, "resolve" | "reject">): Promise<void> {
      const call = new Promise<void>((resolve, reject) => {
        const { what, apply, answer, cuts } = step;
        waiting.push({ what, apply, answer, cuts, resolve, reject });
        running ??= drain();
      });
      // Handled here too, so a call nobody awaits is no unhandled rejection; an awaiting caller still gets it.
      call.catch(onFailed);
      return call;
    },
    idle: (): Promise<void> => running ?? Promise.resolve(),
  };
}

/** `newId`, called at most once: the same id however often it is asked. */
function onceId(newId: () => string): () => string {
  let id: string | undefined;
  return () => (id ??= newId());
}

/** The updater's writes (see the header): each group of calls in one commit, and what the commits left. */
class UpdaterWrites {
  mode: UpdaterMode;
  /** Whether the last commit that held (or declined on a fresh read) left the task terminal or interrupted. */
  ended = false;
  /** What this updater committed last: its next change starts there (task-writer.ts). */
  readonly last: LastWrite;
  /** The steps of the group being committed whose own change threw, with what it threw. */
  private readonly failures = new Map<Step, unknown>();

  constructor(private readonly setup: UpdaterSetup) {
    this.mode = setup.mode;
    this.last = { stored: setup.lastWrite, answers: setup.answersFromLastWrite };
  }

  /**
   * Settles a group: a reply before anything was published answers alone; the rest are commits, each ending at a
   * status that cuts (see the header).
   */
  async run(group: readonly Step[]): Promise<void> {
    let at = 0;
    while (at < group.length) {
      const step = group[at]!;
      if (this.mode === "message") {
        const after = step.answer ? "already" : `; the ${step.what} cannot follow it`;
        step.reject(new Error(`task ${this.setup.place.taskId}: the call was answered with a message${after}`));
        at++;
      } else if (this.mode === "open" && step.answer) {
        try {
          step.answer();
          step.resolve();
        } catch (error) {
          step.reject(error);
        }
        at++;
      } else {
        // This step makes or changes the task, so a reply after it in the commit joins the history.
        const cut = group.findIndex((s, i) => i >= at && s.cuts);
        const end = cut < 0 ? group.length : cut + 1;
        at += await this.commit(group.slice(at, end));
      }
    }
  }

  /**
   * One commit for `steps`, or for the first of them (see create); each settles with it, or with the failure of
   * its own change. How many steps it settled.
   */
  private async commit(steps: readonly Step[]): Promise<number> {
    let taken = steps;
    try {
      if (this.mode === "task") await this.change(steps);
      else taken = await this.create(steps);
    } catch (error) {
      this.failures.clear();
      for (const step of steps) step.reject(error);
      return steps.length;
    }
    for (const step of taken) {
      if (this.failures.has(step)) step.reject(this.failures.get(step));
      else step.resolve();
    }
    this.failures.clear();
    return taken.length;
  }

  /**
   * Creates the task with the steps' changes folded in: one commit, the submitted Task event, then theirs. When
   * every step before a reply failed, nothing is made and only those steps are taken: the reply then answers
   * alone, as after those calls made one by one. The steps it took.
   */
  private async create(steps: readonly Step[]): Promise<readonly Step[]> {
    const { setup } = this;
    const submitted = submittedTask(setup);
    const made = applySteps(steps, submitted, this.failures);
    const reply = steps.findIndex((s) => s.answer !== undefined);
    if (reply > 0 && steps.slice(0, reply).every((s) => this.failures.has(s))) return steps.slice(0, reply);
    if (made.events.length === 0) return steps;
    const created = async () => {
      // The task exists from here on, even if what must precede its first push fails.
      this.mode = "task";
      await setup.onCreated();
    };
    const events = [taskEvent(submitted), ...made.events];
    await setup.writer.create(setup.tenant, { task: made.task, events, startTurn: setup.turn }, setup.origin, {
      beforeDelivery: created,
      last: this.last,
      owner: setup.owner,
    });
    this.ended = endsStreams(made.task.status?.state);
    setup.onFirst({ kind: "task" });
    return steps;
  }

  private async change(steps: readonly Step[]): Promise<void> {
    const { setup, failures } = this;
    let ends = false;
    const apply = (stored: StoredTask) => {
      // Called again on each compare-and-set retry: the last call is what was committed or declined.
      const ours = !isTerminal(stored.task) && (stored.turn === undefined || stored.turn === setup.turn);
      const made = ours ? applySteps(steps, stored.task, failures) : undefined;
      if (!ours) failures.clear();
      const kept = made && made.events.length > 0 ? made : undefined;
      ends = endsStreams((kept ?? stored).task.status?.state);
      return kept;
    };
    try {
      await setup.writer.change(setup.tenant, setup.place.taskId, apply, setup.origin, { last: this.last });
    } catch (error) {
      // Gone after it ended (its own terminal or interrupted commit, or a cancel heard: a store drops no other), the
      // calls are dropped as for any ended task; gone before, the loss is a failure the calls report.
      if (!isTaskGone(error) || !(this.ended || setup.heardEnd?.() === true)) throw error;
      failures.clear();
      this.ended = true;
      return;
    }
    // Only once the commit held (or was declined on a fresh read): a failed one ends no stream.
    this.ended = ends;
  }
}

export function createUpdater(setup: UpdaterSetup): RunUpdater {
  const { place } = setup;
  const writes = new UpdaterWrites(setup);
  const onFailed = (error: unknown) => setup.onCallFailed?.(error);
  const steps = stepQueue((group) => writes.run(group), onFailed);
  let closed = false;
  const queue = {
    push(step: Parameters<typeof steps.push>[0]): Promise<void> {
      if (!closed) return steps.push(step);
      const said = `task ${place.taskId}: the executor's call has ended; the ${step.what} was not published`;
      const refused = Promise.reject(new Error(said));
      refused.catch(onFailed);
      return refused;
    },
  };
  return {
    mode: () => writes.mode,
    ended: () => writes.ended,
    lastWrite: () => writes.last.stored,
    lastVersion: () => writes.last.version,
    idle: steps.idle,
    close: () => {
      closed = true;
    },
    status: (state, message, metadata?: JsonObject) => {
      // One id for the status message, on every compare-and-set retry.
      const newId = onceId(setup.newId);
      const apply = (t: Task) => {
        const task = withStatus(t, state, message === undefined ? undefined : agentMessage(message, place, newId));
        return { task, events: [statusEvent(task, metadata)] };
      };
      return queue.push({ what: "status", apply, cuts: endsStreams(state) });
    },
    artifact: (artifact, options = {}) => {
      const apply = (t: Task) => ({
        task: mergeArtifact(t, artifact, options.append ?? false),
        events: [artifactEvent(t, artifact, options)],
      });
      return queue.push({ what: "artifact", apply, cuts: false });
    },
    reply: (message) => {
      // One id for the message, whichever way it goes.
      const newId = onceId(setup.newId);
      const answer = () => {
        const m = agentMessage(message, { ...place, taskId: "" }, newId);
        writes.mode = "message";
        setup.onFirst({ kind: "message", message: m });
      };
      const apply = (t: Task) => {
        const m = agentMessage(message, place, newId);
        return { task: { ...t, history: [...t.history, m] }, events: [messageEvent(m)] };
      };
      return queue.push({ what: "reply", apply, answer, cuts: false });
    },
  };
}
