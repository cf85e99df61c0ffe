import type { AttemptOutcome, RateLimitOption } from '@relay/core';
import { retryAfterUntil, type PacingLease, type PacingLimiter, type PacingSettings } from '@relay/queue';
import type { Logger } from 'pino';

// Pacing of deliveries (docs/rules.md "Pacing"), the worker's side: before an attempt to the primary (key
// rule:<id>) or a destination (destination:<id>) the limiter grants it or says how long to wait; the wait goes
// back to BullMQ's delayed set as a step of the job (stages/job-step.ts), so it counts no attempt. The answer
// then feeds the limiter back: a 429 or 503 with Retry-After holds the key in every worker (every rule, paced or
// not), a 429 halves a rate limit, a success steps a halved one back up.

/** What the worker paces by: a rule's or destination's settings as they are stored. */
export interface PacedBy {
  rateLimit: RateLimitOption | null;
  maxConcurrency: number | null;
}

export const pacingOf = (owner: PacedBy): PacingSettings => ({
  rateLimit: owner.rateLimit,
  maxConcurrency: owner.maxConcurrency,
});

/** A granted attempt's pacing: released when the attempt ends, told the answer. */
export interface PacingTicket {
  key: string;
  settings: PacingSettings;
  lease: PacingLease;
}

export type PacingAsk = { ticket: PacingTicket } | { waitMs: number };

export interface DeliveryPacing {
  /**
   * Asks for one attempt on `key` for `waiter` (the event's or the delivery's id: a refused one is counted as
   * waiting in the pacing state until granted). Throws when Redis cannot be asked for a paced key (a relay
   * fault: deferred).
   */
  ask(key: string, owner: PacedBy, waiter: string): Promise<PacingAsk>;
  /** Gives the concurrency slot back (never throws). */
  release(ticket: PacingTicket): Promise<void>;
  /** Tells the limiter the attempt's answer (never throws: pacing is bookkeeping, the outcome is stored anyway). */
  heard(ticket: PacingTicket, outcome: AttemptOutcome): Promise<void>;
}

export function createDeliveryPacing(limiter: PacingLimiter, logger: Logger, now = Date.now): DeliveryPacing {
  return {
    async ask(key, owner, waiter) {
      const settings = pacingOf(owner);
      const decision = await limiter.acquire(key, settings, waiter);
      if (!decision.granted) return { waitMs: decision.retryAfterMs };
      return { ticket: { key, settings, lease: decision.lease } };
    },
    release: (ticket) => limiter.release(ticket.lease),
    async heard({ key, settings }, outcome) {
      if (outcome.kind !== 'response') return;
      const { status } = outcome;
      try {
        if (status === 429 || status === 503) {
          const until = retryAfterUntil(outcome.retryAfter, now());
          if (until !== null) await limiter.hold(key, until);
        }
        if (status === 429) await limiter.slowDown(key, settings);
        else if (status >= 200 && status < 300) await limiter.recordSuccess(key, settings);
      } catch (err) {
        logger.warn({ err, key, status }, 'pacing not told of an answer (Redis); the next answers tell it');
      }
    },
  };
}
