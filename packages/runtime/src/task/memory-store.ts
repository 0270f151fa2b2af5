/**
 * A TaskStore kept in this process's memory, for one instance (tests, a
 * single server); instances that share tasks use the PostgreSQL store.
 *
 *   tasks        a Map by (tenant, id) of a private copy and its version;
 *                commit compares the version (compare-and-set) and stores a
 *                copy, reads return copies (copy.ts). update runs the change
 *                on the kept task and stores a copy of what changed only
 *                (copyReusing): a task's stored versions share their unchanged
 *                parts, which is sound since no kept object is ever modified
 *                or handed out
 *   events       handed synchronously, in commit order, to the task's
 *                listeners once the commit holds (memory-listeners.ts)
 *   listing      per-tenant ordered index maintained on commit, one per owner
 *                (list-index.ts), keyset page tokens (page-token.ts)
 *   owners       each task keeps the owner its creating commit named ("" by
 *                default); a read, update, listing or push config call that
 *                names an owner finds another owner's task absent (store.ts)
 *   keys         holding a NUL character are refused, as PostgreSQL must
 *                (store-keys.ts)
 *   push configs per (tenant, task, id), at most maxPushConfigsPerTask per
 *                task (memory-push-configs.ts); putting one for a task the
 *                store does not hold is TaskNotFoundError
 *   turns        the running turn's id per task (turns.ts): set by a commit
 *                that starts one (which, while another runs, is refused as a
 *                stale version is), cleared by a commit leaving the task
 *                terminal or interrupted, or by endTurn. No lease: the
 *                process running the turns is the one holding the tasks
 *
 * Bounds (memory stays flat however many tasks come and go):
 *   maxTasks       (default 10,000, over all tenants) creating a task when the
 *                  store is full first drops the terminal task that ended
 *                  longest ago. When every stored task is still active, the
 *                  create is refused (A2AError InternalError, HTTP 503, naming
 *                  maxTasks): dropping an active task would pull it from under
 *                  its running executor and leave its subscribers waiting for
 *                  an end that never comes, while refusing is visible to the
 *                  client and resolves itself as tasks end.
 *   maxBytes       (default 256 MiB) the stored tasks' estimated bytes
 *                  (memory-size.ts: their messages, artifacts, status and
 *                  metadata, plus TASK_OVERHEAD each, and their push configs,
 *                  each counted to its task) stay within it: a write
 *                  that grows them past it drops terminal tasks, the one that
 *                  ended longest ago first, or, when dropping all of them
 *                  would not make room, drops none and is refused (A2AError
 *                  InternalError, HTTP 503, naming maxBytes, the tenant and
 *                  the task): a new send, a commit growing a task, or a
 *                  push config created or grown
 *   maxTenantShare (default 0.5) a tenant's active tasks may hold at most this
 *                  share of maxBytes and of maxTasks; past it, growing one of
 *                  them or creating one more is refused the same way (naming
 *                  maxTenantShare), so one tenant whose tasks never end cannot
 *                  lock the others out: terminal tasks of any tenant are
 *                  dropped to make room. A commit that ends a task and grows
 *                  it by at most 4 KiB (a FAILED status) is never refused
 *                  (memory-budget.ts). A server with one tenant so holds at
 *                  most maxTasks * maxTenantShare active tasks (set it to 1
 *                  for such a server)
 *   maxOwnerShare  (default 0.5) one owner's active tasks within a tenant (the
 *                  tasks of one authenticated caller, access.ts) may hold at
 *                  most this share of the tenant's share: one caller cannot
 *                  lock out the other callers of its tenant. Owner "" (the
 *                  callers nobody authenticated) is bounded by the tenant's
 *                  share alone
 *   terminalTtlMs  (default seven days, DEFAULT_TERMINAL_TTL_MS; Infinity:
 *                  none) a terminal task is dropped this long after
 *                  its last commit. Expired tasks are swept on each call (so
 *                  they are never read), and by an unref'd timer while idle.
 *   interruptedTtlMs (default seven days, DEFAULT_INTERRUPTED_TTL_MS;
 *                  Infinity: none) an input-required or auth-required task
 *                  is dropped this long after its last commit, swept the same
 *                  way: such a task is active, counts against its tenant's and
 *                  owner's shares and is never dropped for room, so callers
 *                  who leave their prompts unanswered would otherwise fill
 *                  their shares for good. One someone subscribes to is kept,
 *                  and its TTL starts again when its last subscriber leaves.
 *                  A task whose executor returned while it works (no turn
 *                  runs, TaskStore.endTurn) is kept: an executor may still
 *                  commit to it
 * A dropped task takes its push configs and its listeners with it.
 */
import { A2AError } from "../core/a2a-error.js";
import { FifoMap } from "../core/fifo-map.js";
import { withNames } from "../core/records.js";
import { INTERRUPTED_STATES, type Task, TERMINAL_STATES } from "./a2a-types.js";
import { copyReusing, deepCopy } from "./copy.js";
import { type IndexedTask, OwnerIndexes } from "./list-index.js";
import { type ListenerErrorHandler, logListenerError, type TaskListener, TaskListeners } from "./memory-listeners.js";
import { type Held, StoreBudget } from "./memory-budget.js";
import { PushConfigTable } from "./memory-push-configs.js";
import { heapSizeOf, type TaskSizes, taskSizes } from "./memory-size.js";
import { decodeTaskToken, encodeTaskToken, scopeOf } from "./page-token.js";
import { compareKeys } from "./sorted-keys.js";
import {
  DEFAULT_INTERRUPTED_TTL_MS,
  DEFAULT_TERMINAL_TTL_MS,
  type PushConfigPage,
  type StoredPushConfig,
  type StoredTask,
  type TaskChange,
  type TaskCommit,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
  type TaskView,
  type TaskUpdateResult,
} from "./store.js";
import { checkKeys, checkTaskKeys } from "./store-keys.js";
import { DEFAULT_MAX_PUSH_CONFIGS_PER_TASK, pushConfigTaskMissing } from "./store-refusals.js";
import { taskKey } from "./task-key.js";
import { taskView } from "./task-shapes.js";
import { turnAfter } from "./turns.js";

export interface MemoryTaskStoreOptions {
  /** The most tasks kept, over all tenants. Default 10_000. */
  readonly maxTasks?: number;
  /** The most bytes the stored tasks may hold, estimated, over all tenants. Default 256 MiB (DEFAULT_MAX_BYTES). */
  readonly maxBytes?: number;
  /** The share of maxBytes and of maxTasks one tenant's active tasks may hold, above 0 and at most 1. Default 0.5. */
  readonly maxTenantShare?: number;
  /**
   * The share of its tenant's share one owner's active tasks (a tenant's tasks made for one authenticated caller)
   * may hold, above 0 and at most 1. Default 0.5. Owner "" (unauthenticated callers) is bounded by the tenant's alone.
   */
  readonly maxOwnerShare?: number;
  /**
   * Drop a terminal task this many milliseconds after its last commit (0: at the next call; Infinity: keep it
   * until maxTasks or maxBytes needs room). Default DEFAULT_TERMINAL_TTL_MS, seven days.
   */
  readonly terminalTtlMs?: number;
  /**
   * Drop an input-required or auth-required task this many milliseconds after its last commit (0: at the next
   * call; Infinity: keep it). Default DEFAULT_INTERRUPTED_TTL_MS, seven days.
   */
  readonly interruptedTtlMs?: number;
  /** The most push configs one task may have. Default 100. */
  readonly maxPushConfigsPerTask?: number;
  /** The clock terminalTtlMs and interruptedTtlMs are measured on, in milliseconds. Default Date.now. */
  readonly now?: () => number;
  /** Told when a subscriber throws (the other subscribers still get the event). Default: written to stderr. */
  readonly onListenerError?: ListenerErrorHandler;
}

/** What a memory store holds right now (expired tasks already dropped). */
export interface MemoryTaskStoreStats {
  readonly tasks: number;
  /** The stored tasks' estimated bytes (see maxBytes). */
  readonly bytes: number;
  readonly terminalTasks: number;
  /** Input-required and auth-required tasks (see interruptedTtlMs). */
  readonly interruptedTasks: number;
  readonly pushConfigs: number;
  /** Tasks that have at least one subscriber. */
  readonly subscribedTasks: number;
}

export interface MemoryTaskStore extends TaskStore {
  stats(): MemoryTaskStoreStats;
}

export { DEFAULT_MAX_PUSH_CONFIGS_PER_TASK } from "./store-refusals.js";
export const DEFAULT_MAX_TASKS = 10_000;
/** 256 MiB. */
export const DEFAULT_MAX_BYTES = 268_435_456;
export const DEFAULT_MAX_TENANT_SHARE = 0.5;
export const DEFAULT_MAX_OWNER_SHARE = 0.5;
/** Bytes counted per stored task besides its own: the slot, map and index entries. */
export const TASK_OVERHEAD = 512;
const LIST = "ListTasks";

/**
 * The first slots whose estimated bytes (of their view, when given) stay within `maxBytes`, at least one; all of
 * them without a bound.
 */
function withinBytes(slots: readonly Slot[], view: TaskView | undefined, maxBytes: number | undefined) {
  if (maxBytes === undefined) return slots;
  let bytes = 0;
  const end = slots.findIndex((slot, i) => {
    bytes += view ? viewBytes(slot, view) : slot.sizes.bytes;
    return i > 0 && bytes > maxBytes;
  });
  return end < 0 ? slots : slots.slice(0, end);
}

/** A task's estimated bytes (memory-size.ts, as the handler estimates what it answers) as its view keeps it. */
function viewBytes(slot: Slot, view: TaskView): number {
  const { history, artifacts } = slot.sizes;
  const kept = view.historyLength === undefined ? history.length : Math.min(view.historyLength, history.length);
  let bytes = slot.sizes.bytes;
  for (let i = 0; i < history.length - kept; i++) bytes -= history[i]!;
  if (!view.includeArtifacts) for (const size of artifacts) bytes -= size;
  return bytes;
}

interface Slot {
  readonly tenant: string;
  /** Who the task belongs to (store.ts owners): set when it is created, never changed. */
  readonly owner: string;
  task: Task;
  version: number;
  indexed: IndexedTask;
  /** When the task last committed in a terminal or interrupted state (its TTL's start); undefined while it works. */
  idleSince: number | undefined;
  /** The turn running on the task (turns.ts). */
  turn: string | undefined;
  /** The traceparent of the call that started the last turn (store.ts StoredTask.turnTrace). */
  turnTrace: string | undefined;
  /** The task's estimated bytes (memory-size.ts), with TASK_OVERHEAD and configBytes. */
  bytes: number;
  /** The estimated bytes of the task's push configs. */
  configBytes: number;
  /** The estimate of the task as stored, whose element sizes the next version's estimate reuses. */
  sizes: TaskSizes;
}

/** The slot as the store's readers see it (the task itself, not a copy). */
function storedOf(slot: Slot): StoredTask {
  return { task: slot.task, version: slot.version, turn: slot.turn, turnTrace: slot.turnTrace };
}

/** What a stored task holds of the byte budget. */
function held(slot: Slot): Held {
  return { bytes: slot.bytes, active: !TERMINAL_STATES.has(slot.indexed.state) };
}

function indexedOf(task: Task): IndexedTask {
  const ts = task.status?.timestamp;
  const micros = ts ? Number(ts.seconds) * 1_000_000 + Math.floor(ts.nanos / 1000) : 0;
  return { key: { micros, id: task.id }, contextId: task.contextId, state: task.status?.state ?? 0 };
}

function sameIndexed(a: IndexedTask, b: IndexedTask): boolean {
  return a.key.micros === b.key.micros && a.contextId === b.contextId && a.state === b.state;
}

function checkShare(name: string, value: number): number {
  if (!(value > 0 && value <= 1)) {
    throw new RangeError(`createMemoryTaskStore: ${name} must be above 0 and at most 1, got ${value}`);
  }
  return value;
}

function checkCount(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`createMemoryTaskStore: ${name} must be an integer >= ${min}, got ${value}`);
  }
  return value;
}

/** A TTL option checked: undefined for Infinity (none). */
function checkTtl(name: string, value: number): number | undefined {
  return value === Number.POSITIVE_INFINITY ? undefined : checkCount(name, value, 0);
}

/** Creates an empty in-memory TaskStore (see the module comment for the bounds). */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): MemoryTaskStore {
  return new MemoryStore(options);
}

class MemoryStore implements MemoryTaskStore {
  readonly system = "memory";
  private readonly tasks = new Map<string, Slot>();
  /** Terminal tasks, the one that ended longest ago first. */
  private readonly terminal = new FifoMap<string, Slot>();
  /** Input-required and auth-required tasks, the one that committed longest ago first. */
  private readonly interrupted = new FifoMap<string, Slot>();
  /** Interrupted tasks past their TTL that the sweep kept for their subscribers, out of `interrupted` (sweep). */
  private readonly watchedPastTtl = new Set<string>();
  private readonly indexes = new Map<string, OwnerIndexes>();
  private readonly listeners: TaskListeners;
  private readonly pushConfigs: PushConfigTable;
  private readonly maxTasks: number;
  private readonly budget: StoreBudget;
  private readonly ttl: number | undefined;
  private readonly interruptedTtl: number | undefined;
  /**
   * When sweep next has something to drop: the TTL's end of the first terminal or interrupted task when the last
   * sweep ran, or of a task that ended or was interrupted since, if earlier. Before then sweep returns at once,
   * without looking into `terminal` or `interrupted`.
   */
  private sweepDue = Number.POSITIVE_INFINITY;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryTaskStoreOptions) {
    this.maxTasks = checkCount("maxTasks", options.maxTasks ?? DEFAULT_MAX_TASKS, 1);
    this.budget = new StoreBudget({
      maxBytes: checkCount("maxBytes", options.maxBytes ?? DEFAULT_MAX_BYTES, 1),
      maxTasks: this.maxTasks,
      maxTenantShare: checkShare("maxTenantShare", options.maxTenantShare ?? DEFAULT_MAX_TENANT_SHARE),
      maxOwnerShare: checkShare("maxOwnerShare", options.maxOwnerShare ?? DEFAULT_MAX_OWNER_SHARE),
    });
    const perTask = options.maxPushConfigsPerTask ?? DEFAULT_MAX_PUSH_CONFIGS_PER_TASK;
    this.pushConfigs = new PushConfigTable(checkCount("maxPushConfigsPerTask", perTask, 1));
    this.ttl = checkTtl("terminalTtlMs", options.terminalTtlMs ?? DEFAULT_TERMINAL_TTL_MS);
    this.interruptedTtl = checkTtl("interruptedTtlMs", options.interruptedTtlMs ?? DEFAULT_INTERRUPTED_TTL_MS);
    this.now = options.now ?? Date.now;
    this.listeners = new TaskListeners(options.onListenerError ?? logListenerError);
    const shortest = Math.min(this.ttl ?? Number.POSITIVE_INFINITY, this.interruptedTtl ?? Number.POSITIVE_INFINITY);
    if (shortest !== Number.POSITIVE_INFINITY) {
      this.timer = setInterval(() => this.sweep(), Math.min(Math.max(shortest, 1000), 60_000));
      this.timer.unref();
    }
  }

  stats(): MemoryTaskStoreStats {
    this.sweep();
    return {
      tasks: this.tasks.size,
      bytes: this.budget.bytes,
      terminalTasks: this.terminal.size,
      interruptedTasks: this.interrupted.size + this.watchedPastTtl.size,
      pushConfigs: this.pushConfigs.size,
      subscribedTasks: this.listeners.taskCount,
    };
  }

  /** The task's slot, unless there is none or (with `owner`) it is another owner's. */
  private visible(tenant: string, taskId: string, owner: string | undefined): Slot | undefined {
    const slot = this.tasks.get(taskKey(tenant, taskId));
    return slot && (owner === undefined || slot.owner === owner) ? slot : undefined;
  }

  async get(tenant: string, taskId: string, owner?: string): Promise<StoredTask | undefined> {
    checkKeys("task store get", { tenant, taskId, owner });
    this.sweep();
    const slot = this.visible(tenant, taskId, owner);
    return slot ? { ...storedOf(slot), task: deepCopy(slot.task) } : undefined;
  }

  async commit(tenant: string, commit: TaskCommit): Promise<number | undefined> {
    this.sweep();
    const id = commit.task.id;
    if (!id) throw new A2AError("InvalidParamsError", `task store commit: task.id is empty (tenant "${tenant}")`);
    checkTaskKeys("task store commit", tenant, commit.task);
    const owner = commit.owner ?? "";
    checkKeys("task store commit", { owner });
    const key = taskKey(tenant, id);
    const slot = this.tasks.get(key);
    if ((slot?.version ?? 0) !== commit.expectedVersion) return undefined;
    if (commit.startTurn !== undefined && slot?.turn !== undefined) return undefined;
    // The owner a create records; a later commit keeps the task's (TaskCommit.owner is ignored then).
    const holder = { tenant, owner: slot?.owner ?? owner, key };
    let sizes: TaskSizes | undefined;
    if (!slot) {
      // A create the budget refuses is refused before room is made for it: a refused create drops no other task.
      const active = !TERMINAL_STATES.has(commit.task.status?.state ?? 0);
      sizes = taskSizes(commit.task, undefined);
      this.budget.checkRoom(holder, id, undefined, { bytes: sizes.bytes + TASK_OVERHEAD, active });
      this.makeRoom(tenant, id);
    }
    const version = commit.expectedVersion + 1;
    this.write(holder, slot, deepCopy(commit.task), version, commit, sizes);
    this.listeners.publish(tenant, id, version, commit.events);
    return version;
  }

  async update(
    tenant: string,
    taskId: string,
    change: (stored: StoredTask) => TaskChange | undefined,
    owner?: string,
  ): Promise<TaskUpdateResult> {
    checkKeys("task store update", { tenant, taskId, owner });
    this.sweep();
    const slot = this.visible(tenant, taskId, owner);
    if (!slot) return undefined;
    const made = change(storedOf(slot));
    if (!made) return "declined";
    checkTaskKeys("task store update", tenant, made.task, slot.task);
    if (made.task.id !== taskId) {
      throw new A2AError("InvalidParamsError", `task store update of task ${taskId}: the change renamed it`);
    }
    if (made.startTurn !== undefined && slot.turn !== undefined) {
      throw new Error(`task store update of task ${taskId}: the change starts a turn while turn ${slot.turn} runs`);
    }
    const version = slot.version + 1;
    const at = { tenant, owner: slot.owner, key: taskKey(tenant, taskId) };
    this.write(at, slot, copyReusing(made.task, slot.task), version, made);
    this.listeners.publish(tenant, taskId, version, made.events);
    return version;
  }

  private write(
    at: { readonly tenant: string; readonly owner: string; readonly key: string },
    old: Slot | undefined,
    task: Task,
    version: number,
    turn: { readonly startTurn?: string | undefined; readonly turnTrace?: string | undefined },
    /** The new task's sizes, when the caller measured it and had the budget check its room already (a create). */
    measured?: TaskSizes,
  ): void {
    const { tenant, key } = at;
    let indexed = indexedOf(task);
    const before = old ? held(old) : undefined;
    const sizes = measured ?? taskSizes(task, old ? { task: old.task, sizes: old.sizes } : undefined);
    const bytes = sizes.bytes + TASK_OVERHEAD + (old?.configBytes ?? 0);
    const after = { bytes, active: !TERMINAL_STATES.has(indexed.state) };
    // A create's room was checked before makeRoom (commit); what made room since cannot undo that check.
    if (measured === undefined) this.budget.checkRoom(at, task.id, before, after);
    this.budget.evictFor(before, after, () => this.evictOldest(key));
    this.budget.record(at, before, after);
    if (old && sameIndexed(old.indexed, indexed)) indexed = old.indexed;
    else {
      let index = this.indexes.get(tenant);
      if (!index) {
        index = new OwnerIndexes();
        this.indexes.set(tenant, index);
      }
      if (old) index.move(old.owner, old.indexed, indexed);
      else index.add(at.owner, indexed);
    }
    const slot: Slot = old ?? {
      tenant,
      owner: at.owner,
      task,
      version,
      indexed,
      idleSince: undefined,
      turn: undefined,
      turnTrace: undefined,
      bytes: 0,
      configBytes: 0,
      sizes,
    };
    slot.bytes = after.bytes;
    slot.sizes = sizes;
    slot.task = task;
    slot.version = version;
    slot.indexed = indexed;
    slot.turn = turnAfter(slot.turn, indexed.state, turn.startTurn);
    if (turn.startTurn !== undefined) slot.turnTrace = turn.turnTrace;
    this.tasks.set(key, slot);
    this.requeue(key, slot);
  }

  /**
   * Puts a task just committed at the end of the order its state expires in (terminal, interrupted), or in
   * none while it works: re-inserting moves it to the end, as it ended or was interrupted (again) just now.
   */
  private requeue(key: string, slot: Slot): void {
    this.terminal.delete(key);
    this.interrupted.delete(key);
    this.watchedPastTtl.delete(key);
    const state = slot.indexed.state;
    const [queue, ttl] = TERMINAL_STATES.has(state)
      ? [this.terminal, this.ttl]
      : INTERRUPTED_STATES.has(state)
        ? [this.interrupted, this.interruptedTtl]
        : [undefined, undefined];
    slot.idleSince = queue && this.now();
    if (queue === undefined || slot.idleSince === undefined) return;
    queue.set(key, slot);
    if (ttl !== undefined) this.sweepDue = Math.min(this.sweepDue, slot.idleSince + ttl);
  }

  /** Makes room for one more task: drops the terminal task that ended longest ago, or refuses. */
  private makeRoom(tenant: string, taskId: string): void {
    while (this.tasks.size >= this.maxTasks) {
      const oldest = this.terminal.oldest();
      if (oldest === undefined) {
        throw new A2AError(
          "InternalError",
          `task store: cannot create task ${taskId} (tenant "${tenant}"): all ${this.tasks.size} stored tasks ` +
            `are active (maxTasks ${this.maxTasks}); retry when some have ended`,
          { httpStatus: 503 },
        );
      }
      this.drop(oldest.key, oldest.value);
    }
  }

  /** Drops the terminal task that ended longest ago, other than `keep`; false when there is none. */
  private evictOldest(keep: string): boolean {
    for (const { key, value } of this.terminal.entries()) {
      if (key === keep) continue;
      this.drop(key, value);
      return true;
    }
    return false;
  }

  private drop(key: string, slot: Slot): void {
    this.budget.record(slot, held(slot), undefined);
    this.tasks.delete(key);
    this.terminal.delete(key);
    this.interrupted.delete(key);
    this.watchedPastTtl.delete(key);
    const index = this.indexes.get(slot.tenant);
    index?.remove(slot.owner, slot.indexed);
    if (index?.size === 0) this.indexes.delete(slot.tenant);
    this.pushConfigs.dropTask(slot.tenant, slot.indexed.key.id);
    this.listeners.dropTask(slot.tenant, slot.indexed.key.id);
  }

  /**
   * Drops the terminal and interrupted tasks whose TTL has passed (they are the first ones in `terminal` and
   * `interrupted`), once one is due. An interrupted task someone subscribes to is kept and leaves its order: its
   * subscribers wait for the next turn, and a dropped task's listeners would be told nothing. Its TTL starts
   * again when its last subscriber leaves (subscribe).
   */
  private sweep(): void {
    const now = this.now();
    if (now < this.sweepDue) return;
    const watched = (key: string, slot: Slot) => {
      if (!this.listeners.has(slot.tenant, slot.task.id)) return false;
      this.watchedPastTtl.add(key);
      return true;
    };
    const terminalDue = this.sweepQueue(this.terminal, this.ttl, now, () => false);
    this.sweepDue = Math.min(terminalDue, this.sweepQueue(this.interrupted, this.interruptedTtl, now, watched));
  }

  /** Drops the tasks of one expiry order whose TTL has passed, but those `kept`; when its next one is due. */
  private sweepQueue(
    queue: FifoMap<string, Slot>,
    ttl: number | undefined,
    now: number,
    kept: (key: string, slot: Slot) => boolean,
  ): number {
    if (ttl === undefined) return Number.POSITIVE_INFINITY;
    for (let first = queue.oldest(); first !== undefined; first = queue.oldest()) {
      const since = first.value.idleSince ?? now;
      if (now - since < ttl) return since + ttl;
      if (kept(first.key, first.value)) queue.delete(first.key);
      else this.drop(first.key, first.value);
    }
    return Number.POSITIVE_INFINITY;
  }

  async list(tenant: string, query: TaskQuery): Promise<TaskPage> {
    const { owner } = query;
    checkKeys(LIST, { tenant, contextId: query.contextId, owner });
    this.sweep();
    if (!Number.isSafeInteger(query.pageSize) || query.pageSize < 1) {
      throw new A2AError("InvalidParamsError", `${LIST}: pageSize ${query.pageSize} is not a positive integer`);
    }
    const scope = scopeOf(["t", tenant, query.contextId, query.status, query.statusAfterMs, owner]);
    const after = query.pageToken ? decodeTaskToken(LIST, query.pageToken, scope) : undefined;
    const set = this.indexes.get(tenant)?.select(owner, { contextId: query.contextId, state: query.status });
    if (!set) return { tasks: [], nextPageToken: "", totalSize: 0 };
    const from = query.statusAfterMs === undefined ? undefined : Math.round(query.statusAfterMs * 1000);
    const limit = from === undefined ? set.size : set.countBefore((k) => k.micros >= from);
    const start = after ? set.countBefore((k) => compareKeys(k, after) <= 0) : 0;
    const keys = start < limit ? set.slice(start, Math.min(limit, start + query.pageSize)) : [];
    const { view, maxBytes } = query;
    const slots = withinBytes(
      keys.map((k) => this.tasks.get(taskKey(tenant, k.id)) as Slot),
      view,
      maxBytes,
    );
    const last = keys[slots.length - 1];
    return {
      // Only what the view keeps is copied: a listing without artifacts never copies them.
      tasks: slots.map((s) => deepCopy(view ? taskView(s.task, view.historyLength, view.includeArtifacts) : s.task)),
      nextPageToken: start + slots.length < limit && last ? encodeTaskToken(scope, last) : "",
      totalSize: limit,
    };
  }

  async endTurn(tenant: string, taskId: string, turn: string): Promise<void> {
    const slot = this.tasks.get(taskKey(tenant, taskId));
    if (slot?.turn === turn) slot.turn = undefined;
  }

  async subscribe(tenant: string, taskId: string, listener: TaskListener): Promise<() => Promise<void>> {
    checkKeys("task store subscribe", { tenant, taskId });
    const remove = this.listeners.add(tenant, taskId, listener);
    return async () => {
      remove();
      this.unwatched(tenant, taskId);
    };
  }

  /** An interrupted task the sweep kept for its subscribers goes back in its order once the last one left. */
  private unwatched(tenant: string, taskId: string): void {
    const key = taskKey(tenant, taskId);
    const slot = this.tasks.get(key);
    if (slot === undefined || !this.watchedPastTtl.has(key) || this.listeners.has(tenant, taskId)) return;
    this.requeue(key, slot);
  }

  // A task's configs belong to the task's owner: with `owner`, another owner's task has none.
  async putPushConfig(tenant: string, stored: StoredPushConfig, owner?: string): Promise<void> {
    const taskId = stored.config.taskId;
    checkKeys("push config put", { tenant, taskId, id: stored.config.id, owner });
    this.sweep();
    const slot = this.visible(tenant, taskId, owner);
    if (!slot) throw pushConfigTaskMissing(stored.config.id, taskId);
    // Kept with its task's owner (StoredPushConfig.owner). Counted to the task: admitted first (the refusal, or
    // room made), recorded once stored.
    const kept = withNames(stored, { owner: slot.owner });
    const growth = heapSizeOf(kept) - heapSizeOf(this.pushConfigs.peek(tenant, taskId, stored.config.id));
    const before = held(slot);
    const after = { bytes: slot.bytes + growth, active: before.active };
    this.budget.admit(slot, taskId, before, after, () => this.evictOldest(taskKey(tenant, taskId)), false);
    this.pushConfigs.put(tenant, kept);
    this.resize(slot, before, after);
  }

  /** Records a task's new size when its push configs changed. */
  private resize(slot: Slot, before: Held, after: Held): void {
    this.budget.record(slot, before, after);
    slot.configBytes += after.bytes - before.bytes;
    slot.bytes = after.bytes;
  }

  async getPushConfig(
    tenant: string,
    taskId: string,
    id: string,
    owner?: string,
  ): Promise<StoredPushConfig | undefined> {
    checkKeys("push config get", { tenant, taskId, id, owner });
    this.sweep();
    return this.ownerSees(tenant, taskId, owner) ? this.pushConfigs.get(tenant, taskId, id) : undefined;
  }

  async listPushConfigs(
    tenant: string,
    taskId: string,
    pageSize: number,
    pageToken: string,
    owner?: string,
  ): Promise<PushConfigPage> {
    checkKeys("push config list", { tenant, taskId, owner });
    this.sweep();
    return this.pushConfigs.list(tenant, taskId, pageSize, pageToken, this.ownerSees(tenant, taskId, owner));
  }

  async deletePushConfig(tenant: string, taskId: string, id: string, owner?: string): Promise<boolean> {
    checkKeys("push config delete", { tenant, taskId, id, owner });
    this.sweep();
    if (!this.ownerSees(tenant, taskId, owner)) return false;
    const dropped = this.pushConfigs.peek(tenant, taskId, id);
    if (!this.pushConfigs.delete(tenant, taskId, id)) return false;
    const slot = this.tasks.get(taskKey(tenant, taskId));
    if (slot) this.resize(slot, held(slot), { bytes: slot.bytes - heapSizeOf(dropped), active: held(slot).active });
    return true;
  }

  /** Whether a caller seeing `owner` (undefined: all) sees the configs of the task: a missing task has none. */
  private ownerSees(tenant: string, taskId: string, owner: string | undefined): boolean {
    return owner === undefined || this.visible(tenant, taskId, owner) !== undefined;
  }

  /** Stops the sweep timer and drops every listener; interrupted tasks kept for them expire again from now. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
    for (const key of this.watchedPastTtl) {
      const slot = this.tasks.get(key);
      if (slot !== undefined) this.requeue(key, slot);
    }
  }
}
