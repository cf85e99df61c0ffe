import type { AccessRule } from '@relay/core';

// The authorization table: every authenticated route (method + path) and the least role and API-key
// scope it needs. Routes take their guard from here (`accessFor`), so a route cannot exist without
// a row. Rows are added as the routes of later issues land; docs/authorization.md mirrors this.
export const ACCESS_TABLE = {
  'GET /api/auth/me': { role: 'viewer', scope: null },
  'GET /api/audit': { role: 'viewer', scope: 'events:read' },
  'GET /api/api-keys': { role: 'admin', scope: 'organization:manage' },
  'POST /api/api-keys': { role: 'admin', scope: 'organization:manage' },
  'DELETE /api/api-keys/:id': { role: 'admin', scope: 'organization:manage' },
  'GET /api/auth/tokens': { role: 'viewer', scope: null },
  'POST /api/auth/tokens': { role: 'viewer', scope: null },
  'DELETE /api/auth/tokens/:id': { role: 'viewer', scope: null },
  'GET /api/users': { role: 'admin', scope: 'organization:manage' },
  'POST /api/users': { role: 'admin', scope: 'organization:manage' },
  'PATCH /api/users/:id/role': { role: 'admin', scope: 'organization:manage' },
  'GET /api/organization': { role: 'viewer', scope: 'events:read' },
} as const satisfies Record<string, AccessRule>;

export type GuardedRoute = keyof typeof ACCESS_TABLE;

export function accessFor(route: GuardedRoute): AccessRule {
  return ACCESS_TABLE[route];
}
