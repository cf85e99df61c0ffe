import type { TargetPolicy } from '@relay/core';
import type { OrgId } from '@relay/core';
import type { AuditRepository, DomainRepository, OrganizationRepository } from '@relay/db';
import type { HostResolver } from '../platform/host-resolver';
import { ingestUrlsOf, type IngestHostSettings } from '../platform/ingest-hosts';
import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
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
  hosts: IngestHostSettings;
  domains: Pick<DomainRepository, 'list'>;
  organizationOf: HostResolver;
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
    await recordAudit(deps.audit, principal, {
      action: 'config.default_target_updated',
      resourceType: 'organization',
      resourceId: principal.orgId,
      metadata: { from: previous, to: url },
    });
    res.json(effective(url));
  });
  // Public: the caller's organization when credentials are sent, else the organization of the Host asked.
  router.get('/config/endpoint', async (req, res) => {
    const orgId: OrgId | null =
      req.principal?.orgId ?? (await deps.organizationOf(req.hostname ?? '').catch(() => null));
    const org = orgId ? await deps.organizations.findById(orgId) : null;
    const active = org
      ? (await deps.domains.list(org.id)).filter((d) => d.status === 'active').map((d) => d.domain)
      : [];
    const urls = org ? ingestUrlsOf(deps.hosts, org, active) : [];
    const ingestUrl = urls[0] ?? `${base}/`;
    res.json({
      base_url: base,
      ingest_url: ingestUrl,
      source_url_template: `${ingestUrl}{source}`,
      organization: org ? { id: org.id, slug: org.slug } : null,
      ingest_urls: urls,
    });
  });
  router.get('/config/oauth', (_req, res) => {
    const enabled = Boolean(deps.oidc.issuer && deps.oidc.clientId);
    res.json({
      enabled,
      provider: enabled ? 'oidc' : null,
      issuer: enabled ? deps.oidc.issuer : null,
      login_url: enabled ? '/api/auth/idp' : null,
    });
  });
  return router;
}
