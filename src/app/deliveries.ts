import type { Context } from "probot";

/**
 * The delivery ids (`X-GitHub-Delivery`) being handled or handled already, so that a
 * redelivered webhook (GitHub keeps its id) starts nothing twice. Oldest forgotten first.
 *
 * In memory, so it holds for one process: a restart or a second replica forgets it. A person's
 * request also carries a marker in its answer (request-once.ts), which survives both; this log
 * is the cheap first check, and the only one for events that are no person's request.
 */
export class DeliveryLog {
  readonly #ids = new Set<string>();

  constructor(readonly capacity = 1_000) {}

  /** True the first time an id is seen; false while it is handled or after it was. */
  claim(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    // A Set iterates in insertion order: the first id is the oldest.
    if (this.#ids.size > this.capacity) this.#ids.delete(this.#ids.values().next().value!);
    return true;
  }

  /** Forgets an id whose handling failed, so that GitHub's redelivery of it is handled again. */
  release(id: string): void {
    this.#ids.delete(id);
  }
}

/** The handler, run once per delivery id; a delivery that failed may be redelivered. */
export function oncePerDelivery<C extends Context>(
  log: DeliveryLog,
  handler: (context: C) => Promise<void>,
): (context: C) => Promise<void> {
  return async (context) => {
    if (!log.claim(context.id)) {
      context.log.info(`delivery ${context.id} was handled already: ignored`);
      return;
    }
    try {
      await handler(context);
    } catch (error) {
      log.release(context.id);
      throw error;
    }
  };
}
