/**
 * Every write to a task goes through here: compare-and-set on the store's
 * version, in a bounded loop.
 *
 *   change    read the task, compute the new task and its events from what
 *             was read, commit naming the version read; when another writer
 *             got there first, read again and recompute (at most
 *             MAX_COMMIT_ATTEMPTS times, then fail naming the task). The
 *             change may decline (undefined: nothing to write) or throw (an
 *             A2AError refusing the call), deciding on the fresh read each time.
 *             With a store that has `update` (memory), the change runs once,
 *             inside it, on the stored task itself: changes never modify what
 *             they are given (task-shapes.ts), and the task a change returns
 *             may share the store's objects, so Committed.task is read-only
 *             and leaves the runtime only as a copy (committedCopy). Without
 *             `update`, a writer that passes a LastWrite (an updater) starts
 *             its next change from a copy of what it committed last, not from
 *             a read: one round trip less per event when nobody else wrote.
 *             With `update`, a LastWrite a blocking send answers from
 *             (`answers`) gets a copy of each commit that ends or interrupts
 *             the task, and of nothing else: the answer is that commit even
 *             when the store has dropped the task since (a short TTL)
 *   create    a new task at version 1 (expected version 0); what must hold before
 *             its first events are pushed (a push config the same call
 *             registers) runs between the commit and the delivery
 *   after     each commit that holds and carries events is handed to
 *             `afterCommit` (push delivery), which must not block
 *   turns     a change (or a create) may start a turn (TaskChange.startTurn,
 *             turns.ts); a commit refused because a turn runs is retried as a
 *             stale one, and the change, reading the turn, refuses the call
 *   traces    a change starting a turn for a traced call records the call's
 *             traceparent with it (TaskCommit.turnTrace, call-trace.ts)
 *   owners    a create records the owner it is given (access.ts); a change
 *             made for a caller names the owner the caller sees, so another
 *             owner's task is TaskNotFoundError as a missing one; the
 *             runtime's own changes (the updater, a failed run) name none
 */
import { A2AError } from "../core/a2a-error.js";
import { callTraceparent } from "../core/call-trace.js";
import type { HandlerContext } from "../core/definition.js";
import type { StreamResponse, Task } from "./a2a-types.js";
import { deepCopy } from "./copy.js";
import type { StoredTask, TaskChange, TaskStore } from "./store.js";
import type { TurnTrace } from "./telemetry.js";
import { endsStreams } from "./task-watch.js";
import { turnAfter } from "./turns.js";
import { withNames } from "../core/records.js";

export type { TaskChange } from "./store.js";

/** How many times a change is recomputed when other writers keep getting there first. */
export const MAX_COMMIT_ATTEMPTS = 32;

export interface Committed {
  /** The task as committed: read-only, it may share objects with the store (see the header). */
  readonly task: Task;
  readonly version: number;
}

/** The committed task as it may leave the runtime: a copy (to a caller, an executor). */
export function committedCopy(committed: Committed): Task {
  return deepCopy(committed.task);
}

/** The call a write comes from: where its push failures are reported, and the turn that made it, if traced. */
export interface Origin {
  readonly operation: string;
  readonly context: HandlerContext;
  readonly turn?: TurnTrace | undefined;
}

export type AfterCommit = (tenant: string, task: Task, events: readonly StreamResponse[], origin: Origin) => void;

export interface CreateOptions {
  /** Runs after the commit, before the task's first events are pushed. */
  readonly beforeDelivery?: () => Promise<void>;
  readonly last?: LastWrite;
  /** The owner the task records (access.ts); default "". */
  readonly owner?: string;
}

export interface ChangeOptions {
  readonly last?: LastWrite;
  /** The owner the caller sees (access.ts): another owner's task is TaskNotFoundError; undefined: any. */
  readonly owner?: string | undefined;
}

export interface TaskWriter {
  readonly store: TaskStore;
  /** Creates the task (fails if a task with its id exists). */
  create(tenant: string, change: TaskChange, origin: Origin, options?: CreateOptions): Promise<Committed>;
  /**
   * Applies `change` to the stored task (TaskNotFoundError when there is none); undefined when the change
   * declined on the latest read.
   */
  change(
    tenant: string,
    taskId: string,
    change: (stored: StoredTask) => TaskChange | undefined,
    origin: Origin,
    options?: ChangeOptions,
  ): Promise<Committed | undefined>;
}

/**
 * What one writer (an executor's updater) committed last, kept by the writer between its changes: with a
 * compare-and-set store, the next change starts from it instead of reading the task again. The copy is the
 * writer's own (never what the executor handed over). A stale one only costs a failed commit and a read.
 */
export interface LastWrite {
  stored?: StoredTask | undefined;
  /** The version this writer committed last, kept whether or not `stored` is (what tells its commits apart). */
  version?: number | undefined;
  /** A blocking send answers from it: with a store that has `update`, commits that end the wait are kept too. */
  readonly answers?: boolean | undefined;
}

/**
 * What a writer remembers of its commit: its copy of the task, made as the commit was (before it is awaited, so
 * what the executor does to its objects afterwards is not in it), the version and the turn running after it.
 */
function written(turnBefore: string | undefined, c: TaskChange, version: number, copy: Task): StoredTask {
  return { task: copy, version, turn: turnAfter(turnBefore, c.task.status?.state, c.startTurn) };
}

/** Whether a writer to a store with `update` keeps this commit: one that ends a blocking send's wait (header). */
const keptForAnswer = (last: LastWrite, c: TaskChange) => last.answers === true && endsStreams(c.task.status?.state);

/** Whether `error` is the TaskNotFoundError a change throws for a task the store does not hold (any more). */
export function isTaskGone(error: unknown): boolean {
  return error instanceof A2AError && error.type === "TaskNotFoundError";
}

/** The change with the traceparent of the call it comes from, when it starts a turn and the call is traced. */
function withTurnTrace(c: TaskChange, origin: Origin): TaskChange {
  if (c.startTurn === undefined) return c;
  const turnTrace = callTraceparent(origin.context.values);
  return turnTrace === undefined ? c : withNames(c, { turnTrace });
}

export function createTaskWriter(store: TaskStore, afterCommit: AfterCommit): TaskWriter {
  const published = (tenant: string, c: TaskChange, origin: Origin) => {
    if (c.events.length > 0) afterCommit(tenant, c.task, c.events, origin);
  };
  return {
    store,
    async create(tenant, c, origin, options = {}) {
      const { last, owner = "" } = options;
      const copy = last && (!store.update || keptForAnswer(last, c)) ? deepCopy(c.task) : undefined;
      const version = await store.commit(tenant, withNames(withTurnTrace(c, origin), { expectedVersion: 0, owner }));
      if (version === undefined) throw new Error(`Task ${c.task.id} (tenant "${tenant}") exists already`);
      if (last) {
        last.stored = copy && written(undefined, c, version, copy);
        last.version = version;
      }
      await options.beforeDelivery?.();
      published(tenant, c, origin);
      return { task: c.task, version };
    },
    async change(tenant, taskId, change, origin, options = {}) {
      const { last, owner } = options;
      if (store.update) {
        let made: TaskChange | undefined;
        let turnBefore: string | undefined;
        let copy: Task | undefined;
        const result = await store.update(
          tenant,
          taskId,
          (stored) => {
            turnBefore = stored.turn;
            const c = change(stored);
            made = c && withTurnTrace(c, origin);
            copy = last && made && keptForAnswer(last, made) ? deepCopy(made.task) : undefined;
            return made;
          },
          owner,
        );
        if (result === undefined) throw new A2AError("TaskNotFoundError", `Task ${taskId} not found`);
        if (result === "declined" || !made) return undefined;
        // Only what this writer committed: not the read a continued send started from.
        if (last) {
          last.stored = copy && written(turnBefore, made, result, copy);
          last.version = result;
        }
        published(tenant, made, origin);
        return { task: made.task, version: result };
      }
      for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
        const remembered = last?.stored;
        if (last) last.stored = undefined;
        const stored = remembered ?? (await store.get(tenant, taskId, owner));
        if (!stored) throw new A2AError("TaskNotFoundError", `Task ${taskId} not found`);
        const c = change(stored);
        // A change declined on what this writer remembers is decided again on a fresh read.
        if (!c && remembered) continue;
        if (!c) return undefined;
        const next = withNames(withTurnTrace(c, origin), { expectedVersion: stored.version });
        const copy = last ? deepCopy(c.task) : undefined;
        const version = await store.commit(tenant, next);
        if (version !== undefined) {
          if (last) {
            last.stored = copy && written(stored.turn, c, version, copy);
            last.version = version;
          }
          published(tenant, c, origin);
          return { task: c.task, version };
        }
      }
      throw new Error(`Task ${taskId}: ${MAX_COMMIT_ATTEMPTS} commits in a row lost to concurrent writers`);
    },
  };
}
