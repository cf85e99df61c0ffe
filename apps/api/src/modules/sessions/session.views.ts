import { checkAccess, SCOPES, type AccessRule, type Principal, type Scope } from '@relay/core';
import type { OperatorRecord, OrganizationRecord } from '@relay/db';

const operatorRef = (o: OperatorRecord) => ({ id: o.id, username: o.username });
const userOf = (p: Principal) =>
  p.userId ? { id: p.userId, username: p.username, email: p.email, role: p.role } : null;

/** The answer of a login: the user and its organization, or the platform operator. */
export const loginView = (login: { user: Principal } | { operator: OperatorRecord }) =>
  'operator' in login
    ? { mechanism: 'session' as const, kind: 'operator' as const, operator: operatorRef(login.operator) }
    : { mechanism: 'session' as const, user: userOf(login.user), organization: { id: login.user.orgId } };

/**
 * The scopes this principal can use on at least one route: a scope counts only where the role
 * suffices too (a viewer's session cannot use `rules:write`, whatever "every scope" says).
 */
export const usableScopes = (principal: Principal, rules: readonly AccessRule[]): Scope[] =>
  SCOPES.filter((scope) => rules.some((rule) => rule.scope === scope && checkAccess(principal, rule).ok));

export const meView = (
  principal: Principal,
  organization: OrganizationRecord | null,
  rules: readonly AccessRule[],
) => ({
  mechanism: principal.mechanism,
  kind: principal.kind,
  user: userOf(principal),
  organization: organization
    ? { id: organization.id, slug: organization.slug, name: organization.name }
    : { id: principal.orgId },
  role: principal.role,
  scopes: usableScopes(principal, rules),
});

/** A platform operator has no organization, role or scopes. */
export const operatorMeView = (operator: OperatorRecord) => ({
  mechanism: 'session' as const,
  kind: 'operator' as const,
  operator: operatorRef(operator),
  user: null,
  organization: null,
  role: null,
  scopes: [],
});

/** `GET /api/auth/me` without credentials: public, and says that none is in effect. */
export const anonymousMeView = () => ({
  mechanism: 'none' as const,
  kind: null,
  user: null,
  organization: null,
  role: null,
  scopes: [],
});
