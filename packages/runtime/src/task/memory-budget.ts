/**
 * The memory store's budget: the estimated bytes of the stored tasks
 * (memory-size.ts) in all, and the bytes and number of the active tasks per
 * tenant and per owner (a tenant's tasks made for one caller, access.ts), and
 * the rule a write must pass.
 *
 *   maxBytes        the stored tasks together stay within it: a write that
 *                   would pass it drops terminal tasks, the one that ended
 *                   longest ago first (the store's `evictOldest`), until it
 *                   fits; a write that would not fit with every terminal task
 *                   dropped is refused first, and drops none
 *   maxTenantShare  a tenant's active tasks stay within this share of
 *                   maxBytes and of maxTasks (at least one task): past it, a
 *                   write that grows an active task of that tenant, or makes
 *                   one more, is refused, while the store may have room.
 *                   Active tasks cannot be dropped (their executors and
 *                   subscribers still use them), terminal ones can; so one
 *                   tenant filling the store with tasks that never end keeps
 *                   at least 1 - maxTenantShare of it for the others, and its
 *                   terminal tasks make way for theirs
 *   maxOwnerShare   one owner's active tasks within a tenant (an
 *                   authenticated caller's) stay within this share of the
 *                   tenant's share: one caller whose tasks never end leaves the
 *                   other callers of its tenant the rest. Owner "" (callers
 *                   nobody authenticated, who share their tasks: every task of
 *                   a server that authenticates nothing) is bounded by the
 *                   tenant's share alone
 *   tasks can end   a write that leaves the task terminal and grows it by at
 *                   most TERMINAL_SLACK bytes (a FAILED or CANCELED status, a
 *                   last short message) is never refused: it may pass the
 *                   budget by that much, and makes the task droppable
 *
 * A refusal is A2AError InternalError with HTTP status 503 (as the store's
 * maxTasks refusal), naming the bound, the tenant and the task (never the
 * owner, a caller's identity): the store is full for now, and frees itself as
 * tasks end.
 */
import { A2AError } from "../core/a2a-error.js";

/** How much a write that ends a task may grow it past a full budget. */
export const TERMINAL_SLACK = 4096;

/** What a task holds of the budget: its estimated bytes, and whether it is active (not terminal). */
export interface Held {
  readonly bytes: number;
  readonly active: boolean;
}

/** Whose a task is: its tenant, and the owner it records (access.ts). */
export interface Holder {
  readonly tenant: string;
  readonly owner: string;
}

export interface BudgetOptions {
  readonly maxBytes: number;
  readonly maxTasks: number;
  readonly maxTenantShare: number;
  readonly maxOwnerShare: number;
}

/** The active tasks of a tenant or an owner: their bytes and their number. */
interface Active {
  bytes: number;
  tasks: number;
}

/** A share of the active tasks, and what it is called in a refusal. */
interface Share {
  readonly of: Map<string, Active>;
  readonly key: (holder: Holder) => string;
  readonly who: string;
  /** The options it comes from, as a refusal names them. */
  readonly said: string;
  /** What the share comes to of a bound of the store (maxBytes, maxTasks): floored at each step. */
  readonly cap: (bound: number) => number;
  /** Whether the share bounds this holder: maxOwnerShare leaves owner "" alone (see the header). */
  readonly bounds: (holder: Holder) => boolean;
}

export class StoreBudget {
  private total = 0;
  /** The estimated bytes held by the active tasks; the rest is what dropping terminal tasks can free. */
  private activeTotal = 0;
  private readonly shares: readonly Share[];

  constructor(private readonly options: BudgetOptions) {
    const { maxTenantShare, maxOwnerShare } = options;
    this.shares = [
      {
        of: new Map(),
        key: (h) => h.tenant,
        who: "tenant",
        said: `maxTenantShare ${maxTenantShare}`,
        cap: (bound) => Math.floor(bound * maxTenantShare),
        bounds: () => true,
      },
      {
        of: new Map(),
        // Store keys and owners hold no NUL (store.ts), so the pair's key is unambiguous.
        key: (h) => `${h.tenant}\u0000${h.owner}`,
        who: "owner",
        said: `maxOwnerShare ${maxOwnerShare} of maxTenantShare ${maxTenantShare}`,
        cap: (bound) => Math.floor(Math.floor(bound * maxTenantShare) * maxOwnerShare),
        bounds: (h) => h.owner !== "",
      },
    ];
  }

  /** The estimated bytes held by all stored tasks. */
  get bytes(): number {
    return this.total;
  }

  /**
   * Makes room for a write of task `taskId` from `before` (undefined: a new task) to `after`, dropping terminal
   * tasks through `evictOldest` (false: none left to drop), or throws the refusal (see the header). `commit`
   * false: the write is no commit of the task (a push config), which the "tasks can end" slack does not cover.
   */
  admit(
    holder: Holder,
    taskId: string,
    before: Held | undefined,
    after: Held,
    evictOldest: () => boolean,
    commit = true,
  ): void {
    this.checkRoom(holder, taskId, before, after, commit);
    this.evictFor(before, after, evictOldest);
  }

  /** Drops terminal tasks through `evictOldest` until the write fits, for a write checkRoom let through. */
  evictFor(before: Held | undefined, after: Held, evictOldest: () => boolean): void {
    const growth = after.bytes - (before?.bytes ?? 0);
    while (growth > 0 && this.total + growth > this.options.maxBytes) if (!evictOldest()) break;
  }

  /**
   * Refuses the write admit would refuse, dropping nothing: past a share, or past maxBytes with every terminal task
   * dropped. The store asks before it makes room for a new task, so that a refused create drops no other task.
   */
  checkRoom(holder: Holder, taskId: string, before: Held | undefined, after: Held, commit = true): void {
    if (after.active) this.checkShares(holder, taskId, before, after);
    const growth = after.bytes - (before?.bytes ?? 0);
    if (growth <= 0) return;
    const { maxBytes } = this.options;
    const ending = commit && !after.active && growth <= TERMINAL_SLACK;
    // The task written is not dropped to make room for itself (the store's evictOldest keeps it).
    const droppable = this.total - this.activeTotal - (before !== undefined && !before.active ? before.bytes : 0);
    if (!ending && this.total + growth - droppable > maxBytes) {
      throw this.refusal(
        holder.tenant,
        taskId,
        `the stored tasks would hold ${this.total + growth} bytes, past maxBytes ${maxBytes}, ` +
          `with ${droppable} bytes of terminal tasks to drop`,
      );
    }
  }

  /** Refuses an active task's write that would take its tenant's or owner's active tasks past their share. */
  private checkShares(holder: Holder, taskId: string, before: Held | undefined, after: Held): void {
    for (const share of this.shares) if (share.bounds(holder)) this.checkShare(share, holder, taskId, before, after);
  }

  private checkShare(share: Share, holder: Holder, taskId: string, before: Held | undefined, after: Held): void {
    const { maxBytes, maxTasks } = this.options;
    const now = share.of.get(share.key(holder)) ?? { bytes: 0, tasks: 0 };
    const wasActive = before?.active === true;
    const bytes = now.bytes - (wasActive ? before.bytes : 0) + after.bytes;
    const byteShare = share.cap(maxBytes);
    const growth = after.bytes - (before?.bytes ?? 0);
    if (growth > 0 && bytes > byteShare) {
      throw this.refusal(
        holder.tenant,
        taskId,
        `the ${share.who}'s active tasks would hold ${bytes} bytes, past its share (${share.said}) of maxBytes ` +
          `${maxBytes}: ${byteShare} bytes`,
      );
    }
    const taskShare = Math.max(1, share.cap(maxTasks));
    if (!wasActive && now.tasks + 1 > taskShare) {
      throw this.refusal(
        holder.tenant,
        taskId,
        `the ${share.who}'s active tasks would number ${now.tasks + 1}, past its share (${share.said}) of maxTasks ` +
          `${maxTasks}: ${taskShare} tasks`,
      );
    }
  }

  /** Counts a write (before → after), a new task (before undefined) or a dropped one (after undefined). */
  record(holder: Holder, before: Held | undefined, after: Held | undefined): void {
    this.total += (after?.bytes ?? 0) - (before?.bytes ?? 0);
    const bytes = (after?.active ? after.bytes : 0) - (before?.active ? before.bytes : 0);
    this.activeTotal += bytes;
    const tasks = (after?.active ? 1 : 0) - (before?.active ? 1 : 0);
    if (bytes === 0 && tasks === 0) return;
    for (const { of, key } of this.shares) {
      const k = key(holder);
      const active = of.get(k) ?? { bytes: 0, tasks: 0 };
      active.bytes += bytes;
      active.tasks += tasks;
      if (active.tasks === 0) of.delete(k);
      else of.set(k, active);
    }
  }

  private refusal(tenant: string, taskId: string, why: string): A2AError {
    return new A2AError(
      "InternalError",
      `task store: cannot store task ${taskId} (tenant "${tenant}"): ${why}; retry when some tasks have ended`,
      { httpStatus: 503 },
    );
  }
}
