/**
 * Pruning task_events. Event rows only carry commits to subscribers, who read
 * them within moments of the commit (or of a missed notification's recheck),
 * so rows older than a retention (default one hour; keep it well above the
 * stores' recheckMs) are never needed again, whatever the task's state. Tasks,
 * history, artifacts and push configs are never pruned here.
 *
 * Run it from a timer in one instance, or from cron: `a2a-task-store prune`.
 */
import type { Queryable } from "./migrations.js";
import { sqlNames } from "./sql-names.js";

export interface PruneOptions {
  readonly schema?: string;
  /** Delete events committed more than this many milliseconds ago; default 3 600 000 (one hour). */
  readonly olderThanMs?: number;
}

/** Deletes old task events; returns how many rows went. */
export async function pruneEvents(db: Queryable, options: PruneOptions = {}): Promise<number> {
  const names = sqlNames(options.schema);
  const olderThanMs = options.olderThanMs ?? 3_600_000;
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new Error(`PostgreSQL task store: prune olderThanMs ${olderThanMs} is not a non-negative number`);
  }
  const result = await db.query(
    `DELETE FROM ${names.q}.task_events WHERE created_at < now() - $1::bigint * interval '1 millisecond'`,
    [Math.floor(olderThanMs)],
  );
  return result.rowCount ?? 0;
}
