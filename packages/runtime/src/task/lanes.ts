/**
 * At most `size` holders at once, the others waiting in order: take() resolves when a lane is the caller's,
 * who calls give() once done; give() hands the lane straight to the next waiter, so the count of lanes held
 * never dips between two holders. Used by the push sender (its attempts in flight, push.ts) and the URL
 * screen (its host lookups, host-lookups.ts).
 */
export class Lanes {
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves once a lane is the caller's. */
  async take(): Promise<void> {
    if (this.#held < this.size) {
      this.#held += 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** No lane is held and nobody waits for one. */
  get unused(): boolean {
    return this.#held === 0 && this.#waiting.length === 0;
  }

  /** Gives a lane back: to the next waiter, if any. */
  give(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#held -= 1;
  }
}
