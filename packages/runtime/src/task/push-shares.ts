/**
 * What a push sender (push.ts) holds and runs, in all, per webhook host and per task owner, so that one slow,
 * failing or flooded webhook, or one caller's tasks, cannot take what the other deliveries need.
 *
 *   host      a delivery's webhook host: its URL's host and port as the WHATWG URL parser writes them
 *             (lower case, default port left out), a trailing dot dropped; a URL that does not parse is its
 *             own host (its attempt is refused anyway)
 *   owner     the owner of the delivery's task (StoredPushConfig.owner, access.ts), whatever its tenant: a
 *             caller who names many tenants is one owner. Owner "" (callers nobody authenticated, who share
 *             their tasks) has no share of its own: it is bounded by the limits in all and per host
 *   bytes     a delivery holds its body and its config's length (push.ts configLength), in UTF-16 code units;
 *             a body shared by several deliveries is counted once in all and once per host or owner that holds
 *             it. A delivery that would pass maxQueuedBytes in all, maxQueuedBytesPerHost for its host or
 *             maxQueuedBytesPerOwner for its owner is refused, unless nothing else is held there (so one
 *             delivery larger than a limit still goes)
 *   turns     an attempt takes a turn of its owner's (at most maxConcurrentPerOwner per owner), one of its
 *             host's (maxConcurrentPerHost) and one of the maxConcurrent in all together, once all three are
 *             free, and holds none while it waits: an owner waiting on a slow host keeps its turns for its
 *             other hosts, and a host waiting on a busy owner keeps its turns for the other owners. A turn given
 *             back goes to the first waiters, in the order asked, that it lets through; a waiter may withdraw
 *   cleanup   a host's or owner's entry goes once it holds nothing and no attempt holds its turn
 */

export interface ShareLimits {
  readonly maxQueuedBytes: number;
  readonly maxQueuedBytesPerHost: number;
  readonly maxQueuedBytesPerOwner: number;
  readonly maxConcurrent: number;
  readonly maxConcurrentPerHost: number;
  readonly maxConcurrentPerOwner: number;
}

/** Whose a delivery is, for the shares (see the header). */
export interface Sharer {
  readonly host: string;
  readonly owner: string;
}

/** A delivery's webhook host (see the header). */
export function webhookHost(url: string): string {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return url;
  }
  return host.replace(/\.(?=$|:\d*$)/, "");
}

interface Held {
  bytes: number;
  /** The bodies held, each with the number of deliveries holding it. */
  readonly bodies: Map<string, number>;
}

function emptyHeld(): Held {
  return { bytes: 0, bodies: new Map() };
}

/** Adds a delivery to a holding. */
function add(held: Held, body: string, other: number): void {
  const n = held.bodies.get(body) ?? 0;
  held.bytes += (n === 0 ? body.length : 0) + other;
  held.bodies.set(body, n + 1);
}

/** Takes a delivery out of a holding. */
function remove(held: Held, body: string, other: number): void {
  held.bytes -= other;
  const n = held.bodies.get(body) ?? 0;
  if (n > 1) {
    held.bodies.set(body, n - 1);
    return;
  }
  held.bodies.delete(body);
  held.bytes -= body.length;
}

/** What a delivery adds to a holding. */
function more(held: Held, body: string, other: number): number {
  return (held.bodies.has(body) ? 0 : body.length) + other;
}

/** The shares of one kind, by key: what each holds, and the turns its attempts hold. */
interface Shares {
  /** The share's key for a delivery; undefined: the delivery has none of this kind (owner ""). */
  readonly key: (sharer: Sharer) => string | undefined;
  readonly maxBytes: number;
  readonly maxTurns: number;
  /** How a refusal names the limit and what it holds, e.g. "maxQueuedBytesPerHost (n) of deliveries to h". */
  readonly names: (key: string) => string;
  readonly held: Map<string, Held>;
  readonly turns: Map<string, number>;
}

/** An attempt's wait for its turns: `granted` resolves true once they are its own, false once withdrawn. */
export interface TurnRequest {
  readonly granted: Promise<boolean>;
  /** Stops waiting (granted resolves false); nothing once the turns were granted. */
  withdraw(): void;
}

interface Waiter {
  readonly sharer: Sharer;
  readonly grant: (granted: boolean) => void;
}

export class PushShares {
  readonly #all = emptyHeld();
  /** Turns held in all. */
  #turns = 0;
  /** The attempts waiting for their turns, in the order asked. */
  readonly #waiting: Waiter[] = [];
  /** By owner and by host (see the header). */
  readonly #kinds: readonly Shares[];

  constructor(private readonly limits: ShareLimits) {
    const { maxQueuedBytesPerOwner: ownerBytes, maxQueuedBytesPerHost: hostBytes } = limits;
    this.#kinds = [
      {
        key: (s) => (s.owner === "" ? undefined : s.owner),
        maxBytes: ownerBytes,
        maxTurns: limits.maxConcurrentPerOwner,
        // A refusal never names the owner, a caller's identity.
        names: () => `maxQueuedBytesPerOwner (${ownerBytes}) of deliveries for one task owner`,
        held: new Map(),
        turns: new Map(),
      },
      {
        key: (s) => s.host,
        maxBytes: hostBytes,
        maxTurns: limits.maxConcurrentPerHost,
        names: (host) => `maxQueuedBytesPerHost (${hostBytes}) of deliveries to ${host}`,
        held: new Map(),
        turns: new Map(),
      },
    ];
  }

  /** Why the delivery cannot be held (the limit it would pass), or undefined when it can. */
  refusal(sharer: Sharer, body: string, other: number): string | undefined {
    const { maxQueuedBytes } = this.limits;
    const all = this.#all;
    if (all.bytes > 0 && all.bytes + more(all, body, other) > maxQueuedBytes) {
      return `the sender holds maxQueuedBytes (${maxQueuedBytes}) of deliveries`;
    }
    for (const kind of this.#kinds) {
      const key = kind.key(sharer);
      const mine = key === undefined ? undefined : kind.held.get(key);
      if (key === undefined || mine === undefined || mine.bytes === 0) continue;
      if (mine.bytes + more(mine, body, other) > kind.maxBytes) return `the sender holds ${kind.names(key)}`;
    }
    return undefined;
  }

  hold(sharer: Sharer, body: string, other: number): void {
    add(this.#all, body, other);
    for (const kind of this.#kinds) {
      const key = kind.key(sharer);
      if (key === undefined) continue;
      let mine = kind.held.get(key);
      if (mine === undefined) {
        mine = emptyHeld();
        kind.held.set(key, mine);
      }
      add(mine, body, other);
    }
  }

  release(sharer: Sharer, body: string, other: number): void {
    remove(this.#all, body, other);
    for (const kind of this.#kinds) {
      const key = kind.key(sharer);
      const mine = key === undefined ? undefined : kind.held.get(key);
      if (key === undefined || mine === undefined) continue;
      remove(mine, body, other);
      if (mine.bodies.size === 0) kind.held.delete(key);
    }
  }

  /** Asks for an attempt's turns (see the header); give them back with giveTurn once granted. */
  askTurn(sharer: Sharer): TurnRequest {
    if (this.#free(sharer)) {
      this.#take(sharer);
      return { granted: Promise.resolve(true), withdraw: () => {} };
    }
    let waiter: Waiter | undefined;
    const granted = new Promise<boolean>((resolve) => {
      waiter = { sharer, grant: resolve };
      this.#waiting.push(waiter);
    });
    const withdraw = () => {
      const at = this.#waiting.indexOf(waiter as Waiter);
      if (at < 0) return;
      this.#waiting.splice(at, 1);
      waiter?.grant(false);
    };
    return { granted, withdraw };
  }

  /** Gives an attempt's turns back, to the first waiters they let through. */
  giveTurn(sharer: Sharer): void {
    this.#turns -= 1;
    for (const kind of this.#kinds) {
      const key = kind.key(sharer);
      const held = key === undefined ? undefined : kind.turns.get(key);
      if (key === undefined || held === undefined) continue;
      if (held > 1) kind.turns.set(key, held - 1);
      else kind.turns.delete(key);
    }
    // A turn given back lets through at most one waiter of each of its three kinds.
    let at = 0;
    while (at < this.#waiting.length && this.#turns < this.limits.maxConcurrent) {
      const waiter = this.#waiting[at] as Waiter;
      if (!this.#free(waiter.sharer)) {
        at += 1;
        continue;
      }
      this.#waiting.splice(at, 1);
      this.#take(waiter.sharer);
      waiter.grant(true);
    }
  }

  /** Whether a turn in all, and one of the sharer's owner and host, are free. */
  #free(sharer: Sharer): boolean {
    if (this.#turns >= this.limits.maxConcurrent) return false;
    for (const kind of this.#kinds) {
      const key = kind.key(sharer);
      if (key !== undefined && (kind.turns.get(key) ?? 0) >= kind.maxTurns) return false;
    }
    return true;
  }

  #take(sharer: Sharer): void {
    this.#turns += 1;
    for (const kind of this.#kinds) {
      const key = kind.key(sharer);
      if (key !== undefined) kind.turns.set(key, (kind.turns.get(key) ?? 0) + 1);
    }
  }
}
