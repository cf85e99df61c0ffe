import { AppError, jsonValueDepth, type Principal, type TargetPolicy } from '@relay/core';
import type { sendSchema } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { z } from 'zod';
import type { IngestService } from '../ingest/ingest.service';
import { allowedTarget } from '../allowed-target';
import { audited } from '../audit-entry';

export interface SendServiceDeps {
  ingest: Pick<IngestService, 'accept'>;
  repositories: Pick<Repositories, 'audit' | 'organizations' | 'rules'>;
  targetPolicy: TargetPolicy;
  /** DEFAULT_TARGET_URL, used when the organization has no default of its own. */
  installDefaultTarget: string | undefined;
  /** MAX_PAYLOAD_DEPTH: as on ingest, so an event sent here is one ingest would have taken. */
  maxPayloadDepth: number;
}

export type SendRequest = z.output<typeof sendSchema>;
type Route = { source: string; targetUrl: string; ruleId: string | null };

// `POST /api/send`: an admin-made webhook, stored and delivered through the normal pipeline.
export function createSendService(deps: SendServiceDeps) {
  const { repositories: repos } = deps;

  // Rule mode takes the rule's source and target; manual mode a checked URL or the default.
  async function routeOf(principal: Principal, request: SendRequest): Promise<Route> {
    if ('provider_id' in request) {
      const rule = await repos.rules.findById(principal.orgId, request.provider_id);
      if (!rule) throw new AppError('not_found', 'No such rule.');
      if (!rule.active) throw new AppError('provider_inactive');
      return { source: rule.source, targetUrl: rule.targetUrl, ruleId: rule.id };
    }
    if (request.target_url !== '') {
      const targetUrl = allowedTarget(request.target_url, deps.targetPolicy);
      return { source: request.source, targetUrl, ruleId: null };
    }
    const fallback = (await repos.organizations.defaultTarget(principal.orgId)) ?? deps.installDefaultTarget;
    if (!fallback) throw new AppError('no_default_target');
    return { source: request.source, targetUrl: fallback, ruleId: null };
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
        ...(route.ruleId ? { ruleId: route.ruleId } : {}),
      });
      const metadata = {
        // "provider" is the mode's name in stored audit entries since the first release: kept as written.
        mode: route.ruleId ? 'provider' : 'manual',
        source: route.source,
        provider_id: route.ruleId,
        target_url: route.targetUrl,
      };
      await audited(repos, principal, { action: 'event.sent', resourceType: 'event', resourceId: id, metadata });
      return {
        id,
        status: 'queued' as const,
        source: route.source,
        target_url: route.targetUrl,
        provider_id: route.ruleId,
      };
    },
  };
}
