import { AppError } from '@relay/core';

// Bounds the webhooks one api process is storing at once (INGEST_MAX_IN_FLIGHT). Past the bound a webhook is refused
// at once with 503 `ingest_overloaded` and Retry-After, and nothing is stored. It bounds the wait on the store: a
// Postgres that is slow but up (a long lock, a saturated disk) otherwise leaves every arriving webhook waiting for its
// group commit, in memory, until answers come later than providers wait (~10 s for many) and they send again. Only
// the store's wait counts (webhook.service.ts), not the body's, so senders that trickle their bodies in hold no slot.
// A process short of CPU is another matter: there requests wait before ingest runs, and the bound is not reached
// (docs/performance.md, "A bound on webhooks in flight").
const RETRY_AFTER_SECONDS = 1;

export interface InFlightLimit {
  /** Webhooks this process is storing now (the relay_ingest_in_flight gauge). */
  readonly count: number;
  /** Runs `work` as one webhook in flight; throws `ingest_overloaded` without running it when the bound is reached. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** `max` 0: no bound. */
export function createInFlightLimit(max: number): InFlightLimit {
  let count = 0;
  return {
    get count() {
      return count;
    },
    async run(work) {
      if (max > 0 && count >= max) {
        throw new AppError('ingest_overloaded', undefined, { limit: max, retry_after_seconds: RETRY_AFTER_SECONDS });
      }
      count += 1;
      try {
        return await work();
      } finally {
        count -= 1;
      }
    },
  };
}
