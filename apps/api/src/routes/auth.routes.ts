import type { OrganizationRepository } from '@relay/db';
import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
import { guard, principalOf } from '../auth/guard';

/** `GET /api/auth/me`: who is calling, and through which mechanism (session, token or basic). */
export function authRoutes(deps: { organizations: OrganizationRepository }): Router {
  const router = Router();
  router.get(
    '/api/auth/me',
    (req, res, next) => {
      // A platform operator has no organization, role or scopes.
      if (!req.operator) return next();
      res.json({
        mechanism: 'session',
        kind: 'operator',
        operator: { id: req.operator.id, username: req.operator.username },
        user: null,
        organization: null,
        role: null,
        scopes: [],
      });
    },
    guard(accessFor('GET /api/auth/me')),
    async (req, res) => {
      const principal = principalOf(req);
      const organization = await deps.organizations.findById(principal.orgId);
      res.json({
        mechanism: principal.mechanism,
        kind: principal.kind,
        user: principal.userId
          ? { id: principal.userId, username: principal.username, email: principal.email, role: principal.role }
          : null,
        organization: organization
          ? { id: organization.id, slug: organization.slug, name: organization.name }
          : { id: principal.orgId },
        role: principal.role,
        scopes:
          principal.scopes === 'all'
            ? ['events:read', 'webhooks:send', 'rules:read', 'rules:write', 'organization:manage']
            : principal.scopes,
      });
    },
  );
  return router;
}
