import { AppError, type Principal } from '@relay/core';
import type { Repositories } from '@relay/db';
import { audited } from '../audit-entry';
import type { IdpClaims } from './idp-users';

/**
 * Links a provider identity to the signed-in user (`GET /api/auth/idp?link=1`): only ever to the user whose
 * session started the link, and never an identity another user has already (that would hand them this account).
 */
export async function linkIdentity(
  repos: Repositories,
  principal: Principal,
  issuer: string,
  claims: IdpClaims,
  ip: string | undefined,
): Promise<void> {
  const userId = principal.userId!;
  const identity = { issuer, subject: claims.sub, email: typeof claims.email === 'string' ? claims.email : null };
  const fact = { resourceType: 'user', resourceId: userId, metadata: { issuer, subject: claims.sub, ip } };
  const result = await repos.transaction(async (tx) => {
    const linked = await tx.identities.link(userId, identity);
    if (linked === 'linked') {
      await audited(tx, principal, { action: 'user.identity_linked', ...fact });
    }
    return linked;
  });
  if (result === 'taken') {
    await audited(repos, principal, { action: 'user.identity_link_refused', ...fact });
    throw new AppError('identity_taken');
  }
}
