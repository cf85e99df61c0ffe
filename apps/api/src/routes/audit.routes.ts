import type { AuditRepository } from '@relay/db';
import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
import { guard, principalOf } from '../auth/guard';
import { parsePagination } from '../http/pagination';

export function auditRoutes(deps: { audit: AuditRepository }): Router {
  const router = Router();
  router.get('/api/audit', guard(accessFor('GET /api/audit')), async (req, res) => {
    const { page, perPage } = parsePagination(req.query);
    res.json(await deps.audit.page(principalOf(req).orgId, page, perPage));
  });
  return router;
}
