import { policyFor, type RetryPolicy } from '@relay/core';
import type { RuleRecord } from '@relay/db';

/** How a rule's deliveries are retried and timed out: its delivery policy over the install-wide one. */
export interface RuleDeliveryPolicy {
  retry: RetryPolicy;
  /** Absent: the sender's own time-out (DELIVERY_TIMEOUT_MS). */
  timeoutMs?: number;
}

export type RulePolicyLookup = (rule: RuleRecord | null) => RuleDeliveryPolicy;

// Called once per delivery. A rule without a policy (or no rule) shares one object; a rule with one is
// merged once per rule record, and the rule lookup hands out the same record for a run of deliveries,
// so the merge is not redone per event. A record replaced after an API change is merged anew.
export function createRulePolicies(global: RetryPolicy): RulePolicyLookup {
  const standard: RuleDeliveryPolicy = { retry: global };
  const merged = new WeakMap<RuleRecord, RuleDeliveryPolicy>();
  return (rule) => {
    const option = rule?.deliveryPolicy;
    if (!rule || !option) return standard;
    let policy = merged.get(rule);
    if (!policy) {
      policy = { retry: policyFor(global, option) };
      if (option.timeout_seconds !== undefined) policy.timeoutMs = option.timeout_seconds * 1000;
      merged.set(rule, policy);
    }
    return policy;
  };
}
