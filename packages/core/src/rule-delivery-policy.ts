import type { RetryPolicy } from './retry-policy';
import type { DeliveryPolicyOption } from './rule-options';

/**
 * A rule's retry policy: each field of its delivery policy over the install-wide one. A base above
 * the global cap (with no cap of the rule's own) raises the cap to the base, so the rule's base is
 * never silently cut to the global cap; a rule's cap below the global base makes every wait the cap.
 * Retry-After stays install-wide (RETRY_AFTER_MAX_MS): it bounds what a target may ask of the relay.
 */
export function policyFor(global: RetryPolicy, option: DeliveryPolicyOption | null | undefined): RetryPolicy {
  if (!option) return global;
  const backoffBaseMs =
    option.backoff_base_seconds !== undefined ? option.backoff_base_seconds * 1000 : global.backoffBaseMs;
  const backoffMaxMs =
    option.backoff_cap_seconds !== undefined
      ? option.backoff_cap_seconds * 1000
      : Math.max(global.backoffMaxMs, option.backoff_base_seconds !== undefined ? backoffBaseMs : 0);
  return {
    maxAttempts: option.max_attempts ?? global.maxAttempts,
    backoffBaseMs,
    backoffMaxMs,
    retryAfterMaxMs: global.retryAfterMaxMs,
  };
}
