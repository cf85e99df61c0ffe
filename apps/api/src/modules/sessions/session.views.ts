import { SCOPES, type Principal } from '@relay/core';
import type { OperatorRecord, OrganizationRecord } from '@relay/db';

const operatorRef = (o: OperatorRecord) => ({ id: o.id, username: o.username });
const userOf = (p: Principal) =>
  p.userId ? { id: p.userId, username: p.username, email: p.email, role: p.role } : null;

/** The answer of a login: the user and its organization, or the platform operator. */
export const loginView = (login: { user: Principal } | { operator: OperatorRecord }) =>
  'operator' in login
    ? { mechanism: 'session' as const, kind: 'operator' as const, operator: operatorRef(login.operator) }
    : { mechanism: 'session' as const, user: userOf(login.user), organization: { id: login.user.orgId } };

export const meView = (principal: Principal, organization: OrganizationRecord | null) => ({
  mechanism: principal.mechanism,
  kind: principal.kind,
  user: userOf(principal),
  organization: organization
    ? { id: organization.id, slug: organization.slug, name: organization.name }
    : { id: principal.orgId },
  role: principal.role,
  scopes: principal.scopes === 'all' ? [...SCOPES] : principal.scopes,
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
