/**
 * Retention: what the PostgreSQL store deletes so that its tables do not grow
 * without bound.
 *
 *   events   task_events rows only carry commits to subscribers, who read
 *            them within moments of the commit (or of a missed
 *            notification's recheck, recheckMs), so a row older than
 *            eventsTtlMs (default one hour; keep it well above recheckMs)
 *            is never needed again, whatever the task's state
 *   tasks    a task in a terminal state (completed, failed, canceled,
 *            rejected) that ended (its status time) and was last committed
 *            more than terminalTtlMs ago, and at least eventsTtlMs ago
 *            (default seven days; Infinity keeps them) goes with its
 *            history, artifacts and push configs (ON DELETE CASCADE: a
 *            config put while the prune runs goes too) and its events. A
 *            task is kept as long as its events, so that every instance's
 *            feed reads its last events (a cancel from another instance
 *            among them) before they go with it
 *   prompts  a task in input-required or auth-required whose status time
 *            and last commit are older than interruptedTtlMs, and than
 *            eventsTtlMs (default seven days; Infinity keeps them), goes the
 *            same way: nobody answered it, and a caller leaving prompts
 *            unanswered must not grow the tables for good. An answer commits
 *            WORKING first, which takes the task out of this rule (a commit
 *            racing the delete either locks the row first, and the prune
 *            skips it, or finds no row, and its writer's re-read no task:
 *            ../store.ts, dropping).
 *            Subscribers are not consulted (those of other instances cannot
 *            be seen from here): a stream still following such a task when
 *            it goes stays open and hears nothing more, until its client
 *            leaves (the memory store keeps a task someone subscribes to).
 *            Tasks that work are never deleted
 *   batches  each statement deletes at most BATCH rows, taking only rows no
 *            other transaction holds (FOR UPDATE SKIP LOCKED), so instances
 *            pruning at once neither wait on nor repeat each other's work,
 *            and no statement holds many locks; a prune repeats batches
 *            until one comes back short, at most MAX_BATCHES times
 *   when     every store prunes on an unref'd timer (pruneEveryMs, default
 *            one minute; 0: never), and `a2a-task-store prune` prunes from
 *            cron or by hand
 *
 * The terminal-task scan walks tasks_terminal_by_end (migration 5), a partial
 * index of terminal tasks by their status time (the last commit is checked
 * too: a task stored without a status timestamp has status time 0), the
 * prompt scan tasks_interrupted_by_status (migration 6), and the event scan
 * task_events_by_age.
 */
import type { Queryable } from "./migrations.js";
import { sqlNames } from "./sql-names.js";
import { storeError } from "./store-error.js";
import { DEFAULT_INTERRUPTED_TTL_MS, DEFAULT_TERMINAL_TTL_MS } from "../store.js";

export { DEFAULT_INTERRUPTED_TTL_MS, DEFAULT_TERMINAL_TTL_MS };

export interface RetentionOptions {
  /** Delete events committed more than this many milliseconds ago; default 3 600 000 (one hour). */
  readonly eventsTtlMs?: number;
  /**
   * Delete terminal tasks whose last commit is older than this, and than eventsTtlMs; default 604 800 000 (7 days);
   * Infinity: never.
   */
  readonly terminalTtlMs?: number;
  /**
   * Delete input-required and auth-required tasks whose last commit is older than this, and than eventsTtlMs;
   * default 604 800 000 (7 days); Infinity: never.
   */
  readonly interruptedTtlMs?: number;
}

export interface PruneOptions extends RetentionOptions {
  readonly schema?: string;
  /** The former name of eventsTtlMs. */
  readonly olderThanMs?: number;
}

export interface PruneResult {
  readonly events: number;
  /** Terminal tasks and unanswered input-required or auth-required tasks deleted. */
  readonly tasks: number;
}

export const DEFAULT_EVENTS_TTL_MS = 3_600_000;
/**
 * The longest finite TTL: 100 years. A far longer one would take PostgreSQL's timestamps out of range in every
 * prune; Infinity says "never" where a TTL allows it.
 */
export const MAX_TTL_MS = 3_153_600_000_000;
export const DEFAULT_PRUNE_EVERY_MS = 60_000;

/** Rows one statement deletes at most, and how many such statements one prune runs per table at most. */
const BATCH = 1000;
const MAX_BATCHES = 50;

/** lf.a2a.v1.TaskState numbers of the terminal states, as migration 5's index lists them. */
export const TERMINAL_STATE_NUMBERS = [3, 4, 5, 7] as const;
/** lf.a2a.v1.TaskState numbers of input-required and auth-required, as migration 6's index lists them. */
export const INTERRUPTED_STATE_NUMBERS = [6, 8] as const;

/** The retention's bounds with their defaults, each checked: a RangeError names the bad one. */
export function retentionOf(options: RetentionOptions & { olderThanMs?: number }): Required<RetentionOptions> {
  const eventsTtlMs = options.eventsTtlMs ?? options.olderThanMs ?? DEFAULT_EVENTS_TTL_MS;
  const terminalTtlMs = options.terminalTtlMs ?? DEFAULT_TERMINAL_TTL_MS;
  const interruptedTtlMs = options.interruptedTtlMs ?? DEFAULT_INTERRUPTED_TTL_MS;
  for (const [name, value, endless] of [
    ["eventsTtlMs", eventsTtlMs, false],
    ["terminalTtlMs", terminalTtlMs, true],
    ["interruptedTtlMs", interruptedTtlMs, true],
  ] as const) {
    if (value === Number.POSITIVE_INFINITY ? endless : value >= 0 && value <= MAX_TTL_MS) continue;
    const or = endless ? " or Infinity" : "";
    throw new RangeError(
      `PostgreSQL task store: ${name} must be a number of milliseconds from 0 to ${MAX_TTL_MS}${or}, got ${value}`,
    );
  }
  return { eventsTtlMs, terminalTtlMs, interruptedTtlMs };
}

/** Runs `statement` (a DELETE of at most BATCH rows) until a batch comes back short; the rows deleted. */
async function inBatches(db: Queryable, statement: string, values: unknown[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = (await db.query(statement, values)).rowCount ?? 0;
    deleted += n;
    if (n < BATCH) break;
  }
  return deleted;
}

const AGE = "now() - $1::bigint * interval '1 millisecond'";

/**
 * Deletes old task events and, past their TTLs, terminal tasks and unanswered prompts with everything of theirs
 * (see the header).
 */
export async function prune(db: Queryable, options: PruneOptions = {}): Promise<PruneResult> {
  const { q } = sqlNames(options.schema);
  const { eventsTtlMs, terminalTtlMs, interruptedTtlMs } = retentionOf(options);
  const events = await inBatches(
    db,
    `DELETE FROM ${q}.task_events WHERE ctid = ANY(ARRAY(
       SELECT ctid FROM ${q}.task_events WHERE created_at < ${AGE} LIMIT ${BATCH} FOR UPDATE SKIP LOCKED))`,
    [Math.floor(eventsTtlMs)],
  );
  const terminal = await pruneTasks(db, q, TERMINAL_STATE_NUMBERS, terminalTtlMs, eventsTtlMs);
  const interrupted = await pruneTasks(db, q, INTERRUPTED_STATE_NUMBERS, interruptedTtlMs, eventsTtlMs);
  return { events, tasks: terminal + interrupted };
}

/**
 * Deletes the tasks in one of `states` whose status time and last commit are older than `ttlMs`, and than
 * `eventsTtlMs`, with their events (history, artifacts and push configs cascade); how many went.
 */
async function pruneTasks(
  db: Queryable,
  q: string,
  states: readonly number[],
  ttlMs: number,
  eventsTtlMs: number,
): Promise<number> {
  if (ttlMs === Number.POSITIVE_INFINITY) return 0;
  // A task goes no sooner than its events would (the header): a feed that has not read them yet still can.
  const afterMs = Math.max(ttlMs, eventsTtlMs);
  return inBatches(
    db,
    `WITH gone AS (
       DELETE FROM ${q}.tasks t WHERE (t.tenant, t.id) IN (
         SELECT tenant, id FROM ${q}.tasks
           WHERE state IN (${states.join(", ")}) AND status_time < ${AGE} AND updated_at < ${AGE}
         LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
       RETURNING t.tenant, t.id),
     events AS (DELETE FROM ${q}.task_events e USING gone WHERE e.tenant = gone.tenant AND e.task_id = gone.id)
     SELECT 1 FROM gone`,
    [Math.floor(afterMs)],
  );
}

/** Deletes old task events only; returns how many rows went (kept for callers of earlier releases). */
export async function pruneEvents(db: Queryable, options: PruneOptions = {}): Promise<number> {
  const never = Number.POSITIVE_INFINITY;
  return (await prune(db, { ...options, terminalTtlMs: never, interruptedTtlMs: never })).events;
}

export interface PruneTimerOptions extends Required<RetentionOptions> {
  readonly schema: string;
  /** 0: never. */
  readonly everyMs: number;
  readonly onError: (error: Error) => void;
}

/** A store's own pruning: every everyMs, unless the last prune is still under way (see the header). */
export class PruneTimer {
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly db: Queryable,
    private readonly options: PruneTimerOptions,
  ) {
    if (!Number.isSafeInteger(options.everyMs) || options.everyMs < 0) {
      throw new RangeError(`PostgreSQL task store: pruneEveryMs must be an integer >= 0, got ${options.everyMs}`);
    }
    if (options.everyMs === 0) return;
    this.timer = setInterval(() => this.run(), options.everyMs);
    this.timer.unref?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.running;
  }

  private run(): void {
    if (this.closed || this.running !== undefined) return;
    this.running = prune(this.db, this.options)
      .then(
        () => undefined,
        (error: unknown) => {
          if (!this.closed) this.options.onError(storeError("pruning events and old tasks", error));
        },
      )
      .finally(() => {
        this.running = undefined;
      });
  }
}
