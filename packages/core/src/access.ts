import type { OrgId } from './ids';

export const ROLES = ['viewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ['events:read', 'webhooks:send', 'rules:read', 'rules:write', 'organization:manage'] as const;
export type Scope = (typeof SCOPES)[number];

export type Mechanism = 'session' | 'token' | 'basic';

/** Who is calling. Users act with their role and every scope; API keys only with their scopes. */
export interface Principal {
  kind: 'user' | 'api_key';
  mechanism: Mechanism;
  orgId: OrgId;
  role: Role;
  scopes: readonly Scope[] | 'all';
  userId: string | null;
  username: string | null;
  email: string | null;
  /** The API key or personal token in use, if any. */
  credentialId: string | null;
}

/** A user acting through one mechanism: the user's role, every scope. */
export function userPrincipal(
  user: { id: string; organizationId: OrgId; role: Role; username: string; email: string },
  mechanism: Mechanism,
  credentialId: string | null = null,
): Principal {
  return {
    kind: 'user',
    mechanism,
    orgId: user.organizationId,
    role: user.role,
    scopes: 'all',
    userId: user.id,
    username: user.username,
    email: user.email,
    credentialId,
  };
}

/** One row of the authorization table: the least role and the API-key scope a route needs. */
export interface AccessRule {
  role: Role;
  /** null: the route acts on the caller's own resources (personal tokens, `me`), no scope applies. */
  scope: Scope | null;
}

const RANK: Record<Role, number> = { viewer: 0, admin: 1 };

export type AccessDecision = { ok: true } | { ok: false; reason: 'role' | 'scope' };

export function checkAccess(principal: Principal, rule: AccessRule): AccessDecision {
  if (RANK[principal.role] < RANK[rule.role]) return { ok: false, reason: 'role' };
  if (rule.scope !== null && principal.scopes !== 'all' && !principal.scopes.includes(rule.scope))
    return { ok: false, reason: 'scope' };
  return { ok: true };
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
