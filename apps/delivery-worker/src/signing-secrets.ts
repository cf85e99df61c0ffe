import type { OrgId } from '@relay/core';
import type { ProviderRepository } from '@relay/db';

export type SecretLookup = (orgId: OrgId, providerId: string | null) => Promise<string | null>;

/** The provider's own signing secret, else DEFAULT_SIGNING_SECRET; main deliveries and hooks sign alike. */
export function createSecretLookup(providers: ProviderRepository, defaultSecret: string | undefined): SecretLookup {
  return async (orgId, providerId) => {
    if (providerId !== null) {
      const provider = await providers.findById(orgId, providerId);
      if (provider?.signingSecret) return provider.signingSecret;
    }
    return defaultSecret ?? null;
  };
}
