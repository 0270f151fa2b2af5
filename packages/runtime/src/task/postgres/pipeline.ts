/**
 * The store's pipelined connections: the statements of the hot path (a
 * commit, a get of a task, each one statement in its own implicit
 * transaction) go to a few connections of the store's own in node-postgres's
 * pipeline mode, which sends a statement without waiting for the answer to
 * the one before. Many calls so share a round trip: one write carries the
 * statements of every call that made one since the last, the server runs
 * them back to back without sleeping between, and one read brings their
 * answers. On one 2-core machine a blocking send and a get of its task went
 * from about 2,900 to 3,900 a second (bench/task-postgres.js), both the
 * instance and the database spending about a quarter less CPU on each.
 *
 *   connections  up to `size` pg clients, made as the pool makes its own (its
 *                Client class and options, the bounds of BOUNDED_POOL_OPTIONS
 *                included) with pipeline: true, each opened on first need.
 *                They are the store's, beside the pool's max: an instance
 *                holds at most max + size connections. The pool's 'connect'
 *                listeners do not run on them
 *   choice       a statement goes to the first open connection with fewer
 *                than DEPTH (8) statements unanswered, else opens one in a
 *                free place, else goes to the connection with the fewest
 *                unanswered. Filling one connection first batches the most:
 *                on a 2-core machine ten clients ran 4.8k operations a second
 *                on one connection against 3.7k spread evenly over two
 *   order        a connection runs and answers its statements in the order
 *                sent; each is followed by its own Sync, so one that fails (a
 *                constraint, a lost lock wait) fails alone. A statement that
 *                waits (on a row lock another connection holds) holds up those
 *                sent behind it on its connection, which a pool would have run
 *                on others
 *   lost         a connection that fails (a restart, the network, a statement
 *                unanswered past query_timeout, after which node-postgres
 *                closes it) fails its unanswered statements with
 *                node-postgres's error, which the store reports as it does the
 *                pool's (store-error.ts: a 503 for a database that cannot
 *                serve now), and is forgotten: the next statement opens
 *                another. Its first 'error' event goes to onError
 *   off          size 0, or a node-postgres without pipeline mode (the
 *                client ignores the option before 8.23): every statement
 *                goes through the pool, as after close()
 *   idle         a connection with nothing unanswered does not keep the
 *                process alive (unref'd, as the store's timers are), so an
 *                agent that never closes its store still exits; it is ref'd
 *                again with its next statement
 *   close        waits until every statement sent has its answer, then ends
 *                the connections
 */
import pg from "pg";

/** What runs one statement: the pool, or the store's pipelined connections. */
export interface StatementRunner {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

/** node-postgres's Client with ref() and unref() on its socket, which @types/pg leaves out. */
interface RefClient extends pg.Client {
  ref(): void;
  unref(): void;
}

/** One pipelined connection: the client, its opening, and how many of its statements await their answer. */
interface Pipelined {
  readonly client: RefClient;
  readonly opened: Promise<unknown>;
  unanswered: number;
}

/** How many unanswered statements a connection takes before the next statement looks further (see choice). */
const DEPTH = 8;

type ClientClass = new (config: pg.ClientConfig & { pipeline: boolean }) => RefClient;

/** The client class the pool makes its connections with (pg-pool keeps it as `Client`), else node-postgres's. */
function clientClassOf(pool: pg.Pool): ClientClass {
  const own = (pool as unknown as { Client?: unknown }).Client;
  return (typeof own === "function" ? own : pg.Client) as ClientClass;
}

export class PipelinedConnections implements StatementRunner {
  private readonly places: (Pipelined | undefined)[];
  private readonly Client: ClientClass;
  private closed = false;
  /** Resolved (and cleared) when the last unanswered statement has its answer, for close(). */
  private drained: (() => void) | undefined;

  constructor(
    private readonly pool: pg.Pool,
    size: number,
    private readonly onError: (error: Error) => void,
  ) {
    this.Client = clientClassOf(pool);
    this.places = size > 0 && PipelinedConnections.supported(this.Client) ? new Array(size).fill(undefined) : [];
  }

  /** Whether `Client` keeps the pipeline option (node-postgres 8.23 and later); making one opens nothing. */
  static supported(Client: new (config: pg.ClientConfig & { pipeline: boolean }) => pg.Client): boolean {
    return new Client({ pipeline: true }).pipeline === true;
  }

  /** How many connections this may open: 0 when every statement goes through the pool. */
  get size(): number {
    return this.places.length;
  }

  async query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    if (this.closed || this.places.length === 0) return this.pool.query<R>(config);
    const connection = this.choose();
    if (connection.unanswered++ === 0) connection.client.ref();
    try {
      await connection.opened;
      return await connection.client.query<R>(config);
    } finally {
      if (--connection.unanswered === 0) {
        connection.client.unref();
        if (this.drained !== undefined && this.unanswered() === 0) this.drained();
      }
    }
  }

  /** The header's choice: the first open connection not DEPTH deep, a new one in a free place, or the least busy. */
  private choose(): Pipelined {
    let least: Pipelined | undefined;
    let free = -1;
    for (let i = 0; i < this.places.length; i++) {
      const place = this.places[i];
      if (place === undefined) {
        if (free < 0) free = i;
      } else if (place.unanswered < DEPTH) {
        return place;
      } else if (least === undefined || place.unanswered < least.unanswered) {
        least = place;
      }
    }
    if (free >= 0) return this.open(free);
    return least as Pipelined;
  }

  /** A new connection in place `at`, forgotten there once it fails or ends. */
  private open(at: number): Pipelined {
    const client = new this.Client({ ...(this.pool.options as pg.ClientConfig), pipeline: true });
    const forget = () => {
      if (this.places[at]?.client === client) this.places[at] = undefined;
    };
    // A killed connection may say so twice (the server's message, then the socket's end): reported once.
    let reported = false;
    client.on("error", (error: Error) => {
      forget();
      if (reported) return;
      reported = true;
      this.onError(new Error(`PostgreSQL task store: pipelined connection: ${error.message}`, { cause: error }));
    });
    client.on("end", forget);
    const opened = client.connect().catch((error: unknown) => {
      forget();
      throw error;
    });
    // Whoever chose it awaits the opening and gets its failure; this only keeps it from being unhandled.
    opened.catch(() => undefined);
    const connection: Pipelined = { client, opened, unanswered: 0 };
    this.places[at] = connection;
    return connection;
  }

  private unanswered(): number {
    return this.places.reduce((sum, place) => sum + (place?.unanswered ?? 0), 0);
  }

  /** Waits for the answers to every statement sent, then ends the connections; later statements use the pool. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.unanswered() > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = undefined;
    const open = this.places.filter((place) => place !== undefined);
    this.places.fill(undefined);
    await Promise.all(open.map((place) => place.client.end().catch(() => undefined)));
  }
}
