import type { AuditRepository, OperatorRepository, PlatformRepository } from '@relay/db';
import express, { Router } from 'express';
import { operatorOf, operatorOnly } from '../auth/guard';
import type { PasswordHasher } from '../auth/passwords';
import { parsePagination } from '../http/pagination';
import { idParam } from '../http/params';
import { validate } from '../http/validate';
import { bootstrapOperator } from '../platform/bootstrap-operator';
import {
  createHostedOrganization,
  organizationDetail,
  organizationView,
  updateSubscription,
} from '../platform/hosted-organizations';
import type { IngestHostSettings } from '../platform/ingest-hosts';
import {
  bootstrapSchema,
  organizationCreateSchema,
  organizationListQuery,
  subscriptionPatchSchema,
} from './platform.contract';

export interface PlatformRouteDeps {
  platform: PlatformRepository;
  operators: OperatorRepository;
  audit: AuditRepository;
  passwords: PasswordHasher;
  hosts: IngestHostSettings;
  adminToken: string | undefined;
}

/** `POST /api/platform/bootstrap/operator`: authenticated by PLATFORM_ADMIN_TOKEN, not by a relay credential. */
export function bootstrapRoute(deps: PlatformRouteDeps): Router {
  const router = Router();
  router.post('/api/platform/bootstrap/operator', express.json({ limit: '4kb' }), async (req, res) => {
    const { username } = validate(bootstrapSchema, req.body);
    const header = req.get('authorization');
    const bearer = header?.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : undefined;
    res.status(201).json(await bootstrapOperator(deps, { bearer, username, ip: req.ip }));
  });
  return router;
}

/** `/api/platform/*`: the operator-only console API (sessions of platform operators). */
export function platformRoutes(deps: PlatformRouteDeps): Router {
  const router = Router();
  router.get('/api/platform/overview', operatorOnly, async (_req, res) => {
    const o = await deps.platform.overview();
    res.json({
      organizations: o.organizations,
      organizations_by_subscription: o.organizationsBySubscription,
      users: o.users,
      events: o.events,
      attempts: o.attempts,
    });
  });
  router.get('/api/platform/organizations', operatorOnly, async (req, res) => {
    const query = validate(organizationListQuery, req.query);
    const { organizations, total } = await deps.platform.list(query.search, query.page, query.per_page);
    res.json({
      organizations: organizations.map(organizationView),
      total,
      page: query.page,
      per_page: query.per_page,
      pages: Math.ceil(total / query.per_page),
    });
  });
  router.post('/api/platform/organizations', operatorOnly, async (req, res) => {
    res
      .status(201)
      .json(await createHostedOrganization(deps, operatorOf(req), validate(organizationCreateSchema, req.body)));
  });
  router.get('/api/platform/organizations/:id', operatorOnly, async (req, res) => {
    res.json(await organizationDetail(deps, idParam(req, 'id', 'organization')));
  });
  router.patch('/api/platform/organizations/:id/subscription', operatorOnly, async (req, res) => {
    const id = idParam(req, 'id', 'organization');
    res.json(await updateSubscription(deps, operatorOf(req), id, validate(subscriptionPatchSchema, req.body)));
  });
  router.get('/api/platform/audit', operatorOnly, async (req, res) => {
    const { page, perPage } = parsePagination(req.query);
    res.json(await deps.audit.page(null, page, perPage));
  });
  return router;
}
