import { openSecret, type OrgId, type OutboundHeaders, type SecretKeyring } from '@relay/core';
import type { RuleLookup } from './rule-lookup';

/** What a delivery of a rule needs from the rule: its signing secrets and outbound header options. */
export interface RuleSigning {
  /** Newest first: the current secret, then the replaced one while its rotation window lasts. Empty: unsigned. */
  secrets: string[];
  outbound: OutboundHeaders;
}

export type SecretLookup = (orgId: OrgId, providerId: string | null) => Promise<RuleSigning>;

/**
 * The provider's own signing secrets (opened with SECRET_ENCRYPTION_KEYS), else DEFAULT_SIGNING_SECRET;
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
  return async (orgId, providerId) => {
    const provider = await rules(orgId, providerId);
    if (!provider) return { secrets: fallback, outbound: {} };
    if (provider.signingSecret === null) return { secrets: fallback, outbound: provider.outboundHeaders };
    const secrets = [openSecret(keys, provider.signingSecret)];
    const previousActive =
      provider.previousSigningSecret !== null &&
      provider.previousSecretExpiresAt !== null &&
      provider.previousSecretExpiresAt.getTime() > now();
    if (previousActive) secrets.push(openSecret(keys, provider.previousSigningSecret!));
    return { secrets, outbound: provider.outboundHeaders };
  };
}
