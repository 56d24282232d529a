/**
 * A counted resource (model requests in flight, pytest runs at once), handed out first come, first served.
 * Waiting is never an interruption: once the signal is aborted, a waiter runs at once without a slot, so that
 * its work (a request or a pytest run given an aborted signal) gives up the way it always does, and the caller
 * decides what the stop means.
 */
export class Slots {
  readonly #size: number;
  #taken = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`a slot count must be a whole number of at least 1, got ${size}`);
    this.#size = size;
  }

  /** Slots in use now. */
  get taken(): number {
    return this.#taken;
  }

  /** Runs `work` holding a slot, waiting for one first. */
  async use<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const held = await this.#acquire(signal);
    try {
      return await work();
    } finally {
      if (held) this.#release();
    }
  }

  /** True once a slot is held; false when the signal ended the wait (nothing is held then). */
  #acquire(signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.#taken < this.#size) {
      this.#taken++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal?.removeEventListener("abort", giveUp);
        this.#taken++;
        resolve(true);
      };
      const giveUp = (): void => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      };
      signal?.addEventListener("abort", giveUp, { once: true });
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    this.#taken--;
    this.#waiting.shift()?.();
  }
}
