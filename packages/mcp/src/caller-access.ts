import type { AccessRole, MemberAccess } from '@relay/client';

/** Who the credential is, as GET /api/auth/me reports it: its role and the scopes it can actually use. */
export interface Caller {
  role: AccessRole | null;
  scopes: readonly string[];
}

/** What a tool asks: its operation's row of the authorization table (the generated access map), or nothing. */
export type ToolAccess = MemberAccess | 'public';

const RANK: Record<AccessRole, number> = { viewer: 0, admin: 1 };

/** The same rule as the api's authorization table: at least the role, and the scope among the usable ones. */
export function callerMay(caller: Caller, access: ToolAccess): boolean {
  if (access === 'public') return true;
  if (caller.role === null || RANK[caller.role] < RANK[access.role]) return false;
  return access.scope === null || caller.scopes.includes(access.scope);
}

/** Why a tool is refused, in words an assistant can pass on. */
export function refusalOf(name: string, caller: Caller, access: MemberAccess): string {
  const has = caller.scopes.length ? caller.scopes.join(', ') : 'no scope';
  const needs =
    access.scope === null ? `the ${access.role} role` : `the ${access.scope} scope with the ${access.role} role`;
  return (
    `${name} needs ${needs}; this credential is ` +
    `${caller.role ?? 'no member'} with ${has}. Nothing was done: ask an admin for a key with that scope.`
  );
}
