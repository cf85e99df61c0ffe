import * as oidc from 'openid-client';
import { IdpLoginFailure, type IdpFailureReason } from './idp-login-failure';

export const failure = (reason: IdpFailureReason, detail?: string) => new IdpLoginFailure(reason, null, detail);

type ErrorLike = { name?: string; message?: string; code?: string; cause?: unknown; claim?: unknown };

const causes = (err: unknown): ErrorLike[] => {
  const chain: ErrorLike[] = [];
  for (let at = err; at && typeof at === 'object' && chain.length < 5; at = (at as ErrorLike).cause) chain.push(at);
  return chain;
};

// A connection refused or timed out anywhere down the cause chain (fetch wraps them; realms differ, so by name). A
// URL the target policy refuses is answered the same way: an organization admin who names an internal address
// (as the issuer or in its discovery document) must not learn which internal ports are open.
const unreachable = (err: unknown) =>
  causes(err).some(
    (e) =>
      (e.name === 'TypeError' && /fetch failed/i.test(e.message ?? '')) ||
      e.name === 'TimeoutError' ||
      e.name === 'AbortError' ||
      e.code === 'OAUTH_TIMEOUT' ||
      e.code === 'ERR_TARGET_BLOCKED' ||
      e.code === 'ERR_JWKS_TIMEOUT' ||
      /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH)$/.test(e.code ?? ''),
  );

/** openid-client's errors, sorted into the reasons a person can act on. */
export function classify(err: unknown): IdpLoginFailure {
  if (err instanceof IdpLoginFailure) return err;
  if (err instanceof oidc.ResponseBodyError) return failure('code_rejected', err.error);
  if (err instanceof oidc.AuthorizationResponseError) return failure('provider_error', err.error);
  if (unreachable(err)) return failure('provider_unreachable');
  // A failed claim check (nonce, issuer, audience, expiry) names the claim in its cause.
  const claim = causes(err).find((e) => typeof e.claim === 'string')?.claim;
  if (typeof claim === 'string') return failure('id_token_invalid', `unexpected "${claim}" claim`);
  return failure('id_token_invalid', (err instanceof Error ? err.message : String(err)).slice(0, 200));
}
