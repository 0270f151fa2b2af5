/**
 * What a push sender (push.ts) holds and runs, in all, per webhook host and (what it holds) per task owner, so
 * that one slow, failing or flooded webhook, or one caller's tasks, cannot take what the other deliveries need.
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
 *   turns     an attempt takes its host's turn first (at most maxConcurrentPerHost per host), then one of the
 *             maxConcurrent turns in all: an attempt waiting on its own host holds no turn of the others, so one
 *             host never holds more than maxConcurrentPerHost of them. Each wait is fair by owner (lanes.ts):
 *             the owners waiting for a turn take turns, round robin, each owner's attempts in the order asked,
 *             and owner "" (everyone nobody authenticated) is one owner there. An attempt holds its host's
 *             turn while it waits for one in all: once anyone waits for that host, it goes first among its
 *             owner's waits in all, after those moved up before it (Lanes.first), so that the host's turn is not
 *             held behind the owner's backlog on other hosts. So one caller's backlog, on many hosts or on a
 *             host others use too, no longer waits ahead of another owner's attempts: at each wait, each owner
 *             waiting gets at most one turn before another's next attempt does (an attempt holds it at most
 *             timeoutMs), and another owner waiting for a host the caller holds waits, in the caller's queue,
 *             only for the holders moved up before (at most one per host turn someone waited for), however long
 *             its backlog. Owners have no cap of turns: a turn nobody else waits for goes to whoever asks (an
 *             earlier cap per owner, taken before or together with the others, made attempts wait on turns
 *             they could not use)
 *   cleanup   a host's or owner's entry goes once it holds nothing and no attempt holds or waits for its turn
 */

import { type LaneRequest, Lanes } from "./lanes.js";

export interface ShareLimits {
  readonly maxQueuedBytes: number;
  readonly maxQueuedBytesPerHost: number;
  readonly maxQueuedBytesPerOwner: number;
  readonly maxConcurrent: number;
  readonly maxConcurrentPerHost: number;
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

/** The shares of one kind, by key: what each holds. */
interface Shares {
  /** The share's key for a delivery; undefined: the delivery has none of this kind (owner ""). */
  readonly key: (sharer: Sharer) => string | undefined;
  readonly maxBytes: number;
  /** How a refusal names the limit and what it holds, e.g. "maxQueuedBytesPerHost (n) of deliveries to h". */
  readonly names: (key: string) => string;
  readonly held: Map<string, Held>;
}

/** A wait for an attempt's turns (PushShares.askTurn): `granted` resolves true once both are the caller's. */
export interface TurnRequest {
  readonly granted: Promise<boolean>;
  /** Stops waiting (granted resolves false, no turn held); nothing once granted. */
  withdraw(): void;
  /** Gives both turns back once granted; nothing before, or the second time (so no turn is given twice). */
  give(): void;
}

/** A host's turns, and the waits in all of the attempts that hold one of them (see the header). */
interface HostTurns {
  readonly lanes: Lanes;
  readonly waitingInAll: Set<LaneRequest>;
}

export class PushShares {
  readonly #all = emptyHeld();
  /** By owner and by host (see the header). */
  readonly #kinds: readonly Shares[];
  readonly #turns: Lanes;
  readonly #hostTurns = new Map<string, HostTurns>();

  constructor(private readonly limits: ShareLimits) {
    this.#turns = new Lanes(limits.maxConcurrent);
    const { maxQueuedBytesPerOwner: ownerBytes, maxQueuedBytesPerHost: hostBytes } = limits;
    this.#kinds = [
      {
        key: (s) => (s.owner === "" ? undefined : s.owner),
        maxBytes: ownerBytes,
        // A refusal never names the owner, a caller's identity.
        names: () => `maxQueuedBytesPerOwner (${ownerBytes}) of deliveries for one task owner`,
        held: new Map(),
      },
      {
        key: (s) => s.host,
        maxBytes: hostBytes,
        names: (host) => `maxQueuedBytesPerHost (${hostBytes}) of deliveries to ${host}`,
        held: new Map(),
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

  /**
   * Asks for a turn of the host's, then one in all, each fair by owner (see the header); once granted, give them
   * back with the request's give(). Withdrawn while it waits, it holds neither (a host's turn already taken goes
   * back).
   */
  askTurn({ host, owner }: Sharer): TurnRequest {
    let turns = this.#hostTurns.get(host);
    if (turns === undefined) {
      turns = { lanes: new Lanes(this.limits.maxConcurrentPerHost), waitingInAll: new Set() };
      this.#hostTurns.set(host, turns);
    }
    const ofHost = turns.lanes.ask(owner);
    // This attempt waits for the host: the host's turns held by attempts waiting in all go first among theirs.
    if (turns.lanes.waiting) for (const holder of turns.waitingInAll) holder.first();
    const ofThisHost = turns;
    let inAll: LaneRequest | undefined;
    let withdrawn = false;
    let holds = false;
    const granted = (async () => {
      if (!(await ofHost.granted)) return false;
      if (!withdrawn) {
        const waits = this.#turns.full;
        inAll = this.#turns.ask(owner);
        if (waits) ofThisHost.waitingInAll.add(inAll);
        // Someone waits for the host this attempt holds a turn of: it goes first among its owner's.
        if (waits && ofThisHost.lanes.waiting) inAll.first();
        const got = await inAll.granted;
        ofThisHost.waitingInAll.delete(inAll);
        holds = got;
        if (got) return true;
      }
      this.giveHostTurn(host);
      return false;
    })();
    const withdraw = () => {
      withdrawn = true;
      ofHost.withdraw();
      inAll?.withdraw();
    };
    const give = () => {
      if (!holds) return;
      holds = false;
      try {
        this.#turns.give();
      } finally {
        this.giveHostTurn(host);
      }
    };
    return { granted, withdraw, give };
  }

  private giveHostTurn(host: string): void {
    const turns = this.#hostTurns.get(host);
    if (turns === undefined) return;
    turns.lanes.give();
    if (turns.lanes.unused) this.#hostTurns.delete(host);
  }
}
