import type { RateLimitOption } from '@relay/core';
import { isPaced, type PacingKey, type PacingLimiter, type PacingSettings } from '@relay/queue';
import type { Logger } from 'pino';

// The pacing state one rule or destination read shows (docs/rules.md "Pacing"): read from the workers' limiter in
// Redis. The rest of the answer is in Postgres, so Redis being away or slow never fails or holds the read: after
// `timeoutMs` the state is null and a warning logged. Lists do not ask (one Redis script per row).

export interface PacingStateView {
  effective_limit: number | null;
  period: RateLimitOption['period'] | null;
  in_flight: number;
  waiting: number;
  held_until: string | null;
}

/** What a rule or destination record carries of its pacing. */
interface Paced {
  rateLimit: RateLimitOption | null;
  maxConcurrency: number | null;
}

export type PacingStateReader = (key: PacingKey, paced: Paced) => Promise<PacingStateView | null>;

export interface PacingStateReaderDeps {
  limiter: Pick<PacingLimiter, 'state'>;
  /** REDIS_COMMAND_TIMEOUT_MS: how long the read waits for Redis before answering without the state. */
  timeoutMs: number;
  logger: Logger;
}

class PacingStateTimeout extends Error {}

export function createPacingStateReader(deps: PacingStateReaderDeps): PacingStateReader {
  return async (key, paced) => {
    const pacing: PacingSettings = { rateLimit: paced.rateLimit, maxConcurrency: paced.maxConcurrency };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new PacingStateTimeout()), deps.timeoutMs);
      timer.unref();
    });
    try {
      const state = await Promise.race([deps.limiter.state(key, pacing), timeout]);
      // A Retry-After hold applies to every rule and destination, paced or not: it is shown while it runs.
      if (!isPaced(pacing) && state.heldUntil === null) return null;
      return {
        effective_limit: state.effectiveLimit,
        period: state.period,
        in_flight: state.inFlight,
        waiting: state.waiting,
        held_until: state.heldUntil?.toISOString() ?? null,
      };
    } catch (err) {
      const reason = err instanceof PacingStateTimeout ? `no answer within ${deps.timeoutMs} ms` : 'failed';
      deps.logger.warn({ err, key }, `pacing state: Redis ${reason}; answered without it`);
      return null;
    } finally {
      clearTimeout(timer);
    }
  };
}
