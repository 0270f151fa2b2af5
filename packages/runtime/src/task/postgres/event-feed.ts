/**
 * Task events across instances: each store listens on the schema's channel
 * through one connection (listen-connection.ts), taken from its pool while
 * any task is watched and given back once none is (after idleMs).
 *
 *   subscribe    LISTEN is active first, then the task's current version is
 *                read: every later commit notifies after that, so none is
 *                missed; the subscriber gets events of versions above it
 *                (above `from`, without that read, when the caller knows the
 *                version: 0 for a task it is about to create). A
 *                notification or commit of the task heard while that read was
 *                under way makes it look for events at once (else it reads
 *                nothing until one comes)
 *   delivery     per watched task one pump at a time reads the task_events
 *                rows above the lowest version its subscribers have, and
 *                hands each subscriber the versions above its own, in
 *                (version, seq) order: exactly once, in order, whatever the
 *                notifications were (they only say "look now")
 *   own commits  a commit through this store hands its events to the
 *                task's subscribers here at once, without reading them
 *                back (each a copy of the commit's own, as the memory
 *                store hands them), when no read is under way and each
 *                subscriber has had every earlier version (else it pumps,
 *                as a notification).
 *                While such a commit is under way, notifications of its task
 *                wait for it: its own notification may arrive before its
 *                answer, and would else cost a read
 *   gap filling  a notification without ids (payload too long), a reconnect
 *                of the LISTEN connection, a recheck timer (recheckMs) and a
 *                commit through this store pump too, so a lost notification
 *                delays events but never drops them (while they are kept:
 *                see prune.ts). A commit through this store and its
 *                notification name the same version: the second reads
 *                nothing when the read under way was issued after the first,
 *                or every subscriber has been handed that version
 *   failures     a failed read or a throwing listener goes to onError; the
 *                next notification or recheck retries; a lost LISTEN
 *                connection is replaced (listen-connection.ts) and every
 *                watched task read at once
 *   creation     a commit creating a task stores no events and notifies
 *                nobody (commit.ts): its events reach this store's
 *                subscribers from the commit, whatever a read is doing (no
 *                read could find them), and no other. A subscriber elsewhere
 *                that listened before it has version 0 here, and its caller
 *                reads the task next and skips what it read (../store.ts)
 */
import type pg from "pg";
import type { StreamResponse } from "../a2a-types.js";
import { deepCopy } from "../copy.js";
import type { TaskEvent } from "../store.js";
import { taskKey } from "../task-key.js";
import type { StoreCodecs } from "./codec.js";
import type { Written } from "./commit.js";
import { ListenConnection } from "./listen-connection.js";
import type { SqlNames } from "./sql-names.js";

export interface EventFeedOptions {
  readonly recheckMs: number;
  /** How long the LISTEN connection stays after the last watch ends (listen-connection.ts). */
  readonly listenIdleMs: number;
  readonly onError: (error: Error) => void;
}

interface Subscriber {
  readonly listener: (event: TaskEvent) => void;
  /** The last version handed to this subscriber. */
  last: number;
}

interface Watch {
  readonly tenant: string;
  readonly taskId: string;
  readonly subscribers: Set<Subscriber>;
  /** Subscribers reading the version they start from. */
  joining: number;
  /** Commits of the task through this store under way. */
  committing: number;
  /** Counts commits and notifications of the task: a joining subscriber that saw it move looks for events. */
  heard: number;
  /** The highest version notified while a commit was under way (Infinity: one without a version). */
  deferred: number | undefined;
  pumping: boolean;
  again: boolean;
  /** The highest version known committed (a commit through this store, a notification). */
  known: number;
  /** A version the read under way (or the last one) was issued after: it sees every version up to it. */
  covered: number;
}

interface EventRow {
  readonly version: number;
  readonly event: Buffer;
}

export class EventFeed {
  private readonly watches = new Map<string, Watch>();
  private readonly connection: ListenConnection;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: pg.Pool,
    private readonly names: SqlNames,
    private readonly codecs: StoreCodecs,
    private readonly options: EventFeedOptions,
  ) {
    this.connection = new ListenConnection(db, {
      channel: names.channel,
      idleMs: options.listenIdleMs,
      onNotification: (payload) => this.notified(payload),
      onListening: () => this.pumpAll(),
      onError: options.onError,
    });
  }

  /** As TaskStore.subscribe: with `from`, the task's version is not read. */
  async subscribe(
    tenant: string,
    taskId: string,
    listener: (event: TaskEvent) => void,
    from?: number,
  ): Promise<() => Promise<void>> {
    if (this.closed) throw new Error("the store is closed");
    const watch = this.watchOf(tenant, taskId);
    watch.joining++;
    const heard = watch.heard;
    const subscriber: Subscriber = { listener, last: 0 };
    try {
      await this.connection.acquire();
      if (from !== undefined) subscriber.last = from;
      else subscriber.last = await this.versionOf(tenant, taskId);
      watch.subscribers.add(subscriber);
    } finally {
      watch.joining--;
      this.dropIfUnused(watch);
    }
    this.startTimer();
    if (watch.heard !== heard) this.pump(watch);
    return async () => {
      watch.subscribers.delete(subscriber);
      this.dropIfUnused(watch);
    };
  }

  private async versionOf(tenant: string, taskId: string): Promise<number> {
    const { name, text } = this.names.statements.once(
      "version",
      () => `SELECT version FROM ${this.names.q}.tasks WHERE tenant = $1 AND id = $2`,
    );
    const current = await this.db.query<{ version: number }>({ name, text, values: [tenant, taskId] });
    return current.rows[0]?.version ?? 0;
  }

  /**
   * Before a commit of the task through this store; the returned function takes what it wrote (undefined: it
   * wrote nothing or failed) and hands the events on (see own commits in the header).
   */
  commitStarts(tenant: string, taskId: string): (written: Written | undefined) => void {
    const watch = this.watches.get(taskKey(tenant, taskId));
    if (watch !== undefined) watch.committing++;
    return (written) => {
      if (watch !== undefined) watch.committing--;
      if (written !== undefined) this.committed(tenant, taskId, written);
      if (watch === undefined || watch.committing > 0) return;
      const deferred = watch.deferred;
      watch.deferred = undefined;
      if (deferred !== undefined && this.watches.get(taskKey(tenant, taskId)) === watch) {
        this.poke(watch, Number.isFinite(deferred) ? deferred : undefined);
      }
      this.dropIfUnused(watch);
    };
  }

  /** A commit through this store that held: its events go to the subscribers (see own commits in the header). */
  committed(tenant: string, taskId: string, written: Written): void {
    const watch = this.watches.get(taskKey(tenant, taskId));
    if (watch === undefined) return;
    watch.heard++;
    const { version } = written;
    // Events in no row (a creation's) are handed here whatever a read is doing: no read could find them.
    if (written.stored && (watch.pumping || ![...watch.subscribers].every((s) => s.last >= version - 1))) {
      this.poke(watch, version);
      return;
    }
    watch.known = Math.max(watch.known, version);
    // What this store committed is at hand: each subscriber gets a copy of it, not a decoding of its bytes.
    this.deliver(
      watch,
      written.events.map((event) => ({ version, event })),
      deepCopy,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.watches.clear();
    await this.connection.close();
  }

  private watchOf(tenant: string, taskId: string): Watch {
    const k = taskKey(tenant, taskId);
    let watch = this.watches.get(k);
    if (watch === undefined) {
      watch = {
        tenant,
        taskId,
        subscribers: new Set(),
        joining: 0,
        committing: 0,
        heard: 0,
        deferred: undefined,
        pumping: false,
        again: false,
        known: 0,
        covered: 0,
      };
      this.watches.set(k, watch);
    }
    return watch;
  }

  /** Forgets a watch nobody uses; the last one gone, the LISTEN connection may go back to the pool. */
  private dropIfUnused(watch: Watch): void {
    if (watch.subscribers.size > 0 || watch.joining > 0 || watch.committing > 0) return;
    const k = taskKey(watch.tenant, watch.taskId);
    if (this.watches.get(k) === watch) this.watches.delete(k);
    if (this.watches.size === 0) {
      if (this.timer !== undefined) clearInterval(this.timer);
      this.timer = undefined;
      if (!this.closed) this.connection.idle();
    }
  }

  private startTimer(): void {
    if (this.timer !== undefined || this.options.recheckMs <= 0) return;
    this.timer = setInterval(() => this.pumpAll(), this.options.recheckMs);
    this.timer.unref();
  }

  private pumpAll(): void {
    for (const watch of this.watches.values()) this.pump(watch);
  }

  /**
   * Looks for new events of a task now: after a commit, or a notification, of `version` (committed, so a read
   * issued from now on sees it). Nothing is read when the read under way was issued after that version was
   * committed, or every subscriber has been handed it.
   */
  private poke(watch: Watch, version: number | undefined): void {
    if (version !== undefined) {
      if (watch.pumping && version <= watch.covered) return;
      if (!watch.pumping && [...watch.subscribers].every((s) => s.last >= version)) return;
      watch.known = Math.max(watch.known, version);
    }
    this.pump(watch);
  }

  private notified(payload: string | undefined): void {
    let parsed: { t?: unknown; i?: unknown; v?: unknown } = {};
    try {
      parsed = JSON.parse(payload ?? "{}") as { t?: unknown; i?: unknown; v?: unknown };
    } catch {
      // Not ours to judge: look at every watched task.
    }
    if (typeof parsed.t !== "string" || typeof parsed.i !== "string") {
      this.pumpAll();
      return;
    }
    const watch = this.watches.get(taskKey(parsed.t, parsed.i));
    if (watch === undefined) return;
    watch.heard++;
    const version = typeof parsed.v === "number" ? parsed.v : undefined;
    if (watch.committing > 0) watch.deferred = Math.max(watch.deferred ?? 0, version ?? Number.POSITIVE_INFINITY);
    else this.poke(watch, version);
  }

  private pump(watch: Watch): void {
    if (watch.pumping) {
      watch.again = true;
      return;
    }
    watch.pumping = true;
    void this.drain(watch).finally(() => {
      watch.pumping = false;
    });
  }

  private async drain(watch: Watch): Promise<void> {
    do {
      watch.again = false;
      if (this.closed || watch.subscribers.size === 0) return;
      const from = Math.min(...[...watch.subscribers].map((s) => s.last));
      watch.covered = watch.known;
      let rows: EventRow[];
      try {
        const { name, text } = this.names.statements.once(
          "events",
          () => `SELECT version, event FROM ${this.names.q}.task_events
           WHERE tenant = $1 AND task_id = $2 AND version > $3 ORDER BY version, seq`,
        );
        const result = await this.db.query<EventRow>({ name, text, values: [watch.tenant, watch.taskId, from] });
        rows = result.rows;
      } catch (error) {
        if (this.closed) return;
        const where = `reading events of task "${watch.taskId}" (tenant "${watch.tenant}")`;
        this.options.onError(new Error(`PostgreSQL task store: ${where}: ${(error as Error).message}`));
        return;
      }
      this.deliver(watch, rows, (bytes) => this.codecs.event.decode(bytes));
    } while (watch.again);
  }

  /** Hands each subscriber the rows of versions above its last, each event made its own by `own`. */
  private deliver<E>(
    watch: Watch,
    rows: readonly { readonly version: number; readonly event: E }[],
    own: (event: E) => StreamResponse,
  ): void {
    for (const subscriber of [...watch.subscribers]) {
      const start = subscriber.last;
      for (const row of rows) {
        if (row.version <= start || !watch.subscribers.has(subscriber)) continue;
        const event: TaskEvent = {
          tenant: watch.tenant,
          taskId: watch.taskId,
          version: row.version,
          event: own(row.event),
        };
        try {
          subscriber.listener(event);
        } catch (error) {
          this.options.onError(
            new Error(
              `PostgreSQL task store: a subscriber of task "${watch.taskId}" threw: ${(error as Error).message}`,
            ),
          );
        }
        subscriber.last = row.version;
      }
    }
  }
}
