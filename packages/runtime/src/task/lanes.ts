/**
 * At most `size` holders at once, the others waiting: take() or ask() resolves when a lane is the caller's, who
 * calls give() once done. Used by the push sender (its attempts in flight, by webhook host and in all, push-shares.ts)
 * and the URL screen (its host lookups, host-lookups.ts).
 *
 *   order     each waiter asks under a key (push: its task's owner; "" when not given). Waiters of one key are
 *             served in the order they asked; the keys with waiters take turns, round robin, in the order each
 *             began to wait. So a key with many waiters delays another key's next waiter by at most one grant
 *             per key waiting, not by its whole queue; with one key it is plain first come, first served
 *   handover  give() hands the lane straight to the next waiter, so the count of lanes held never dips between
 *             two holders; a grant costs O(1), whatever waits
 *   withdraw  a waiter may withdraw (ask): it leaves its key's queue, and the key leaves the round once empty
 */

/** A wait for a lane: `granted` resolves true once the lane is the caller's, false once withdrawn before. */
export interface LaneRequest {
  readonly granted: Promise<boolean>;
  /** Stops waiting (granted resolves false); nothing once the lane was granted. */
  withdraw(): void;
}

const GRANTED: LaneRequest = { granted: Promise.resolve(true), withdraw: () => {} };

type Waiter = (granted: boolean) => void;

/** At most `size` holders at once, the others waiting by key, round robin (see the header). */
export class Lanes {
  #held = 0;
  /** The waiters of each key in the order they asked; the map's order is the round's (a served key goes last). */
  readonly #waiting = new Map<string, Set<Waiter>>();

  constructor(private readonly size: number) {}

  /** Resolves once a lane is the caller's. */
  async take(): Promise<void> {
    await this.ask().granted;
  }

  /** Asks for a lane under `key` (see the header); the caller may withdraw while it waits. */
  ask(key = ""): LaneRequest {
    if (this.#held < this.size) {
      this.#held += 1;
      return GRANTED;
    }
    let queue = this.#waiting.get(key);
    if (queue === undefined) {
      queue = new Set();
      this.#waiting.set(key, queue);
    }
    const mine = queue;
    let waiter: Waiter | undefined;
    const granted = new Promise<boolean>((resolve) => {
      waiter = resolve;
      mine.add(resolve);
    });
    const withdraw = () => {
      if (waiter === undefined || !mine.delete(waiter)) return;
      if (mine.size === 0 && this.#waiting.get(key) === mine) this.#waiting.delete(key);
      waiter(false);
    };
    return { granted, withdraw };
  }

  /** No lane is held and nobody waits for one. */
  get unused(): boolean {
    return this.#held === 0 && this.#waiting.size === 0;
  }

  /** Gives a lane back: to the next waiter of the next key in the round, if any. */
  give(): void {
    const [key, queue] = this.#waiting.entries().next().value ?? [];
    const next = queue?.values().next().value;
    if (key === undefined || queue === undefined || next === undefined) {
      this.#held -= 1;
      return;
    }
    queue.delete(next);
    // The key served goes last in the round, if it still waits.
    this.#waiting.delete(key);
    if (queue.size > 0) this.#waiting.set(key, queue);
    next(true);
  }
}
