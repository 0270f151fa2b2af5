/**
 * What a push sender (push.ts) holds and runs, in all and per webhook host, so that one slow, failing or
 * flooded webhook cannot take what deliveries to the other hosts need.
 *
 *   host      a delivery's webhook host: its URL's host and port as the WHATWG URL parser writes them
 *             (lower case, default port left out), a trailing dot dropped; a URL that does not parse is its
 *             own host (its attempt is refused anyway)
 *   bytes     a delivery holds its body and its config's length (push.ts configLength), in UTF-16 code units;
 *             a body shared by several deliveries is counted once in all and once per host that holds it.
 *             A delivery that would pass maxQueuedBytes in all, or maxQueuedBytesPerHost for its host, is
 *             refused, unless nothing else is held there (so one delivery larger than a limit still goes)
 *   turns     an attempt takes its host's turn first (at most maxConcurrentPerHost per host), then one of the
 *             maxConcurrent turns in all, each in the order asked: an attempt waiting on its own host holds
 *             no turn of the others, so one host never holds more than maxConcurrentPerHost of them
 *   cleanup   a host's entry goes once it holds nothing and no attempt holds or waits for its turn
 */
import { Lanes } from "./lanes.js";

export interface HostLimits {
  readonly maxQueuedBytes: number;
  readonly maxQueuedBytesPerHost: number;
  readonly maxConcurrent: number;
  readonly maxConcurrentPerHost: number;
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

export class HostShares {
  readonly #all = emptyHeld();
  readonly #held = new Map<string, Held>();
  readonly #turns: Lanes;
  readonly #hostTurns = new Map<string, Lanes>();

  constructor(private readonly limits: HostLimits) {
    this.#turns = new Lanes(limits.maxConcurrent);
  }

  /** Why the delivery cannot be held (the limit it would pass), or undefined when it can. */
  refusal(host: string, body: string, other: number): string | undefined {
    const { maxQueuedBytes, maxQueuedBytesPerHost } = this.limits;
    const all = this.#all;
    if (all.bytes > 0 && all.bytes + more(all, body, other) > maxQueuedBytes) {
      return `the sender holds maxQueuedBytes (${maxQueuedBytes}) of deliveries`;
    }
    const mine = this.#held.get(host);
    if (mine !== undefined && mine.bytes > 0 && mine.bytes + more(mine, body, other) > maxQueuedBytesPerHost) {
      return `the sender holds maxQueuedBytesPerHost (${maxQueuedBytesPerHost}) of deliveries to ${host}`;
    }
    return undefined;
  }

  hold(host: string, body: string, other: number): void {
    add(this.#all, body, other);
    let mine = this.#held.get(host);
    if (mine === undefined) {
      mine = emptyHeld();
      this.#held.set(host, mine);
    }
    add(mine, body, other);
  }

  release(host: string, body: string, other: number): void {
    remove(this.#all, body, other);
    const mine = this.#held.get(host);
    if (mine === undefined) return;
    remove(mine, body, other);
    if (mine.bodies.size === 0) this.#held.delete(host);
  }

  /** Resolves once the caller holds a turn of the host's and one in all; give it back with giveTurn. */
  async takeTurn(host: string): Promise<void> {
    let lanes = this.#hostTurns.get(host);
    if (lanes === undefined) {
      lanes = new Lanes(this.limits.maxConcurrentPerHost);
      this.#hostTurns.set(host, lanes);
    }
    await lanes.take();
    await this.#turns.take();
  }

  giveTurn(host: string): void {
    this.#turns.give();
    const lanes = this.#hostTurns.get(host);
    if (lanes === undefined) return;
    lanes.give();
    if (lanes.unused) this.#hostTurns.delete(host);
  }
}
