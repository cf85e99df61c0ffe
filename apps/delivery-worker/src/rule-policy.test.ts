import type { RetryPolicy } from '@relay/core';
import type { RuleRecord } from '@relay/db';
import { createRulePolicies } from './rule-policy';

const global: RetryPolicy = {
  maxAttempts: 10,
  backoffBaseMs: 10_000,
  backoffMaxMs: 3_600_000,
  retryAfterMaxMs: 60_000,
};
// Only the delivery policy of a rule matters here.
const ruleWith = (deliveryPolicy: RuleRecord['deliveryPolicy']) => ({ deliveryPolicy }) as RuleRecord;

describe('rule delivery policies in the worker', () => {
  it('shares one global policy, without a time-out of its own, for rules without a policy and for no rule', () => {
    const policyOf = createRulePolicies(global);
    const none = policyOf(null);
    expect(none).toEqual({ retry: global });
    expect(policyOf(ruleWith(null))).toBe(none);
  });

  it("merges a rule's policy once per rule record and gives its time-out in milliseconds", () => {
    const policyOf = createRulePolicies(global);
    const rule = ruleWith({ max_attempts: 2, timeout_seconds: 3 });
    const first = policyOf(rule);
    expect(first).toEqual({ retry: { ...global, maxAttempts: 2 }, timeoutMs: 3_000 });
    expect(policyOf(rule)).toBe(first);
    // A record read again after an API change is merged anew.
    expect(policyOf(ruleWith({ max_attempts: 4 }))).toEqual({ retry: { ...global, maxAttempts: 4 } });
  });
});
