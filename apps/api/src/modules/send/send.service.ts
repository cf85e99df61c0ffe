import { AppError, jsonValueDepth, type Principal, type TargetPolicy } from '@relay/core';
import type { sendSchema } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { z } from 'zod';
import type { IngestService } from '../ingest/ingest.service';
import { allowedTarget } from '../allowed-target';
import { audited } from '../audit-entry';

export interface SendServiceDeps {
  ingest: Pick<IngestService, 'accept'>;
  repositories: Pick<Repositories, 'audit' | 'organizations' | 'providers'>;
  targetPolicy: TargetPolicy;
  /** DEFAULT_TARGET_URL, used when the organization has no default of its own. */
  installDefaultTarget: string | undefined;
  /** MAX_PAYLOAD_DEPTH: as on ingest, so an event sent here is one ingest would have taken. */
  maxPayloadDepth: number;
}

export type SendRequest = z.output<typeof sendSchema>;
type Route = { source: string; targetUrl: string; providerId: string | null };

// `POST /api/send`: an admin-made webhook, stored and delivered through the normal pipeline.
export function createSendService(deps: SendServiceDeps) {
  const { repositories: repos } = deps;

  // Provider mode takes the provider's source and target; manual mode a checked URL or the default.
  async function routeOf(principal: Principal, request: SendRequest): Promise<Route> {
    if ('provider_id' in request) {
      const provider = await repos.providers.findById(principal.orgId, request.provider_id);
      if (!provider) throw new AppError('not_found', 'No such provider.');
      if (!provider.active) throw new AppError('provider_inactive');
      return { source: provider.source, targetUrl: provider.targetUrl, providerId: provider.id };
    }
    if (request.target_url !== '') {
      const targetUrl = allowedTarget(request.target_url, deps.targetPolicy);
      return { source: request.source, targetUrl, providerId: null };
    }
    const fallback = (await repos.organizations.defaultTarget(principal.orgId)) ?? deps.installDefaultTarget;
    if (!fallback) throw new AppError('no_default_target');
    return { source: request.source, targetUrl: fallback, providerId: null };
  }

  return {
    async send(principal: Principal, request: SendRequest) {
      const max = deps.maxPayloadDepth;
      if (jsonValueDepth(request.body, max) > max) {
        throw new AppError('payload_too_deep', `The body is nested deeper than ${max} levels.`, { limit_depth: max });
      }
      const route = await routeOf(principal, request);
      // Ingest group-commits the event with other webhooks on its own connection, so the event and
      // its audit entry cannot share a transaction: the entry follows the committed event.
      const id = await deps.ingest.accept({
        orgId: principal.orgId,
        source: route.source,
        body: Buffer.from(JSON.stringify(request.body)),
        headers: { 'content-type': 'application/json' },
        targetOverride: route.targetUrl,
        ...(route.providerId ? { providerId: route.providerId } : {}),
      });
      const metadata = {
        mode: route.providerId ? 'provider' : 'manual',
        source: route.source,
        provider_id: route.providerId,
        target_url: route.targetUrl,
      };
      await audited(repos, principal, { action: 'event.sent', resourceType: 'event', resourceId: id, metadata });
      return {
        id,
        status: 'queued' as const,
        source: route.source,
        target_url: route.targetUrl,
        provider_id: route.providerId,
      };
    },
  };
}
