import { AppError, type Principal, type TargetPolicy } from '@relay/core';
import type { hookCreateSchema, hookUpdateSchema } from '@relay/contracts';
import type { Repositories, TransactionRepositories } from '@relay/db';
import type { z } from 'zod';
import { allowedTarget } from '../allowed-target';
import { audited, type AuditFact } from '../audit-entry';
import { hookView } from './provider.views';

export interface HookServiceDeps {
  repositories: Pick<Repositories, 'hooks' | 'providers' | 'transaction'>;
  targetPolicy: TargetPolicy;
}

export type HookInput = z.output<typeof hookCreateSchema>;
export type HookUpdate = z.output<typeof hookUpdateSchema>;

// Hooks: follow-up deliveries attached to one provider, fired by its delivery outcome.
export function createHookService(deps: HookServiceDeps) {
  const { repositories: repos, targetPolicy } = deps;
  // The provider must be the caller's: another organization's provider id is a 404 like an unknown one.
  const providerOf = async (r: Pick<TransactionRepositories, 'providers'>, principal: Principal, id: string) => {
    if (!(await r.providers.findById(principal.orgId, id))) throw new AppError('not_found', 'No such provider.');
  };
  const hookFact = (action: string, hookId: string, metadata: Record<string, unknown>): AuditFact => ({
    action,
    resourceType: 'hook',
    resourceId: hookId,
    metadata,
  });

  return {
    async list(principal: Principal, providerId: string) {
      await providerOf(repos, principal, providerId);
      return (await repos.hooks.list(principal.orgId, providerId)).map(hookView);
    },

    async create(principal: Principal, providerId: string, input: HookInput) {
      const hook = await repos.transaction(async (tx) => {
        await providerOf(tx, principal, providerId);
        const created = await tx.hooks.create(principal.orgId, providerId, {
          targetUrl: allowedTarget(input.target_url, targetPolicy),
          trigger: input.trigger,
          active: input.active,
          description: input.description ?? null,
        });
        const metadata = { rule_id: providerId, trigger: created.trigger, target_url: created.targetUrl };
        await audited(tx, principal, hookFact('hook.created', created.id, metadata));
        return created;
      });
      return hookView(hook);
    },

    async update(principal: Principal, providerId: string, hookId: string, input: HookUpdate) {
      const hook = await repos.transaction(async (tx) => {
        await providerOf(tx, principal, providerId);
        const updated = await tx.hooks.update(principal.orgId, providerId, hookId, {
          ...(input.target_url !== undefined ? { targetUrl: allowedTarget(input.target_url, targetPolicy) } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
        });
        if (!updated) throw new AppError('not_found', 'No such hook.');
        const metadata = { rule_id: providerId, changed: Object.keys(input) };
        await audited(tx, principal, hookFact('hook.updated', hookId, metadata));
        return updated;
      });
      return hookView(hook);
    },

    async delete(principal: Principal, providerId: string, hookId: string): Promise<void> {
      await repos.transaction(async (tx) => {
        await providerOf(tx, principal, providerId);
        if (!(await tx.hooks.delete(principal.orgId, providerId, hookId))) {
          throw new AppError('not_found', 'No such hook.');
        }
        const fact = hookFact('hook.deleted', hookId, { rule_id: providerId });
        await audited(tx, principal, fact);
      });
    },
  };
}
