import type { FailureReason } from './event';

// The one place the delivery retry policy is declared. The worker feeds it each attempt's outcome
// and does what it says; BullMQ only keeps time.
export interface RetryPolicy {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryAfterMaxMs: number;
}

export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfter?: string | undefined }
  | { kind: 'network'; code: string; message: string }
  | { kind: 'blocked'; message: string }
  | { kind: 'invalid_target'; message: string };

export type Decision =
  | { action: 'delivered' }
  | { action: 'retry'; delayMs: number; error: string }
  | { action: 'fail'; reason: FailureReason; error: string };

const RETRYABLE_STATUSES = new Set([408, 429]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status) || (status >= 500 && status <= 599);
}

/** Exponential backoff with equal jitter: half the step is fixed, half random, so retries spread out. */
export function backoffDelay(attemptNumber: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** Math.max(0, attemptNumber - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** Retry-After as delta-seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export function decide(
  outcome: AttemptOutcome,
  attemptNumber: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
  nowMs: number = Date.now(),
): Decision {
  if (outcome.kind === 'blocked') return { action: 'fail', reason: 'target_blocked', error: outcome.message };
  if (outcome.kind === 'invalid_target') return { action: 'fail', reason: 'invalid_target', error: outcome.message };
  if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status <= 299) return { action: 'delivered' };

  const error = outcome.kind === 'response' ? `HTTP ${outcome.status}` : `${outcome.code}: ${outcome.message}`;
  // Redirects are never followed and other 4xx mean the target rejected the payload: retrying cannot help.
  if (outcome.kind === 'response' && !isRetryableStatus(outcome.status)) {
    return { action: 'fail', reason: 'http_status', error };
  }
  if (attemptNumber >= policy.maxAttempts) return { action: 'fail', reason: 'retries_exhausted', error };

  let delayMs = backoffDelay(attemptNumber, policy, random);
  if (outcome.kind === 'response') {
    const retryAfter = parseRetryAfter(outcome.retryAfter, nowMs);
    if (retryAfter !== undefined) delayMs = Math.max(delayMs, Math.min(retryAfter, policy.retryAfterMaxMs));
  }
  return { action: 'retry', delayMs, error };
}
