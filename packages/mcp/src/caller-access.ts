import type { ToolRole, ToolScope } from './tool-kit';

/** Who the credential is, as GET /api/auth/me reports it: its role and the scopes it can actually use. */
export interface Caller {
  role: ToolRole | null;
  scopes: readonly string[];
}

const RANK: Record<ToolRole, number> = { viewer: 0, admin: 1 };

/** The same rule as the api's authorization table: at least the role, and the scope among the usable ones. */
export function callerMay(caller: Caller, access: { role: ToolRole; scope: ToolScope }): boolean {
  return caller.role !== null && RANK[caller.role] >= RANK[access.role] && caller.scopes.includes(access.scope);
}

/** Why a tool is refused, in words an assistant can pass on. */
export function refusalOf(name: string, caller: Caller, access: { role: ToolRole; scope: ToolScope }): string {
  const has = caller.scopes.length ? caller.scopes.join(', ') : 'no scope';
  return (
    `${name} needs the ${access.scope} scope with the ${access.role} role; this credential is ` +
    `${caller.role ?? 'no member'} with ${has}. Nothing was done: ask an admin for a key with that scope.`
  );
}
