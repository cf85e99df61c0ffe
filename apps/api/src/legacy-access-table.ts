import type { AccessRule } from '@relay/core';

// The authorization table: every authenticated route (method + path) and the least role and API-key
// scope it needs. Routes take their guard from here (`accessFor`), so a route cannot exist without
// a row. Rows are added as the routes of later issues land; docs/authorization.md mirrors this.
export const LEGACY_ACCESS_TABLE = {
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
  // Events: reading needs events:read; re-sending needs webhooks:send; deleting stored data is an
  // organization-management act, so an automation key that may retry cannot erase history.
  'GET /events': { role: 'viewer', scope: 'events:read' },
  'GET /events/sources': { role: 'viewer', scope: 'events:read' },
  'GET /events/stream': { role: 'viewer', scope: 'events:read' },
  'GET /events/:id': { role: 'viewer', scope: 'events:read' },
  'GET /events/:id/attempts': { role: 'viewer', scope: 'events:read' },
  'POST /events/:id/retry': { role: 'admin', scope: 'webhooks:send' },
  'POST /events/:id/ack': { role: 'admin', scope: 'webhooks:send' },
  'DELETE /events/:id': { role: 'admin', scope: 'organization:manage' },
  'POST /events/bulk/retry': { role: 'admin', scope: 'webhooks:send' },
  'POST /events/bulk/delete': { role: 'admin', scope: 'organization:manage' },
  'GET /stats': { role: 'viewer', scope: 'events:read' },
  // Rules (providers) and their hooks decide where payloads go.
  'GET /rules': { role: 'viewer', scope: 'rules:read' },
  'POST /rules': { role: 'admin', scope: 'rules:write' },
  'GET /rules/:id': { role: 'viewer', scope: 'rules:read' },
  'PATCH /rules/:id': { role: 'admin', scope: 'rules:write' },
  'DELETE /rules/:id': { role: 'admin', scope: 'rules:write' },
  'GET /rules/:id/hooks': { role: 'viewer', scope: 'rules:read' },
  'POST /rules/:id/hooks': { role: 'admin', scope: 'rules:write' },
  'PATCH /rules/:id/hooks/:hookId': { role: 'admin', scope: 'rules:write' },
  'DELETE /rules/:id/hooks/:hookId': { role: 'admin', scope: 'rules:write' },
  // The default target is routing, like a rule.
  'POST /config/default-target': { role: 'admin', scope: 'rules:write' },
  'POST /api/send': { role: 'admin', scope: 'webhooks:send' },
  // Custom ingest domains decide which host feeds the organization: organization management.
  'GET /api/domains': { role: 'admin', scope: 'organization:manage' },
  'POST /api/domains': { role: 'admin', scope: 'organization:manage' },
  'POST /api/domains/:id/verify': { role: 'admin', scope: 'organization:manage' },
  'DELETE /api/domains/:id': { role: 'admin', scope: 'organization:manage' },
} as const satisfies Record<string, AccessRule>;

export type GuardedRoute = keyof typeof LEGACY_ACCESS_TABLE;

export function accessFor(route: GuardedRoute): AccessRule {
  return LEGACY_ACCESS_TABLE[route];
}
