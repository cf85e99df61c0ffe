import type { TargetPolicy } from '@relay/core';
import type { AuditRepository, OrganizationRepository } from '@relay/db';
import { Router } from 'express';
import { accessFor } from '../auth/access-table';
import { recordAudit } from '../auth/audit-actor';
import { guard, principalOf } from '../auth/guard';
import { validate } from '../http/validate';
import { allowedTarget } from '../rules/rule-views';
import { defaultTargetSchema } from './settings.contract';

export interface SettingsDeps {
  organizations: OrganizationRepository;
  audit: AuditRepository;
  targetPolicy: TargetPolicy;
  installDefaultTarget: string | undefined;
  /** PUBLIC_BASE_URL. */
  publicBaseUrl: string;
  oidc: { issuer: string | undefined; clientId: string | undefined };
}

/** `/config/*`: the organization's default target (admin) and two public discovery answers. */
export function settingsRoutes(deps: SettingsDeps): Router {
  const router = Router();
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const effective = (own: string | null) => ({
    target_url: own,
    effective_target_url: own ?? deps.installDefaultTarget ?? null,
    effective_from: own ? ('organization' as const) : deps.installDefaultTarget ? ('install' as const) : null,
  });

  router.post('/config/default-target', guard(accessFor('POST /config/default-target')), async (req, res) => {
    const principal = principalOf(req);
    const { target_url } = validate(defaultTargetSchema, req.body);
    const url = target_url === null ? null : allowedTarget(target_url, deps.targetPolicy);
    const previous = await deps.organizations.defaultTarget(principal.orgId);
    await deps.organizations.setDefaultTarget(principal.orgId, url);
    await recordAudit(deps.audit, principal, { action: 'config.default_target_updated', resourceType: 'organization', resourceId: principal.orgId, metadata: { from: previous, to: url } });
    res.json(effective(url));
  });
  router.get('/config/endpoint', (_req, res) => {
    res.json({ base_url: base, ingest_url: `${base}/`, source_url_template: `${base}/{source}` });
  });
  router.get('/config/oauth', (_req, res) => {
    const enabled = Boolean(deps.oidc.issuer && deps.oidc.clientId);
    res.json({ enabled, provider: enabled ? 'oidc' : null, issuer: enabled ? deps.oidc.issuer : null, login_url: enabled ? '/api/auth/idp' : null });
  });
  return router;
}
