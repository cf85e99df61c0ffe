export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 15_000 };

/**
 * The wait before reconnection attempt `attempt` (1, 2, …): exponential from `initialMs`, capped at `maxMs`, with
 * "equal jitter" (half fixed, half random) so many clients dropped by one api restart do not return in lockstep,
 * yet none retries sooner than half the nominal delay.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const nominal = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(nominal / 2 + random() * (nominal / 2));
}
