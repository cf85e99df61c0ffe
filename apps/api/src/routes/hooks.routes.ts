import { AppError, type OrgId, type TargetPolicy } from '@relay/core';
import type { AuditRepository, HookRepository, ProviderRepository } from '@relay/db';
import { Router, type Request } from 'express';
import { accessFor } from '../legacy-access-table';
import { recordAudit } from '../auth/audit-actor';
import { guard, principalOf } from '../auth/guard';
import { idParam } from '../http/params';
import { validate } from '../http/validate';
import { allowedTarget, hookView } from '../rules/rule-views';
import { hookCreateSchema, hookUpdateSchema } from './rules.contract';

export interface HookRouteDeps {
  providers: ProviderRepository;
  hooks: HookRepository;
  audit: AuditRepository;
  targetPolicy: TargetPolicy;
}

/** `/rules/{id}/hooks`: follow-up deliveries attached to one provider. */
export function hookRoutes(deps: HookRouteDeps): Router {
  const router = Router();

  // The provider must be the caller's: another organization's rule id is a 404 like an unknown one.
  async function ruleOf(req: Request, orgId: OrgId): Promise<string> {
    const id = idParam(req, 'id', 'rule');
    if (!(await deps.providers.findById(orgId, id))) throw new AppError('not_found', 'No such rule.');
    return id;
  }

  router.get('/rules/:id/hooks', guard(accessFor('GET /rules/:id/hooks')), async (req, res) => {
    const { orgId } = principalOf(req);
    res.json({ hooks: (await deps.hooks.list(orgId, await ruleOf(req, orgId))).map(hookView) });
  });
  router.post('/rules/:id/hooks', guard(accessFor('POST /rules/:id/hooks')), async (req, res) => {
    const principal = principalOf(req);
    const ruleId = await ruleOf(req, principal.orgId);
    const body = validate(hookCreateSchema, req.body);
    const hook = await deps.hooks.create(principal.orgId, ruleId, {
      targetUrl: allowedTarget(body.target_url, deps.targetPolicy),
      trigger: body.trigger,
      active: body.active,
      description: body.description ?? null,
    });
    await recordAudit(deps.audit, principal, {
      action: 'hook.created',
      resourceType: 'hook',
      resourceId: hook.id,
      metadata: { rule_id: ruleId, trigger: hook.trigger, target_url: hook.targetUrl },
    });
    res.status(201).json(hookView(hook));
  });
  router.patch('/rules/:id/hooks/:hookId', guard(accessFor('PATCH /rules/:id/hooks/:hookId')), async (req, res) => {
    const principal = principalOf(req);
    const ruleId = await ruleOf(req, principal.orgId);
    const hookId = idParam(req, 'hookId', 'hook');
    const body = validate(hookUpdateSchema, req.body);
    const hook = await deps.hooks.update(principal.orgId, ruleId, hookId, {
      ...(body.target_url !== undefined ? { targetUrl: allowedTarget(body.target_url, deps.targetPolicy) } : {}),
      ...(body.active !== undefined ? { active: body.active } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
    });
    if (!hook) throw new AppError('not_found', 'No such hook.');
    await recordAudit(deps.audit, principal, {
      action: 'hook.updated',
      resourceType: 'hook',
      resourceId: hookId,
      metadata: { rule_id: ruleId, changed: Object.keys(body) },
    });
    res.json(hookView(hook));
  });
  router.delete('/rules/:id/hooks/:hookId', guard(accessFor('DELETE /rules/:id/hooks/:hookId')), async (req, res) => {
    const principal = principalOf(req);
    const ruleId = await ruleOf(req, principal.orgId);
    const hookId = idParam(req, 'hookId', 'hook');
    if (!(await deps.hooks.delete(principal.orgId, ruleId, hookId))) throw new AppError('not_found', 'No such hook.');
    await recordAudit(deps.audit, principal, {
      action: 'hook.deleted',
      resourceType: 'hook',
      resourceId: hookId,
      metadata: { rule_id: ruleId },
    });
    res.status(204).end();
  });
  return router;
}
