/**
 * Where tasks live: the TaskStore contract between createTaskHandler and its
 * backends (memory-store.ts; postgres/ for several instances on one database).
 *
 *   tasks        read by (tenant, id); written by compare-and-set on a version
 *                number (commit), so concurrent writers never lose an update:
 *                a writer whose expected version is stale gets `undefined` and
 *                re-reads. A store that can read and write a task in one step
 *                (the memory store) may offer `update` as well: the change runs
 *                on the stored task itself, no copy, no retry
 *   events       each commit carries the StreamResponse events it caused; the
 *                store hands them, with the task version they produced, to every
 *                subscriber of that task, on any instance sharing the store
 *   dropping     a store may drop a task (a TTL, room for others) only once
 *                it is terminal, or interrupted (input-required,
 *                auth-required: its turn has ended) past a TTL: a run whose
 *                task is missing after it heard the task end or be
 *                interrupted takes it as dropped, and before, as a fault
 *   listing      filtered and paged by the store (an index or SQL, never a full
 *                sort per call), newest status first, with opaque page tokens
 *   push configs kept per (tenant, task, id), with the protocol version of the
 *                call that created them, so delivery speaks that version; at
 *                most maxPushConfigsPerTask (default 100) per task
 *   turns        at most one turn (an executor call working on a message) runs
 *                per task (turns.ts): a commit naming `startTurn` holds only
 *                when none runs (else undefined, as for a stale version, and
 *                the writer's re-read shows `StoredTask.turn`); a commit that
 *                leaves the task terminal or interrupted ends the running turn
 *                in the same step; `endTurn` ends it when its call returns.
 *                A store shared by instances leases each turn to the instance
 *                running it and fails the task when the lease runs out
 *                (postgres/leases.ts); the memory store's turns die with it
 *   keys         a tenant, task id, context id, artifact id, push config id
 *                or owner holding a NUL character (U+0000) is refused with
 *                InvalidParamsError naming the field (store-keys.ts), by every
 *                store alike, since PostgreSQL text cannot hold one
 *   owners       a task records its owner when it is created (TaskCommit.owner,
 *                "" by default: the owner of every task of a server that
 *                authenticates nothing), and keeps it; its push configs
 *                belong to the same owner. Each method that addresses tasks on
 *                behalf of a caller takes the owner the caller may see
 *                (access.ts; undefined: every owner, as the runtime's own
 *                paths, the updater, turns, leases, push delivery, read), and
 *                the store applies it in the read itself: a task of another
 *                owner is absent, at the cost of a missing one (no second
 *                query). Tasks stored before owners existed have owner "",
 *                visible to servers without authentication and to policies
 *                that see all
 *
 * Every key is scoped by tenant ("" when the call had none).
 */
import type { StreamResponse, Task, TaskPushNotificationConfig, TaskState } from "./a2a-types.js";

/**
 * How long both stores keep a terminal task after its last commit by default: seven days (the memory store's and
 * the PostgreSQL store's terminalTtlMs; Infinity keeps terminal tasks).
 */
export const DEFAULT_TERMINAL_TTL_MS = 604_800_000;

/**
 * How long both stores keep an input-required or auth-required task nobody answered after its last commit by
 * default: seven days (the memory store's and the PostgreSQL store's interruptedTtlMs; Infinity keeps them).
 */
export const DEFAULT_INTERRUPTED_TTL_MS = 604_800_000;

/** A task as stored, with the version its next commit must name. */
export interface StoredTask {
  readonly task: Task;
  /** 1 after creation, one more after each commit. */
  readonly version: number;
  /** The turn running on the task (see the header), if any. */
  readonly turn?: string | undefined;
  /**
   * The W3C traceparent of the call that started the task's last turn, when that call was traced
   * (call-trace.ts): calls that reach the task on any instance link their spans to it.
   */
  readonly turnTrace?: string | undefined;
}

/** One event of a task, with the task version after it. */
export interface TaskEvent {
  readonly tenant: string;
  readonly taskId: string;
  readonly version: number;
  readonly event: StreamResponse;
}

export interface TaskCommit {
  /** The whole task after the change. */
  readonly task: Task;
  /** The version read before the change; 0 to create the task (a task with that id must not exist). */
  readonly expectedVersion: number;
  /** The events the change caused, in order; published to subscribers once the commit holds. */
  readonly events: readonly StreamResponse[];
  /** Starts this turn with the commit, which then holds only if no turn is running (see the header). */
  readonly startTurn?: string | undefined;
  /** With startTurn: the traceparent of the call starting it, kept as StoredTask.turnTrace. Ignored otherwise. */
  readonly turnTrace?: string | undefined;
  /** The owner the task records when the commit creates it (expectedVersion 0); default "". Ignored otherwise. */
  readonly owner?: string | undefined;
}

/** A task after a change and the events the change caused (what `update`'s change returns). */
export interface TaskChange {
  readonly task: Task;
  readonly events: readonly StreamResponse[];
  /** As TaskCommit.startTurn. */
  readonly startTurn?: string | undefined;
  /** As TaskCommit.turnTrace. */
  readonly turnTrace?: string | undefined;
}

/** What `update` did: the new version; "declined" when the change returned undefined; undefined: no such task. */
export type TaskUpdateResult = number | "declined" | undefined;

export interface TaskQuery {
  /** Only tasks of this context ("" : any). */
  readonly contextId: string;
  /** Only tasks in this state (0, TaskState.UNSPECIFIED: any). */
  readonly status: TaskState;
  /**
   * Only tasks whose status timestamp is at or after this instant, in milliseconds since the epoch (fractions
   * count to the microsecond, the precision stores keep): a2a.proto ListTasksRequest.status_timestamp_after,
   * "a status timestamp time greater than or equal to this value".
   */
  readonly statusAfterMs: number | undefined;
  /** Tasks per page, 1 to 100 (checked by the handler). */
  readonly pageSize: number;
  /** "" for the first page, else a nextPageToken this store returned; another value is InvalidParamsError. */
  readonly pageToken: string;
  /** Only tasks of this owner; undefined: every owner (see the header). Counts in totalSize and page tokens too. */
  readonly owner?: string | undefined;
  /**
   * Optional hint: what of each task the caller keeps (ListTasks' historyLength and includeArtifacts). A store
   * may leave the rest out of the tasks it returns, and out of maxBytes.
   */
  readonly view?: TaskView | undefined;
  /**
   * Optional hint: end the page before the task that would take it past this many bytes (the store's estimate
   * of each task, or of its view), the first task always included, with a nextPageToken for the rest. The
   * handler bounds what it answers by itself either way (createTaskHandler maxListBytes); a store that honors
   * the hint saves reading or copying tasks the handler would drop.
   */
  readonly maxBytes?: number | undefined;
}

/** What of a task a listing keeps: its last `historyLength` messages (undefined: all) and, or not, its artifacts. */
export interface TaskView {
  readonly historyLength: number | undefined;
  readonly includeArtifacts: boolean;
}

export interface TaskPage {
  /** Newest status timestamp first; ties by task id. Whole tasks: the handler trims history and artifacts. */
  readonly tasks: readonly Task[];
  /** "" on the last page. */
  readonly nextPageToken: string;
  /** How many tasks match the filters, over all pages. */
  readonly totalSize: number;
}

export interface StoredPushConfig {
  readonly config: TaskPushNotificationConfig;
  /** The protocol version of the call that created it, e.g. "1.0" or "0.3"; delivery uses that version's payload. */
  readonly protocolVersion: string;
  /**
   * The owner of its task (access.ts), as a store reads it: the push sender bounds what one owner's deliveries
   * hold by it, and shares its turns fairly by it (push-shares.ts). A store ignores it in what it is given to put.
   * One that leaves it out of what it reads makes every delivery the owner "" (nobody authenticated), which that
   * bound leaves alone, and whose deliveries then take their turns first come, first served.
   */
  readonly owner?: string | undefined;
}

export interface PushConfigPage {
  readonly configs: readonly StoredPushConfig[];
  readonly nextPageToken: string;
}

export interface TaskStore {
  /** What the store keeps tasks in, as telemetry names it: "memory", "postgresql"; default "custom". */
  readonly system?: string;
  /** The task, or undefined when there is none, or (with `owner`) when it belongs to another owner. */
  get(tenant: string, taskId: string, owner?: string): Promise<StoredTask | undefined>;
  /**
   * Writes `commit.task` if the stored version still is `commit.expectedVersion`, then publishes its events;
   * returns the new version, or undefined when another writer got there first (nothing is written).
   */
  commit(tenant: string, commit: TaskCommit): Promise<number | undefined>;
  list(tenant: string, query: TaskQuery): Promise<TaskPage>;
  /**
   * Optional: commits `change(stored)` with no other commit between the read and the write. `change` gets the
   * task the store keeps, not a copy: it must not modify it, and the task it returns may reuse its parts (the
   * store copies only what is new, copy.ts copyReusing). The task `change` returns may so share objects with the
   * store: its maker must not modify it afterwards and hands out only copies of it. `change` may throw (nothing
   * is written). With `owner`, a task of another owner is undefined (no such task), as for get.
   */
  update?(
    tenant: string,
    taskId: string,
    change: (stored: StoredTask) => TaskChange | undefined,
    owner?: string,
  ): Promise<TaskUpdateResult>;

  /**
   * Calls `listener` with each event of the task committed from now on (by any instance sharing the store),
   * in version order. Resolves once listening; the returned function stops it. `from`, when given, is the
   * version the caller knows the task is at (0: a task it is about to create): a store may start there
   * instead of reading the task's version. A caller that does not know the task reads it after listening and
   * skips the versions up to the one it read: a store may so hand a task's first version only to the
   * subscribers of the instance that created it (PostgreSQL does).
   */
  subscribe(
    tenant: string,
    taskId: string,
    listener: (event: TaskEvent) => void,
    from?: number,
  ): Promise<() => Promise<void>>;

  /** Ends the turn if it is still the one running on the task; else nothing (see the header). */
  endTurn(tenant: string, taskId: string, turn: string): Promise<void>;

  /**
   * Creates or replaces the config with the same (task, id), owned by the task's owner: TaskNotFoundError for a
   * task the store does not hold (or, with `owner`, of another owner), InvalidParamsError for a new id past the
   * store's maxPushConfigsPerTask (store-refusals.ts).
   */
  putPushConfig(tenant: string, stored: StoredPushConfig, owner?: string): Promise<void>;
  /** With `owner`, a config of another owner's task is undefined, as a missing one. */
  getPushConfig(tenant: string, taskId: string, id: string, owner?: string): Promise<StoredPushConfig | undefined>;
  /** pageSize 0: all. With `owner`, another owner's task has no configs. */
  listPushConfigs(
    tenant: string,
    taskId: string,
    pageSize: number,
    pageToken: string,
    owner?: string,
  ): Promise<PushConfigPage>;
  /** Returns whether there was such a config (with `owner`: of a task of that owner). */
  deletePushConfig(tenant: string, taskId: string, id: string, owner?: string): Promise<boolean>;

  /** Releases connections and timers. */
  close(): Promise<void>;
}
