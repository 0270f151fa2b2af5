/**
 * The one connection a store listens on (LISTEN on the schema's channel),
 * held only while someone needs it:
 *
 *   take      acquire() takes a connection from the pool and LISTENs on it,
 *             once; callers meanwhile wait for the same attempt
 *   release   idle() says nobody needs it now: after idleMs with no
 *             acquire() in between, the connection UNLISTENs and goes back
 *             to the pool (idleMs 0: at once). The next acquire() takes one
 *             again. The wait keeps a server that answers one blocking send
 *             after another from paying LISTEN and UNLISTEN on each
 *   lost      a connection that dies while needed is replaced, retried with
 *             backoff from 100 ms to MAX_RETRY_MS (2 s) while the database
 *             cannot be reached; `onListening` runs after each LISTEN that
 *             follows a loss, since notifications may have been missed.
 *             One that dies while idle is only given up
 *
 * Each connection is released to the pool once (an error destroys it), with
 * this store's listeners taken off it first: the pool hands the same client
 * to other queries later, and may hand it to this store again.
 *
 * Attempts: `listening` is the attempt under way or done. An attempt that
 * fails clears it only while it is still its own (a later one may have
 * replaced it after a release), and only the attempt that is `listening`
 * when it succeeds becomes the connection heard; one let go meanwhile is
 * given back by letGo. close() gives back every connection still taken.
 */
import type pg from "pg";
import { quoteIdent } from "./sql-names.js";
import { storeError } from "./store-error.js";

export interface ListenOptions {
  readonly channel: string;
  /** How long an unneeded connection stays listening before it goes back to the pool. */
  readonly idleMs: number;
  readonly onNotification: (payload: string | undefined) => void;
  /** After a LISTEN that follows a lost connection: events may have been missed. */
  readonly onListening: () => void;
  readonly onError: (error: Error) => void;
}

/** The longest wait between two attempts to listen again: a database back from a restart is heard within it. */
const MAX_RETRY_MS = 2000;

export class ListenConnection {
  private listening: Promise<pg.PoolClient> | undefined;
  /** The connection that listens now, once its LISTEN succeeded. */
  private current: pg.PoolClient | undefined;
  /** The connections taken and not yet given back, each with what takes this store's listeners off it. */
  private readonly taken = new Map<pg.PoolClient, () => void>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private needed = false;
  /** A connection was lost while needed: the next LISTEN is followed by onListening. */
  private missed = false;
  private closed = false;
  private retryMs = 100;

  constructor(
    private readonly db: pg.Pool,
    private readonly options: ListenOptions,
  ) {}

  /** Resolves once a connection listens. */
  async acquire(): Promise<void> {
    if (this.closed) throw new Error("the store is closed");
    this.needed = true;
    this.cancelIdle();
    await (this.listening ?? this.listen());
  }

  /** Nobody needs the connection now: it goes back to the pool after idleMs unless acquire() comes first. */
  idle(): void {
    this.needed = false;
    this.cancelIdle();
    if (this.listening === undefined) return;
    if (this.options.idleMs <= 0) {
      void this.letGo();
      return;
    }
    this.idleTimer = setTimeout(() => void this.letGo(), this.options.idleMs);
    this.idleTimer.unref?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelIdle();
    await this.letGo();
    for (const client of [...this.taken.keys()]) this.release(client, new Error("the store is closed"));
  }

  private cancelIdle(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** UNLISTEN and back to the pool; a later acquire() takes a connection anew. */
  private async letGo(): Promise<void> {
    this.idleTimer = undefined;
    const listening = this.listening;
    this.listening = undefined;
    this.current = undefined;
    const client = await listening?.catch(() => undefined);
    if (client === undefined) return;
    await client.query("UNLISTEN *").catch(() => undefined);
    this.release(client);
  }

  /** Gives a connection back once, without this store's listeners: the pool hands the same client out again. */
  private release(client: pg.PoolClient, error?: Error): void {
    const detach = this.taken.get(client);
    if (detach === undefined) return;
    this.taken.delete(client);
    detach();
    client.release(error);
  }

  /** Starts an attempt and makes it `listening` (see the header). */
  private listen(): Promise<pg.PoolClient> {
    const attempt: Promise<pg.PoolClient> = this.connect().then(
      (client) => {
        if (this.listening !== attempt) return client; // let go meanwhile: letGo gives it back
        this.current = client;
        this.retryMs = 100;
        // Commits made while no connection listened (a reconnect) are found by reading every watched task.
        if (this.missed) {
          this.missed = false;
          setImmediate(() => this.options.onListening());
        }
        return client;
      },
      (error: unknown) => {
        if (this.listening === attempt) this.listening = undefined;
        throw error;
      },
    );
    this.listening = attempt;
    return attempt;
  }

  /** A connection from the pool that LISTENs, its listeners on; given back when anything fails. */
  private async connect(): Promise<pg.PoolClient> {
    const client = await this.db.connect().catch((error: Error) => {
      throw new Error(`no LISTEN connection: ${error.message}`, { cause: error });
    });
    if (this.closed) {
      client.release();
      throw new Error("the store is closed");
    }
    const onNotification = (message: pg.Notification) => {
      if (message.channel === this.options.channel) this.options.onNotification(message.payload);
    };
    // A dying connection may emit more than one error: after the first, one that stays heard, so none is fatal.
    const ignore = () => undefined;
    const onError = (error: Error) => {
      const current = this.current === client;
      client.on("error", ignore);
      this.release(client, error);
      if (current) this.lost(error);
    };
    client.on("notification", onNotification);
    client.on("error", onError);
    this.taken.set(client, () => {
      client.off("notification", onNotification);
      client.off("error", onError);
    });
    try {
      await client.query(`LISTEN ${quoteIdent(this.options.channel)}`);
    } catch (error) {
      this.release(client, error as Error);
      throw new Error(`LISTEN: ${(error as Error).message}`, { cause: error });
    }
    return client;
  }

  private lost(error: Error): void {
    this.current = undefined;
    this.listening = undefined;
    if (!this.needed || this.closed) return;
    this.missed = true;
    this.options.onError(
      new Error(`PostgreSQL task store: LISTEN connection lost: ${error.message}`, { cause: error }),
    );
    this.reconnect();
  }

  private reconnect(): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    const timer = setTimeout(() => {
      if (this.closed || !this.needed || this.listening !== undefined) return;
      this.listen().catch((error: Error) => {
        this.options.onError(storeError("reconnecting the LISTEN connection", error));
        // A later attempt (an acquire after a release) carries on instead of this one.
        if (this.listening === undefined) this.reconnect();
      });
    }, delay);
    timer.unref?.();
  }
}
