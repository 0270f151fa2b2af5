/**
 * Turn leases: each turn (../turns.ts) is leased by the store instance that
 * started it (turn_owner, a random id per store instance), so the tasks of a
 * dead instance end instead of staying SUBMITTED or WORKING forever.
 *
 *   lease    a commit starting a turn sets turn_expires = now() + leaseMs
 *            (PostgreSQL's clock, so instances' clocks never matter)
 *   renew    every leaseMs / 3, while this instance holds turns, one UPDATE
 *            moves turn_expires of all its turns to now() + leaseMs; after
 *            a renewal fails, again every leaseMs / 30 until one succeeds,
 *            so a lease outlives any outage that ends before it runs out
 *   report   a failed renewal or sweep goes to onError, then about one per
 *            tick (leaseMs / 3 less a tenth, for the timers' jitter, on the
 *            monotonic clock) until one succeeds: an outage is reported at the
 *            tick's cadence, not at each early renewal
 *   sweep    every leaseMs / 3 in every instance, and once at start: the
 *            turns whose lease ran out (turn_expires < now()) are read, and
 *            each task still SUBMITTED or WORKING on that turn is committed
 *            FAILED, with a status message saying its instance stopped
 *            responding, an event and NOTIFY like any commit, so every
 *            subscriber of every instance hears it. The commit is a
 *            compare-and-set on the version and on the turn with its lease
 *            still run out (commit.ts): several sweepers, or an owner that
 *            comes back and renews, never both win. A task already terminal
 *            or interrupted only loses the turn
 *   bound    a task whose instance died ends within leaseMs + leaseMs / 3
 *            of its last renewal (default 15 s + 5 s), plus the time its
 *            event takes to reach subscribers
 *
 * A database outage that lasts until a lease runs out (2/3 leaseMs to leaseMs
 * after the outage starts, by where it falls between renewals) keeps its
 * instance from renewing in time: the first sweep afterwards may end tasks
 * whose instance is alive (their executors are aborted, the task terminal).
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { TaskState } from "../a2a-types.js";
import { agentMessage, statusEvent, withStatus } from "../task-shapes.js";
import { taskKey } from "../task-key.js";
import { endsTurn } from "../turns.js";
import type { StoreCodecs } from "./codec.js";
import type { CommitWriter, Written } from "./commit.js";
import type { SqlNames } from "./sql-names.js";
import { storeError } from "./store-error.js";
import { readTask } from "./task-read.js";

/** The status message of a task whose instance stopped renewing its lease. */
export const LEASE_FAILURE_TEXT =
  "The agent instance working on this task stopped responding (its lease ran out); the task was ended.";

/** The wait before renewing again after a renewal failed, as a fraction of leaseMs. */
const RENEW_RETRY_FRACTION = 1 / 30;

/** How many expired turns one sweep ends at most (the next sweep takes the rest). */
const SWEEP_BATCH = 100;

export interface LeaseOptions {
  readonly leaseMs: number;
  readonly onError: (error: Error) => void;
  /** Told of each commit the sweeper made (the store's event feed looks for its events at once). */
  readonly onCommit: (tenant: string, taskId: string, written: Written) => void;
}

export class TurnLeases {
  /** This store instance's id: the owner of the turns it starts. */
  readonly owner = randomUUID();
  /** The turns this instance started and has not seen end, by task key. */
  private readonly held = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private tick: Promise<void> | undefined;
  /** The early renewal after a failed one, when waiting. */
  private retry: NodeJS.Timeout | undefined;
  /** When the last failure was reported (performance.now()); undefined once a run succeeded. */
  private reportedAt: number | undefined;
  private closed = false;

  constructor(
    private readonly db: pg.Pool,
    private readonly names: SqlNames,
    private readonly codecs: StoreCodecs,
    private readonly commits: CommitWriter,
    private readonly options: LeaseOptions,
  ) {
    this.timer = setInterval(() => this.run(), Math.max(1, Math.floor(options.leaseMs / 3)));
    this.timer.unref();
    setImmediate(() => this.run());
  }

  /** After a commit through this store: the turn it started, or the end of the turn it ended. */
  committed(tenant: string, taskId: string, state: TaskState | undefined, startTurn: string | undefined): void {
    const key = taskKey(tenant, taskId);
    if (endsTurn(state)) this.held.delete(key);
    else if (startTurn !== undefined) this.held.set(key, startTurn);
  }

  /** Ends the turn if this instance still holds it; no statement when a commit through this store ended it. */
  async end(tenant: string, taskId: string, turn: string): Promise<void> {
    const key = taskKey(tenant, taskId);
    if (this.held.get(key) !== turn) return;
    this.held.delete(key);
    await this.db.query(
      `UPDATE ${this.names.q}.tasks SET turn_id = NULL, turn_owner = NULL, turn_expires = NULL
       WHERE tenant = $1 AND id = $2 AND turn_id = $3`,
      [tenant, taskId, turn],
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.retry);
    await this.tick;
  }

  /** One renewal and sweep, unless the last one is still under way. */
  private run(): void {
    if (this.closed || this.tick !== undefined) return;
    this.tick = (async () => {
      try {
        if (this.held.size > 0) await this.renewOrRetrySoon();
        await this.sweep();
        this.reportedAt = undefined;
      } catch (error) {
        if (!this.closed && this.reportDue()) {
          this.options.onError(storeError("renewing and sweeping turn leases", error));
        }
      } finally {
        this.tick = undefined;
      }
    })();
  }

  /** Whether a failure now is reported: the first of a run of failures, then about one per tick. */
  private reportDue(): boolean {
    const now = performance.now();
    if (this.reportedAt !== undefined && now - this.reportedAt < (this.options.leaseMs / 3) * 0.9) return false;
    this.reportedAt = now;
    return true;
  }

  /** Renews; when that fails, runs again after leaseMs / 30 rather than at the next tick. */
  private async renewOrRetrySoon(): Promise<void> {
    clearTimeout(this.retry);
    try {
      await this.renew();
    } catch (error) {
      const wait = Math.max(1, Math.floor(this.options.leaseMs * RENEW_RETRY_FRACTION));
      this.retry = setTimeout(() => this.run(), wait);
      this.retry.unref();
      throw error;
    }
  }

  private async renew(): Promise<void> {
    await this.db.query(
      `UPDATE ${this.names.q}.tasks SET turn_expires = now() + $2::bigint * interval '1 millisecond'
       WHERE turn_owner = $1 AND turn_id IS NOT NULL`,
      [this.owner, this.options.leaseMs],
    );
  }

  private async sweep(): Promise<void> {
    const expired = await this.db.query<{ tenant: string; id: string; turn_id: string }>(
      `SELECT tenant, id, turn_id FROM ${this.names.q}.tasks
       WHERE turn_id IS NOT NULL AND turn_expires < now() ORDER BY turn_expires LIMIT ${SWEEP_BATCH}`,
    );
    for (const row of expired.rows) {
      if (this.closed) return;
      await this.expire(row.tenant, row.id, row.turn_id);
    }
  }

  /** Ends one expired turn: FAILED when its task is still running it, else only the turn. */
  private async expire(tenant: string, taskId: string, turn: string): Promise<void> {
    // The sweeper acts for no caller: any owner's task.
    const stored = await readTask(this.db, this.names, this.codecs, tenant, taskId, undefined);
    if (stored === undefined || stored.turn !== turn) return;
    if (endsTurn(stored.task.status?.state)) {
      await this.db.query(
        `UPDATE ${this.names.q}.tasks SET turn_id = NULL, turn_owner = NULL, turn_expires = NULL
         WHERE tenant = $1 AND id = $2 AND turn_id = $3 AND turn_expires < now()`,
        [tenant, taskId, turn],
      );
      return;
    }
    const place = { taskId, contextId: stored.task.contextId };
    const task = withStatus(stored.task, TaskState.FAILED, agentMessage(LEASE_FAILURE_TEXT, place, randomUUID));
    const commit = { task, expectedVersion: stored.version, events: [statusEvent(task)] };
    const writer = { owner: this.owner, leaseMs: this.options.leaseMs, expired: turn };
    const written = await this.commits.commit(tenant, commit, writer);
    if (written !== undefined) this.options.onCommit(tenant, taskId, written);
  }
}
