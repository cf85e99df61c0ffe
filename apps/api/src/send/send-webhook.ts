import { AppError, type Principal, type TargetPolicy } from '@relay/core';
import type { AuditRepository, OrganizationRepository, ProviderRepository } from '@relay/db';
import type { z } from 'zod';
import { recordAudit } from '../auth/audit-actor';
import type { IngestService } from '../ingest/ingest.service';
import { allowedTarget } from '../rules/rule-views';
import type { sendSchema } from '../routes/send.contract';

export interface SendDeps {
  ingest: IngestService;
  providers: ProviderRepository;
  organizations: OrganizationRepository;
  audit: AuditRepository;
  targetPolicy: TargetPolicy;
  /** DEFAULT_TARGET_URL, used when the organization has no default of its own. */
  installDefaultTarget: string | undefined;
}

type Route = { source: string; targetUrl: string; providerId: string | null };

async function routeOf(deps: SendDeps, principal: Principal, request: z.output<typeof sendSchema>): Promise<Route> {
  if ('provider_id' in request) {
    const provider = await deps.providers.findById(principal.orgId, request.provider_id);
    if (!provider) throw new AppError('not_found', 'No such provider.');
    if (!provider.active) throw new AppError('provider_inactive');
    return { source: provider.source, targetUrl: provider.targetUrl, providerId: provider.id };
  }
  if (request.target_url !== '')
    return {
      source: request.source,
      targetUrl: allowedTarget(request.target_url, deps.targetPolicy),
      providerId: null,
    };
  const fallback = (await deps.organizations.defaultTarget(principal.orgId)) ?? deps.installDefaultTarget;
  if (!fallback) throw new AppError('no_default_target');
  return { source: request.source, targetUrl: fallback, providerId: null };
}

/** `POST /api/send`: an admin-made webhook, stored and delivered through the normal pipeline. */
export async function sendWebhook(deps: SendDeps, principal: Principal, request: z.output<typeof sendSchema>) {
  const route = await routeOf(deps, principal, request);
  const id = await deps.ingest.accept({
    orgId: principal.orgId,
    source: route.source,
    body: Buffer.from(JSON.stringify(request.body)),
    headers: { 'content-type': 'application/json' },
    targetOverride: route.targetUrl,
    ...(route.providerId ? { providerId: route.providerId } : {}),
  });
  await recordAudit(deps.audit, principal, {
    action: 'event.sent',
    resourceType: 'event',
    resourceId: id,
    metadata: {
      mode: route.providerId ? 'provider' : 'manual',
      source: route.source,
      provider_id: route.providerId,
      target_url: route.targetUrl,
    },
  });
  return {
    id,
    status: 'queued' as const,
    source: route.source,
    target_url: route.targetUrl,
    provider_id: route.providerId,
  };
}
