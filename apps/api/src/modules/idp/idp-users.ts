import { randomBytes } from 'node:crypto';
import type { Role } from '@relay/core';
import type { IdentityUserRecord, Repositories } from '@relay/db';
import { roleFromClaims, type IdentityProviderConfig } from './identity-provider';
import { IdpLoginFailure } from './idp-login-failure';

export interface IdpClaims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  preferred_username?: unknown;
  [claim: string]: unknown;
}

const systemEntry = (metadata: Record<string, unknown>) => ({ actorUserId: null, actorEmail: null, metadata });

const cleanName = (value: unknown) =>
  typeof value === 'string' ? value.replace(/[^A-Za-z0-9._-]+/g, '').slice(0, 56) : '';

/** preferred_username, else the e-mail's local part, then made unique among users and operators. */
async function freeUsername(repos: Repositories, claims: IdpClaims, email: string): Promise<string> {
  let base = cleanName(claims.preferred_username);
  if (base.length < 3) base = cleanName(email.split('@')[0]);
  if (base.length < 3) base = `user${base}`;
  const candidates = [base, ...Array.from({ length: 9 }, (_, i) => `${base}-${i + 2}`)];
  const taken = await repos.identities.takenUsernames(candidates);
  return candidates.find((name) => !taken.has(name)) ?? `${base}-${randomBytes(3).toString('hex')}`;
}

/** The verified e-mail a provisioned user gets, or why this person may not have a user. */
function provisionableEmail(provider: IdentityProviderConfig, claims: IdpClaims): string {
  if (provider.provisioning === 'off') throw new IdpLoginFailure('not_provisioned');
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  if (!email.includes('@') || claims.email_verified !== true) throw new IdpLoginFailure('email_not_verified');
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (provider.provisioning === 'domains' && !provider.allowedDomains.includes(domain)) {
    throw new IdpLoginFailure('domain_not_allowed');
  }
  return email;
}

async function provision(repos: Repositories, provider: IdentityProviderConfig, claims: IdpClaims, issuer: string) {
  const email = provisionableEmail(provider, claims);
  const role: Role = provider.roleMapping ? roleFromClaims(provider.roleMapping, claims) : 'viewer';
  const username = await freeUsername(repos, claims, email);
  return repos.transaction(async (tx) => {
    const user = await tx.identities.createUser(
      provider.organizationId,
      { username, email, role, roleManagedByIdp: provider.roleMapping !== null },
      { issuer, subject: claims.sub, email },
    );
    await tx.audit.record(provider.organizationId, {
      action: 'user.created',
      resourceType: 'user',
      resourceId: user.id,
      ...systemEntry({ username, role, source: 'idp', issuer }),
    });
    return user;
  });
}

/** With a claim mapping the provider decides the role at every login; the last-admin rule still holds. */
async function applyRoleMapping(
  repos: Repositories,
  provider: IdentityProviderConfig,
  user: IdentityUserRecord,
  claims: IdpClaims,
) {
  const mapping = provider.roleMapping;
  if (user.roleManagedByIdp !== (mapping !== null)) await repos.identities.setRoleManaged(user.id, mapping !== null);
  if (!mapping) return user;
  const role = roleFromClaims(mapping, claims);
  if (role === user.role) return user;
  return repos.transaction(async (tx) => {
    const result = await tx.users.updateRole(provider.organizationId, user.id, role);
    // The last admin stays one (the organization would have nobody to manage it); the login goes on.
    if (result === 'not_found' || result === 'last_admin') return user;
    await tx.audit.record(provider.organizationId, {
      action: 'user.role_updated',
      resourceType: 'user',
      resourceId: user.id,
      ...systemEntry({ from: result.previous, to: role, source: 'idp' }),
    });
    return { ...user, role };
  });
}

/**
 * The user behind a provider's identity: found by (issuer, subject) — never by e-mail alone — or
 * provisioned when the provider's rules allow it. Disabled users and users of another organization are refused.
 */
export async function userForIdentity(
  repos: Repositories,
  provider: IdentityProviderConfig,
  issuer: string,
  claims: IdpClaims,
): Promise<IdentityUserRecord> {
  const found = await repos.identities.findUser(issuer, claims.sub);
  if (!found) return provision(repos, provider, claims, issuer);
  if (found.organizationId !== provider.organizationId) throw new IdpLoginFailure('wrong_organization', found);
  if (found.disabledAt) throw new IdpLoginFailure('user_disabled', found);
  const user = await applyRoleMapping(repos, provider, found, claims);
  await repos.identities.touch(issuer, claims.sub, typeof claims.email === 'string' ? claims.email : null);
  return user;
}
