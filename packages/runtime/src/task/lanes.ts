/**
 * At most `size` holders at once, the others waiting in order: take() resolves when a lane is the caller's,
 * who calls give() once done; give() hands the lane straight to the next waiter, so the count of lanes held
 * never dips between two holders; a waiter may withdraw (ask). Used by the push sender (its attempts in flight,
 * push.ts) and the URL screen (its host lookups, host-lookups.ts).
 */

/** A wait for a lane: `granted` resolves true once the lane is the caller's, false once withdrawn before. */
export interface LaneRequest {
  readonly granted: Promise<boolean>;
  /** Stops waiting (granted resolves false); nothing once the lane was granted. */
  withdraw(): void;
}

const GRANTED: LaneRequest = { granted: Promise.resolve(true), withdraw: () => {} };

/** At most `size` holders at once, the others waiting in order (see the header). */
export class Lanes {
  #held = 0;
  readonly #waiting: ((granted: boolean) => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves once a lane is the caller's. */
  async take(): Promise<void> {
    await this.ask().granted;
  }

  /** Asks for a lane, in order; the caller may withdraw while it waits. */
  ask(): LaneRequest {
    if (this.#held < this.size) {
      this.#held += 1;
      return GRANTED;
    }
    let waiter: ((granted: boolean) => void) | undefined;
    const granted = new Promise<boolean>((resolve) => {
      waiter = resolve;
      this.#waiting.push(resolve);
    });
    const withdraw = () => {
      const at = waiter === undefined ? -1 : this.#waiting.indexOf(waiter);
      if (at < 0) return;
      this.#waiting.splice(at, 1);
      waiter?.(false);
    };
    return { granted, withdraw };
  }

  /** No lane is held and nobody waits for one. */
  get unused(): boolean {
    return this.#held === 0 && this.#waiting.length === 0;
  }

  /** Gives a lane back: to the next waiter, if any. */
  give(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(true);
    else this.#held -= 1;
  }
}
