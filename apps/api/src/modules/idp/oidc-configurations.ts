import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import type { IdentityProviderConfig } from './identity-provider';

/** openid-client's Configuration of a provider: its discovered metadata, keys cache and client authentication. */
export type OidcConfiguration = oidc.Configuration;

export interface OidcConfigurations {
  of(provider: IdentityProviderConfig): Promise<OidcConfiguration>;
}

const keyOf = (p: IdentityProviderConfig) =>
  createHash('sha256')
    .update(JSON.stringify([p.issuer, p.clientId, p.clientSecret ?? null]))
    .digest('hex');

/**
 * Discovery once per provider and client (a Configuration also caches the provider's signing keys);
 * a failed discovery is forgotten, so a provider that comes back is found again at the next login.
 */
export function createOidcConfigurations(options: { timeoutSeconds: number }): OidcConfigurations {
  const cache = new Map<string, Promise<OidcConfiguration>>();
  const discover = async (provider: IdentityProviderConfig) => {
    const auth = provider.clientSecret ? oidc.ClientSecretBasic(provider.clientSecret) : oidc.None();
    // Plain http passes config validation only on a loopback address (issuer-url.ts).
    const insecure = new URL(provider.issuer).protocol === 'http:';
    const configuration = await oidc.discovery(new URL(provider.issuer), provider.clientId, undefined, auth, {
      timeout: options.timeoutSeconds,
      execute: insecure ? [oidc.allowInsecureRequests] : [],
    });
    configuration.timeout = options.timeoutSeconds;
    return configuration;
  };
  return {
    of(provider) {
      const key = keyOf(provider);
      let found = cache.get(key);
      if (!found) {
        found = discover(provider);
        cache.set(key, found);
        found.catch(() => cache.delete(key));
      }
      return found;
    },
  };
}
