import { AppError, type TargetPolicy } from '@relay/core';
import type { AuditRepository, ProviderRepository, ProviderWrite } from '@relay/db';
import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
import { recordAudit } from '../auth/audit-actor';
import { guard, principalOf } from '../auth/guard';
import { idParam } from '../http/params';
import { validate } from '../http/validate';
import { allowedTarget, ruleView } from '../rules/rule-views';
import { ruleCreateSchema, ruleUpdateSchema } from './rules.contract';

export interface RuleRouteDeps {
  providers: ProviderRepository;
  audit: AuditRepository;
  targetPolicy: TargetPolicy;
}

function written(result: ProviderWrite) {
  if (result.ok) return result.provider;
  if (result.conflict === 'not_found') throw new AppError('not_found', 'No such rule.');
  throw new AppError('active_provider_exists');
}

// Audit metadata names what changed, never the signing secret itself.
const changedFields = (body: Record<string, unknown>) => Object.keys(body).filter((k) => body[k] !== undefined);

/** `/rules`: the organization's providers (source → target), managed by admins. */
export function ruleRoutes(deps: RuleRouteDeps): Router {
  const router = Router();
  router.get('/rules', guard(accessFor('GET /rules')), async (req, res) => {
    res.json({ rules: (await deps.providers.list(principalOf(req).orgId)).map(ruleView) });
  });
  router.post('/rules', guard(accessFor('POST /rules')), async (req, res) => {
    const principal = principalOf(req);
    const body = validate(ruleCreateSchema, req.body);
    const provider = written(
      await deps.providers.create(principal.orgId, {
        source: body.source,
        targetUrl: allowedTarget(body.target_url, deps.targetPolicy),
        active: body.active,
        description: body.description ?? null,
        signingSecret: body.signing_secret ?? null,
      }),
    );
    await recordAudit(deps.audit, principal, {
      action: 'rule.created',
      resourceType: 'rule',
      resourceId: provider.id,
      metadata: { source: provider.source, target_url: provider.targetUrl, active: provider.active },
    });
    res.status(201).json(ruleView(provider));
  });
  router.get('/rules/:id', guard(accessFor('GET /rules/:id')), async (req, res) => {
    const provider = await deps.providers.findById(principalOf(req).orgId, idParam(req, 'id', 'rule'));
    if (!provider) throw new AppError('not_found', 'No such rule.');
    res.json(ruleView(provider));
  });
  router.patch('/rules/:id', guard(accessFor('PATCH /rules/:id')), async (req, res) => {
    const principal = principalOf(req);
    const id = idParam(req, 'id', 'rule');
    const body = validate(ruleUpdateSchema, req.body);
    const provider = written(
      await deps.providers.update(principal.orgId, id, {
        ...(body.source !== undefined ? { source: body.source } : {}),
        ...(body.target_url !== undefined ? { targetUrl: allowedTarget(body.target_url, deps.targetPolicy) } : {}),
        ...(body.active !== undefined ? { active: body.active } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.signing_secret !== undefined ? { signingSecret: body.signing_secret } : {}),
      }),
    );
    await recordAudit(deps.audit, principal, {
      action: 'rule.updated',
      resourceType: 'rule',
      resourceId: id,
      metadata: { changed: changedFields(body) },
    });
    res.json(ruleView(provider));
  });
  router.delete('/rules/:id', guard(accessFor('DELETE /rules/:id')), async (req, res) => {
    const principal = principalOf(req);
    const id = idParam(req, 'id', 'rule');
    const deleted = await deps.providers.delete(principal.orgId, id);
    if (!deleted) throw new AppError('not_found', 'No such rule.');
    await recordAudit(deps.audit, principal, {
      action: 'rule.deleted',
      resourceType: 'rule',
      resourceId: id,
      metadata: { source: deleted.source },
    });
    res.status(204).end();
  });
  return router;
}
