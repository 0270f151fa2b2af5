/**
 * At most `size` holders at once, the others waiting: take() or ask() resolves when a lane is the caller's, who
 * calls give() once done. Used by the push sender (its attempts in flight, by webhook host and in all, push-shares.ts)
 * and the URL screen (its host lookups, host-lookups.ts).
 *
 *   order     each waiter asks under a key (push: its task's owner; "" when not given). Waiters of one key are
 *             served in the order they asked, but those moved to the front (first()), which go before the others
 *             in the order they were moved (so a move never passes one made earlier); the keys with waiters
 *             take turns, round robin, in the order each began to wait. So a key with many waiters delays
 *             another key's next waiter by at most one grant per key waiting, not by its whole queue; with one
 *             key it is plain first come, first served
 *   handover  give() hands the lane straight to the next waiter, so the count of lanes held never dips between
 *             two holders; give() with no lane held is a fault of the caller, and throws
 *   withdraw  a waiter may withdraw (ask): it leaves its key's queue, and the key leaves the round once empty
 *   cost      the round and each key's queue are doubly linked lists, and a waiter knows its node: a grant, a
 *             withdrawal and a move to the front are O(1), whatever waits
 */

/** A wait for a lane: `granted` resolves true once the lane is the caller's, false once withdrawn before. */
export interface LaneRequest {
  readonly granted: Promise<boolean>;
  /** Stops waiting (granted resolves false); nothing once the lane was granted. */
  withdraw(): void;
  /** Moves this waiter to the front of its key's queue; nothing once granted or withdrawn. */
  first(): void;
}

const GRANTED: LaneRequest = { granted: Promise.resolve(true), withdraw: () => {}, first: () => {} };

/** A node of a List: linked while in it. */
interface Node<T> {
  prev: T | undefined;
  next: T | undefined;
  linked: boolean;
}

/** A doubly linked list of nodes that know their place: every operation O(1). */
class List<T extends Node<T>> {
  head: T | undefined;
  #tail: T | undefined;

  push(node: T): void {
    node.prev = this.#tail;
    node.next = undefined;
    if (this.#tail === undefined) this.head = node;
    else this.#tail.next = node;
    this.#tail = node;
    node.linked = true;
  }

  /** Puts the node right after `after` (a node in the list), or first when `after` is undefined. */
  insertAfter(node: T, after: T | undefined): void {
    const next = after === undefined ? this.head : after.next;
    node.prev = after;
    node.next = next;
    if (after === undefined) this.head = node;
    else after.next = node;
    if (next === undefined) this.#tail = node;
    else next.prev = node;
    node.linked = true;
  }

  /** Takes the node out; false when it was not in the list. */
  remove(node: T): boolean {
    if (!node.linked) return false;
    if (node.prev === undefined) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.#tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = undefined;
    node.next = undefined;
    node.linked = false;
    return true;
  }
}

interface Waiter extends Node<Waiter> {
  readonly resolve: (granted: boolean) => void;
  /** Moved to the front (first()). */
  moved: boolean;
}

/** A key with waiters: its queue, and its place in the round. */
interface KeyQueue extends Node<KeyQueue> {
  readonly key: string;
  /** Those moved to the front first, in the order moved, then the others in the order they asked. */
  readonly waiters: List<Waiter>;
  /** The last of the waiters moved to the front, if one still waits. */
  lastMoved: Waiter | undefined;
}

/** Takes a waiter out of its key's queue; the moved ones are its first, so the one before the last is moved too. */
function unqueue(queue: KeyQueue, waiter: Waiter): void {
  if (queue.lastMoved === waiter) queue.lastMoved = waiter.prev;
  queue.waiters.remove(waiter);
}

/** At most `size` holders at once, the others waiting by key, round robin (see the header). */
export class Lanes {
  #held = 0;
  /** The keys with waiters, by key. */
  readonly #keys = new Map<string, KeyQueue>();
  /** The same keys in the round's order: the next to be served first. */
  readonly #round = new List<KeyQueue>();

  constructor(private readonly size: number) {}

  /** Resolves once a lane is the caller's. */
  async take(): Promise<void> {
    await this.ask().granted;
  }

  /** Whether every lane is held: a caller asking now waits. */
  get full(): boolean {
    return this.#held >= this.size;
  }

  /** Whether someone waits for a lane. */
  get waiting(): boolean {
    return this.#round.head !== undefined;
  }

  /** No lane is held and nobody waits for one. */
  get unused(): boolean {
    return this.#held === 0 && this.#round.head === undefined;
  }

  /** Asks for a lane under `key` (see the header); the caller may withdraw while it waits. */
  ask(key = ""): LaneRequest {
    if (this.#held < this.size) {
      this.#held += 1;
      return GRANTED;
    }
    let queue = this.#keys.get(key);
    if (queue === undefined) {
      queue = { key, waiters: new List(), lastMoved: undefined, prev: undefined, next: undefined, linked: false };
      this.#keys.set(key, queue);
      this.#round.push(queue);
    }
    const mine = queue;
    let waiter: Waiter | undefined;
    const granted = new Promise<boolean>((resolve) => {
      waiter = { resolve, moved: false, prev: undefined, next: undefined, linked: false };
      mine.waiters.push(waiter);
    });
    const withdraw = () => {
      if (waiter === undefined || !waiter.linked) return;
      unqueue(mine, waiter);
      if (mine.waiters.head === undefined) this.#leave(mine);
      waiter.resolve(false);
    };
    const first = () => {
      if (waiter === undefined || !waiter.linked || waiter.moved) return;
      mine.waiters.remove(waiter);
      mine.waiters.insertAfter(waiter, mine.lastMoved);
      waiter.moved = true;
      mine.lastMoved = waiter;
    };
    return { granted, withdraw, first };
  }

  /** Gives a lane back: to the next waiter of the next key in the round, if any. */
  give(): void {
    const queue = this.#round.head;
    const next = queue?.waiters.head;
    if (queue === undefined || next === undefined) {
      if (this.#held === 0) throw new Error("Lanes.give: no lane is held");
      this.#held -= 1;
      return;
    }
    unqueue(queue, next);
    // The key served goes last in the round, if it still waits.
    this.#round.remove(queue);
    if (queue.waiters.head === undefined) this.#keys.delete(queue.key);
    else this.#round.push(queue);
    next.resolve(true);
  }

  /** A key whose last waiter left leaves the round. */
  #leave(queue: KeyQueue): void {
    this.#round.remove(queue);
    this.#keys.delete(queue.key);
  }
}
