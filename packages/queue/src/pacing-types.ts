// Pacing settings of a rule (for its primary target) or of a destination, as the pacing limiter takes them.
// The wire shape is snake_case (`rate_limit`, `max_concurrency`); `pacingFromWire` maps it.

export type PacingPeriod = 'second' | 'minute' | 'hour';

export const PERIOD_MS: Record<PacingPeriod, number> = { second: 1_000, minute: 60_000, hour: 3_600_000 };

export interface PacingRateLimit {
  /** Deliveries per period. */
  limit: number;
  period: PacingPeriod;
  /** Deliveries allowed at once after a quiet spell; defaults to `limit`. */
  burst?: number | null;
}

export interface PacingSettings {
  rateLimit?: PacingRateLimit | null;
  maxConcurrency?: number | null;
}

/** The settings as the API and the database spell them. */
export interface PacingWire {
  rate_limit?: { limit: number; period: PacingPeriod; burst?: number | null } | null;
  max_concurrency?: number | null;
}

export const pacingFromWire = (wire: PacingWire): PacingSettings => ({
  rateLimit: wire.rate_limit ?? null,
  maxConcurrency: wire.max_concurrency ?? null,
});

/** True when the settings pace anything: only then does `acquire` ask Redis (unless the key is held). */
export const isPaced = (pacing: PacingSettings | null | undefined): boolean =>
  Boolean(pacing && ((pacing.rateLimit && pacing.rateLimit.limit > 0) || (pacing.maxConcurrency ?? 0) > 0));

/** A limiter key: one per rule (its primary target's deliveries) and one per destination. */
export type PacingKey = `rule:${string}` | `destination:${string}`;

export const rulePacingKey = (ruleId: string): PacingKey => `rule:${ruleId}`;
export const destinationPacingKey = (destinationId: string): PacingKey => `destination:${destinationId}`;

/** What `release` needs: `id` is null when no concurrency slot was taken (nothing to give back). */
export interface PacingLease {
  key: string;
  id: string | null;
}

export type PacingWaitReason = 'hold' | 'rate' | 'concurrency';

export type PacingDecision =
  | {
      granted: true;
      lease: PacingLease;
      /** Redis time of the grant (ms, µs precision); null when Redis was not asked (an unpaced key). */
      grantedAtMs: number | null;
    }
  | { granted: false; retryAfterMs: number; reason: PacingWaitReason };

export interface PacingState {
  /** The configured limit per period (the settings given, else the last ones used), null without a rate. */
  configuredLimit: number | null;
  period: PacingPeriod | null;
  /** The limit in force: the configured one, or less while halved after a 429. */
  effectiveLimit: number | null;
  /** Leases held now (deliveries in flight under max_concurrency). */
  inFlight: number;
  /** Deliveries refused and waiting for their turn (rate, concurrency or hold), those that gave a waiter id. */
  waiting: number;
  /** Until when a Retry-After hold keeps deliveries back, null when none. */
  heldUntil: Date | null;
}
