/**
 * The memory store's byte budget: the estimated bytes of the stored tasks
 * (memory-size.ts), in all and per tenant for its active tasks, and the rule
 * a write that grows them must pass.
 *
 *   maxBytes        the stored tasks together stay within it: a write that
 *                   would pass it first drops terminal tasks, the one that
 *                   ended longest ago first (the store's `evictOldest`),
 *                   then is refused
 *   maxTenantShare  a tenant's active tasks stay within this share of
 *                   maxBytes: past it, a write that grows an active task of
 *                   that tenant is refused, while the global budget may have
 *                   room. Active tasks cannot be dropped (their executors and
 *                   subscribers still use them), terminal ones can; so one
 *                   tenant filling the store with tasks that never end keeps
 *                   at least 1 - maxTenantShare of it for the others, and its
 *                   terminal tasks make way for theirs
 *   tasks can end   a write that leaves the task terminal and grows it by at
 *                   most TERMINAL_SLACK bytes (a FAILED or CANCELED status, a
 *                   last short message) is never refused: it may pass the
 *                   budget by that much, and makes the task droppable
 *
 * A refusal is A2AError InternalError with HTTP status 503 (as the store's
 * maxTasks refusal), naming the bound, the tenant and the task: the store is
 * full for now, and frees itself as tasks end.
 */
import { A2AError } from "../core/a2a-error.js";

/** How much a write that ends a task may grow it past a full budget. */
export const TERMINAL_SLACK = 4096;

/** What a task holds of the budget: its estimated bytes, and whether it is active (not terminal). */
export interface Held {
  readonly bytes: number;
  readonly active: boolean;
}

export interface BudgetOptions {
  readonly maxBytes: number;
  readonly maxTenantShare: number;
}

export class ByteBudget {
  private total = 0;
  private readonly activeByTenant = new Map<string, number>();

  constructor(private readonly options: BudgetOptions) {}

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
    tenant: string,
    taskId: string,
    before: Held | undefined,
    after: Held,
    evictOldest: () => boolean,
    commit = true,
  ): void {
    const growth = after.bytes - (before?.bytes ?? 0);
    if (growth <= 0) return;
    const ending = commit && !after.active && growth <= TERMINAL_SLACK;
    if (after.active) {
      const active = (this.activeByTenant.get(tenant) ?? 0) - (before?.active ? before.bytes : 0) + after.bytes;
      const share = Math.floor(this.options.maxBytes * this.options.maxTenantShare);
      if (active > share) {
        throw this.refusal(
          tenant,
          taskId,
          `the tenant's active tasks would hold ${active} bytes, past its share (maxTenantShare ` +
            `${this.options.maxTenantShare}) of maxBytes ${this.options.maxBytes}: ${share} bytes`,
        );
      }
    }
    while (this.total + growth > this.options.maxBytes) {
      if (evictOldest()) continue;
      if (ending) return;
      throw this.refusal(
        tenant,
        taskId,
        `the stored tasks would hold ${this.total + growth} bytes, past maxBytes ${this.options.maxBytes}, ` +
          "with no terminal task left to drop",
      );
    }
  }

  /** Counts a write (before → after), a new task (before undefined) or a dropped one (after undefined). */
  record(tenant: string, before: Held | undefined, after: Held | undefined): void {
    this.total += (after?.bytes ?? 0) - (before?.bytes ?? 0);
    const change = (after?.active ? after.bytes : 0) - (before?.active ? before.bytes : 0);
    if (change === 0) return;
    const active = (this.activeByTenant.get(tenant) ?? 0) + change;
    if (active === 0) this.activeByTenant.delete(tenant);
    else this.activeByTenant.set(tenant, active);
  }

  private refusal(tenant: string, taskId: string, why: string): A2AError {
    return new A2AError(
      "InternalError",
      `task store: cannot store task ${taskId} (tenant "${tenant}"): ${why}; retry when some tasks have ended`,
      { httpStatus: 503 },
    );
  }
}
