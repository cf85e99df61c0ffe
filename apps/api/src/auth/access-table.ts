import type { AccessRule } from '@relay/core';

// The authorization table: every authenticated route (method + path) and the least role and API-key
// scope it needs. Routes take their guard from here (`accessFor`), so a route cannot exist without
// a row. Rows are added as the routes of later issues land; docs/authorization.md mirrors this.
export const ACCESS_TABLE = {
  'GET /api/auth/me': { role: 'viewer', scope: null },
} as const satisfies Record<string, AccessRule>;

export type GuardedRoute = keyof typeof ACCESS_TABLE;

export function accessFor(route: GuardedRoute): AccessRule {
  return ACCESS_TABLE[route];
}
