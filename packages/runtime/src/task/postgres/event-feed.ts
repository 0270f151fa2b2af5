/**
 * Task events across instances: each store holds one LISTEN connection (taken
 * from its pool when the first subscriber comes) on the schema's channel.
 *
 *   subscribe    LISTEN is active first, then the task's current version is
 *                read: every later commit notifies after that, so none is
 *                missed; the subscriber gets events of versions above it
 *   delivery     per watched task one pump at a time reads the task_events
 *                rows above the lowest version its subscribers have, and
 *                hands each subscriber the versions above its own, in
 *                (version, seq) order: exactly once, in order, whatever the
 *                notifications were (they only say "look now")
 *   gap filling  a notification without ids (payload too long), a reconnect
 *                of the LISTEN connection, a recheck timer (recheckMs) and a
 *                commit through this store pump too, so a lost notification
 *                delays events but never drops them (while they are kept:
 *                see prune.ts). A commit through this store and its
 *                notification name the same version: the second reads
 *                nothing when the read under way was issued after the first,
 *                or every subscriber has been handed that version
 *   failures     a failed read or a throwing listener goes to onError; the
 *                next notification or recheck retries; a broken LISTEN
 *                connection is replaced, retried with backoff from 100 ms to
 *                MAX_RETRY_MS (2 s) while the database cannot be reached;
 *                the new one reads every watched task at once
 */
import type pg from "pg";
import type { TaskEvent } from "../store.js";
import type { StoreCodecs } from "./codec.js";
import { quoteIdent, type SqlNames } from "./sql-names.js";
import { storeError } from "./store-error.js";

export interface EventFeedOptions {
  readonly recheckMs: number;
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

const key = (tenant: string, taskId: string) => JSON.stringify([tenant, taskId]);

/** The longest wait between two attempts to listen again: a database back from a restart is heard within it. */
const MAX_RETRY_MS = 2000;

export class EventFeed {
  private readonly watches = new Map<string, Watch>();
  private listening: Promise<pg.PoolClient> | undefined;
  /** The connection that listens now, once its LISTEN succeeded. */
  private current: pg.PoolClient | undefined;
  private readonly released = new WeakSet<pg.PoolClient>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private retryMs = 100;

  constructor(
    private readonly db: pg.Pool,
    private readonly names: SqlNames,
    private readonly codecs: StoreCodecs,
    private readonly options: EventFeedOptions,
  ) {}

  async subscribe(tenant: string, taskId: string, listener: (event: TaskEvent) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error("the store is closed");
    await this.listen();
    const current = await this.db.query<{ version: number }>(
      `SELECT version FROM ${this.names.q}.tasks WHERE tenant = $1 AND id = $2`,
      [tenant, taskId],
    );
    const subscriber: Subscriber = { listener, last: current.rows[0]?.version ?? 0 };
    const k = key(tenant, taskId);
    let watch = this.watches.get(k);
    if (watch === undefined) {
      watch = { tenant, taskId, subscribers: new Set(), pumping: false, again: false, known: 0, covered: 0 };
      this.watches.set(k, watch);
    }
    watch.subscribers.add(subscriber);
    this.startTimer();
    this.pump(watch);
    const owner = watch;
    return async () => {
      owner.subscribers.delete(subscriber);
      if (owner.subscribers.size === 0 && this.watches.get(k) === owner) this.watches.delete(k);
    };
  }

  /**
   * Looks for new events of a task now: after a commit through this store, or a notification, of `version`
   * (committed, so a read issued from now on sees it). Nothing is read when the read under way was issued after
   * that version was committed, or every subscriber has been handed it.
   */
  poke(tenant: string, taskId: string, version?: number): void {
    const watch = this.watches.get(key(tenant, taskId));
    if (watch === undefined) return;
    if (version !== undefined) {
      if (watch.pumping && version <= watch.covered) return;
      if (!watch.pumping && [...watch.subscribers].every((s) => s.last >= version)) return;
      watch.known = Math.max(watch.known, version);
    }
    this.pump(watch);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.watches.clear();
    const listening = this.listening;
    this.listening = undefined;
    const client = await listening?.catch(() => undefined);
    this.current = undefined;
    if (client !== undefined) {
      await client.query("UNLISTEN *").catch(() => undefined);
      this.release(client);
    }
  }

  /** Gives a connection back to the pool once (an error destroys it). */
  private release(client: pg.PoolClient, error?: Error): void {
    if (this.released.has(client)) return;
    this.released.add(client);
    client.release(error);
  }

  private startTimer(): void {
    if (this.timer !== undefined || this.options.recheckMs <= 0) return;
    this.timer = setInterval(() => this.pumpAll(), this.options.recheckMs);
    this.timer.unref();
  }

  private pumpAll(): void {
    for (const watch of this.watches.values()) this.pump(watch);
  }

  /** The LISTEN connection, connecting (again) when there is none. */
  private listen(): Promise<pg.PoolClient> {
    this.listening ??= this.connect();
    return this.listening;
  }

  private async connect(): Promise<pg.PoolClient> {
    const client = await this.db.connect().catch((error: Error) => {
      this.listening = undefined;
      throw new Error(`no LISTEN connection: ${error.message}`, { cause: error });
    });
    client.on("notification", (message) => {
      if (message.channel === this.names.channel) this.notified(message.payload);
    });
    const release = (error?: Error) => this.release(client, error);
    // `on`, not `once`: a dying connection may emit more than one error, and an unheard one would be fatal.
    client.on("error", (error: Error) => {
      const current = this.current === client;
      release(error);
      if (current) this.lost(error);
    });
    try {
      await client.query(`LISTEN ${quoteIdent(this.names.channel)}`);
    } catch (error) {
      release(error as Error);
      this.listening = undefined;
      throw new Error(`LISTEN: ${(error as Error).message}`, { cause: error });
    }
    this.retryMs = 100;
    this.current = client;
    // Commits made while no connection listened (a reconnect) are found by reading every watched task.
    setImmediate(() => this.pumpAll());
    return client;
  }

  private lost(error: Error): void {
    this.options.onError(
      new Error(`PostgreSQL task store: LISTEN connection lost: ${error.message}`, { cause: error }),
    );
    this.current = undefined;
    this.listening = undefined;
    if (!this.closed) this.reconnect();
  }

  private reconnect(): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    setTimeout(() => {
      if (this.closed || this.listening !== undefined) return;
      this.listen().catch((error: Error) => {
        this.options.onError(storeError("reconnecting the LISTEN connection", error));
        this.reconnect();
      });
    }, delay).unref();
  }

  private notified(payload: string | undefined): void {
    let parsed: { t?: unknown; i?: unknown; v?: unknown } = {};
    try {
      parsed = JSON.parse(payload ?? "{}") as { t?: unknown; i?: unknown; v?: unknown };
    } catch {
      // Not ours to judge: look at every watched task.
    }
    if (typeof parsed.t === "string" && typeof parsed.i === "string") {
      this.poke(parsed.t, parsed.i, typeof parsed.v === "number" ? parsed.v : undefined);
    } else this.pumpAll();
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
        const result = await this.db.query<EventRow>(
          `SELECT version, event FROM ${this.names.q}.task_events
           WHERE tenant = $1 AND task_id = $2 AND version > $3 ORDER BY version, seq`,
          [watch.tenant, watch.taskId, from],
        );
        rows = result.rows;
      } catch (error) {
        if (this.closed) return;
        const where = `reading events of task "${watch.taskId}" (tenant "${watch.tenant}")`;
        this.options.onError(new Error(`PostgreSQL task store: ${where}: ${(error as Error).message}`));
        return;
      }
      this.deliver(watch, rows);
    } while (watch.again);
  }

  private deliver(watch: Watch, rows: readonly EventRow[]): void {
    for (const subscriber of [...watch.subscribers]) {
      const start = subscriber.last;
      for (const row of rows) {
        if (row.version <= start || !watch.subscribers.has(subscriber)) continue;
        const event: TaskEvent = {
          tenant: watch.tenant,
          taskId: watch.taskId,
          version: row.version,
          event: this.codecs.event.decode(row.event),
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
