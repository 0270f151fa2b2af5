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
import type { LastWrite, Origin, TaskChange, TaskWriter } from "./task-writer.js";

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

/** A change that is dropped when the task is in a terminal state or another turn than `turn` runs on it. */
const unlessDone =
  (turn: string, apply: (task: Task) => TaskChange) =>
  (stored: StoredTask): TaskChange | undefined =>
    TERMINAL_STATES.has(stored.task.status?.state ?? TaskState.UNSPECIFIED) ||
    (stored.turn !== undefined && stored.turn !== turn)
      ? undefined
      : apply(stored.task);

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

/** Runs each operation given to it after the previous one has settled, in the order given. */
function serialQueue(): <T>(op: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (op) => {
    const run = queue.then(op);
    queue = run.catch(() => undefined);
    return run;
  };
}

export function createUpdater(setup: UpdaterSetup): RunUpdater {
  let mode = setup.mode;
  const { writer, tenant, place } = setup;
  const inOrder = serialQueue();
  // What this updater committed last: its next change starts there (task-writer.ts).
  const last: LastWrite = { stored: setup.lastWrite };
  let ended = false;
  /** Creates the task with the first change folded in: one commit, the submitted Task event, then the change's. */
  const create = async (what: string, apply: (task: Task) => TaskChange) => {
    if (mode === "message") {
      throw new Error(`task ${place.taskId}: the call was answered with a message; the ${what} cannot follow it`);
    }
    const submitted = submittedTask(setup);
    const first = apply(submitted);
    const created = async () => {
      // The task exists from here on, even if what must precede its first push fails.
      mode = "task";
      await setup.onCreated();
    };
    const events = [taskEvent(submitted), ...first.events];
    await writer.create(tenant, { task: first.task, events, startTurn: setup.turn }, setup.origin, {
      beforeDelivery: created,
      last,
      owner: setup.owner,
    });
    ended = endsStreams(first.task.status?.state);
    setup.onFirst({ kind: "task" });
  };
  const change = async (what: string, apply: (task: Task) => TaskChange) => {
    if (mode !== "task") return create(what, apply);
    let ends = false;
    await writer.change(
      tenant,
      place.taskId,
      (stored) => {
        // Called again on each compare-and-set retry: the last call is what was committed or declined.
        const made = unlessDone(setup.turn, apply)(stored);
        ends = endsStreams((made ?? stored).task.status?.state);
        return made;
      },
      setup.origin,
      { last },
    );
    // Only once the commit held (or was declined on a fresh read): a failed one ends no stream.
    ended = ends;
  };
  return {
    mode: () => mode,
    ended: () => ended,
    lastWrite: () => last.stored,
    status: (state, message, metadata?: JsonObject) =>
      inOrder(async () => {
        const m = message === undefined ? undefined : agentMessage(message, place, setup.newId);
        await change("status", (t) => {
          const task = withStatus(t, state, m);
          return { task, events: [statusEvent(task, metadata)] };
        });
      }),
    artifact: (artifact, options = {}) =>
      inOrder(async () => {
        await change("artifact", (t) => ({
          task: mergeArtifact(t, artifact, options.append ?? false),
          events: [artifactEvent(t, artifact, options)],
        }));
      }),
    reply: (message) =>
      inOrder(async () => {
        const m = agentMessage(message, mode === "open" ? { ...place, taskId: "" } : place, setup.newId);
        if (mode === "open") {
          mode = "message";
          setup.onFirst({ kind: "message", message: m });
          return;
        }
        if (mode === "message") throw new Error(`task ${place.taskId}: the call was answered with a message already`);
        await change("reply", (t) => ({ task: { ...t, history: [...t.history, m] }, events: [messageEvent(m)] }));
      }),
  };
}
