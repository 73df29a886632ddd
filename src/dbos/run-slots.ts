/**
 * The runs a worker process runs at once, whichever way they came: started here directly, taken from
 * the queue, or recovered. DBOS's `workerConcurrency` counts only what its queue handed this process,
 * so a run started directly would not count there; every run takes one of these slots instead, and
 * waits for one when none is free.
 */
export class RunSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Takes a slot when one is free now (and nobody is waiting for one); false otherwise. */
  tryTake(): boolean {
    if (this.#free === 0 || this.#waiting.length > 0) return false;
    this.#free -= 1;
    return true;
  }

  /** Takes a slot, waiting for one (first come, first served). */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a slot back: to the longest waiter, or to the free ones. */
  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }
}
