import { createHash } from 'node:crypto';
import type { TargetPolicy } from '@relay/core';
import * as jose from 'jose';
import * as oidc from 'openid-client';
import { createGuardedFetch, type GuardedFetch } from './guarded-fetch';
import type { IdentityProviderConfig } from './identity-provider';

/** A provider as a login uses it: openid-client's Configuration (discovered metadata, client authentication). */
export interface OidcClient {
  configuration: oidc.Configuration;
  /**
   * The ID token's signature checked against the provider's key set (fetched again when a token names a key it
   * lacks: rotation), and its issuer, audience, expiry, issue time and nonce. openid-client checks the claims but
   * not the signature of an ID token from the token endpoint (the TLS channel is its only proof there).
   */
  verifyIdToken(idToken: string, nonce: string): Promise<jose.JWTPayload>;
}

export interface OidcConfigurations {
  of(provider: IdentityProviderConfig): Promise<OidcClient>;
}

export interface OidcConfigurationsOptions {
  timeoutSeconds: number;
  /** The delivery network policy: an organization's provider and everything its discovery names must pass it. */
  targetPolicy: TargetPolicy;
  /** How long a discovery result is used before it is fetched again (a provider may move endpoints or keys). */
  maxAgeMs?: number;
  /** The guarded fetch (tests inject one whose lookup answers fixed addresses). */
  guardedFetch?: GuardedFetch;
  now?: () => number;
}

/** A discovery result is fetched again after an hour. */
export const DISCOVERY_MAX_AGE_MS = 60 * 60_000;
/** The provider's key set is fetched again after ten minutes, and at once for a key it does not hold. */
const KEYS_MAX_AGE_MS = 10 * 60_000;
/** What openid-client allows too: a provider's clock a little ahead or behind. */
const CLOCK_TOLERANCE_SECONDS = 30;
// Asymmetric only: an HS* token would be "signed" with the client secret, which proves nothing about the provider.
const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const keyOf = (p: IdentityProviderConfig) =>
  createHash('sha256')
    .update(JSON.stringify([p.issuer, p.clientId, p.clientSecret ?? null, p.trusted]))
    .digest('hex');

function keySet(configuration: oidc.Configuration, fetch: GuardedFetch | undefined, timeoutSeconds: number) {
  const uri = configuration.serverMetadata().jwks_uri;
  if (!uri) return null;
  return jose.createRemoteJWKSet(new URL(uri), {
    timeoutDuration: timeoutSeconds * 1000,
    cacheMaxAge: KEYS_MAX_AGE_MS,
    // A token naming an unknown key refetches at once: a provider that rotated is followed at the next login. The
    // tokens come from the provider's own token endpoint, so only the provider could make us fetch its keys often.
    cooldownDuration: 0,
    ...(fetch ? { [jose.customFetch]: fetch } : {}),
  });
}

/**
 * Discovery per provider and client, used for `maxAgeMs` and then fetched again; a failed discovery is forgotten,
 * so a provider that comes back is found again at the next login. An organization's provider is fetched through
 * the guarded fetch (the target policy at connect time); the operator's OIDC_* provider is trusted as configured.
 */
export function createOidcConfigurations(options: OidcConfigurationsOptions): OidcConfigurations {
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? DISCOVERY_MAX_AGE_MS;
  const guarded = options.guardedFetch ?? createGuardedFetch(options.targetPolicy);
  const cache = new Map<string, { at: number; client: Promise<OidcClient> }>();

  const discover = async (provider: IdentityProviderConfig): Promise<OidcClient> => {
    const fetch = provider.trusted ? undefined : guarded;
    const auth = provider.clientSecret ? oidc.ClientSecretBasic(provider.clientSecret) : oidc.None();
    // Plain http passes config validation only on a loopback address (issuer-url.ts).
    const insecure = new URL(provider.issuer).protocol === 'http:';
    const configuration = await oidc.discovery(new URL(provider.issuer), provider.clientId, undefined, auth, {
      timeout: options.timeoutSeconds,
      execute: insecure ? [oidc.allowInsecureRequests] : [],
      ...(fetch ? { [oidc.customFetch]: fetch } : {}),
    });
    configuration.timeout = options.timeoutSeconds;
    const keys = keySet(configuration, fetch, options.timeoutSeconds);
    return {
      configuration,
      async verifyIdToken(idToken, nonce) {
        if (!keys) throw new Error('the provider names no key set (jwks_uri), so no ID token can be verified');
        const { payload } = await jose.jwtVerify(idToken, keys, {
          issuer: configuration.serverMetadata().issuer,
          audience: provider.clientId,
          algorithms: SIGNING_ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['sub', 'iat', 'exp'],
        });
        if (payload.nonce !== nonce) {
          throw new jose.errors.JWTClaimValidationFailed('unexpected "nonce" claim value', payload, 'nonce');
        }
        return payload;
      },
    };
  };

  return {
    of(provider) {
      const key = keyOf(provider);
      const found = cache.get(key);
      if (found && now() - found.at < maxAgeMs) return found.client;
      const entry = { at: now(), client: discover(provider) };
      cache.set(key, entry);
      entry.client.catch(() => {
        if (cache.get(key) === entry) cache.delete(key);
      });
      return entry.client;
    },
  };
}
