import { openSecret, type OrgId, type OutboundHeaders, type SecretKeyring } from '@relay/core';
import type { RuleLookup } from './rule-lookup';

/** What a delivery of a rule needs from the rule: its signing secrets and outbound header options. */
export interface RuleSigning {
  /** Newest first: the current secret, then the replaced one while its rotation window lasts. Empty: unsigned. */
  secrets: string[];
  outbound: OutboundHeaders;
}

export type SecretLookup = (orgId: OrgId, ruleId: string | null) => Promise<RuleSigning>;

/**
 * The rule's own signing secrets (opened with SECRET_ENCRYPTION_KEYS), else DEFAULT_SIGNING_SECRET;
 * main deliveries and hooks sign alike. A secret sealed with a key this worker lacks throws, so the
 * event is deferred as the relay's own fault rather than sent unsigned.
 */
export function createSecretLookup(
  rules: RuleLookup,
  defaultSecret: string | undefined,
  keys: SecretKeyring | undefined,
  now: () => number = Date.now,
): SecretLookup {
  const fallback = defaultSecret === undefined ? [] : [defaultSecret];
  return async (orgId, ruleId) => {
    const rule = await rules(orgId, ruleId);
    if (!rule) return { secrets: fallback, outbound: {} };
    if (rule.signingSecret === null) return { secrets: fallback, outbound: rule.outboundHeaders };
    const secrets = [openSecret(keys, rule.signingSecret)];
    const previousActive =
      rule.previousSigningSecret !== null &&
      rule.previousSecretExpiresAt !== null &&
      rule.previousSecretExpiresAt.getTime() > now();
    if (previousActive) secrets.push(openSecret(keys, rule.previousSigningSecret!));
    return { secrets, outbound: rule.outboundHeaders };
  };
}
