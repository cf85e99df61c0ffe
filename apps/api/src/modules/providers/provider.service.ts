import { AppError, type Principal, type TargetPolicy } from '@relay/core';
import type { ruleCreateSchema, ruleUpdateSchema } from '@relay/contracts';
import type { ProviderChanges, ProviderWrite, Repositories } from '@relay/db';
import type { z } from 'zod';
import { allowedTarget } from '../allowed-target';
import { auditEntry } from '../audit-entry';
import { providerView } from './provider.views';

export interface ProviderServiceDeps {
  repositories: Repositories;
  targetPolicy: TargetPolicy;
}

export type ProviderInput = z.output<typeof ruleCreateSchema>;
export type ProviderUpdate = z.output<typeof ruleUpdateSchema>;

// Thrown inside the transaction, so a refused write leaves no audit entry behind.
function written(result: ProviderWrite) {
  if (result.ok) return result.provider;
  if (result.conflict === 'not_found') throw new AppError('not_found', 'No such provider.');
  throw new AppError('active_provider_exists');
}

// Audit metadata names what changed, never the signing secret itself.
const changedFields = (input: Record<string, unknown>) => Object.keys(input).filter((k) => input[k] !== undefined);

// The organization's providers (the API's rules): source → target, at most one active per source.
export function createProviderService(deps: ProviderServiceDeps) {
  const { repositories: repos, targetPolicy } = deps;
  const changesOf = (input: ProviderUpdate): ProviderChanges => ({
    ...(input.source !== undefined ? { source: input.source } : {}),
    ...(input.target_url !== undefined ? { targetUrl: allowedTarget(input.target_url, targetPolicy) } : {}),
    ...(input.active !== undefined ? { active: input.active } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.signing_secret !== undefined ? { signingSecret: input.signing_secret } : {}),
  });

  return {
    async list(principal: Principal) {
      return (await repos.providers.list(principal.orgId)).map(providerView);
    },

    async get(principal: Principal, id: string) {
      const provider = await repos.providers.findById(principal.orgId, id);
      if (!provider) throw new AppError('not_found', 'No such provider.');
      return providerView(provider);
    },

    async create(principal: Principal, input: ProviderInput) {
      const targetUrl = allowedTarget(input.target_url, targetPolicy);
      const provider = await repos.transaction(async (tx) => {
        const created = written(
          await tx.providers.create(principal.orgId, {
            source: input.source,
            targetUrl,
            active: input.active,
            description: input.description ?? null,
            signingSecret: input.signing_secret ?? null,
          }),
        );
        const metadata = { source: created.source, target_url: created.targetUrl, active: created.active };
        const fact = { action: 'rule.created', resourceType: 'rule', resourceId: created.id, metadata };
        await tx.audit.record(principal.orgId, auditEntry(principal, fact));
        return created;
      });
      return providerView(provider);
    },

    async update(principal: Principal, id: string, input: ProviderUpdate) {
      const changes = changesOf(input);
      const provider = await repos.transaction(async (tx) => {
        const updated = written(await tx.providers.update(principal.orgId, id, changes));
        const metadata = { changed: changedFields(input) };
        await tx.audit.record(
          principal.orgId,
          auditEntry(principal, { action: 'rule.updated', resourceType: 'rule', resourceId: id, metadata }),
        );
        return updated;
      });
      return providerView(provider);
    },

    async delete(principal: Principal, id: string): Promise<void> {
      await repos.transaction(async (tx) => {
        const deleted = await tx.providers.delete(principal.orgId, id);
        if (!deleted) throw new AppError('not_found', 'No such provider.');
        const metadata = { source: deleted.source };
        await tx.audit.record(
          principal.orgId,
          auditEntry(principal, { action: 'rule.deleted', resourceType: 'rule', resourceId: id, metadata }),
        );
      });
    },
  };
}
