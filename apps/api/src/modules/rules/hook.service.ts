import { AppError, type Principal, type TargetPolicy } from '@relay/core';
import type { hookCreateSchema, hookUpdateSchema } from '@relay/contracts';
import type { HookWrite, Repositories, TransactionRepositories } from '@relay/db';
import type { z } from 'zod';
import { allowedTarget } from '../allowed-target';
import { audited, type AuditFact } from '../audit-entry';
import { hookView } from './rule.views';

export interface HookServiceDeps {
  repositories: Pick<Repositories, 'hooks' | 'rules' | 'transaction'>;
  targetPolicy: TargetPolicy;
}

export type HookInput = z.output<typeof hookCreateSchema>;
export type HookUpdate = z.output<typeof hookUpdateSchema>;

// Thrown inside the transaction, so a refused write leaves no audit entry behind.
function hookWritten(result: HookWrite) {
  if (result.ok) return result.hook;
  throw new AppError(result.conflict);
}

// Hooks: follow-up deliveries attached to one rule, fired by its delivery outcome.
export function createHookService(deps: HookServiceDeps) {
  const { repositories: repos, targetPolicy } = deps;
  // The rule must be the caller's: another organization's rule id is a 404 like an unknown one.
  const ruleOf = async (r: Pick<TransactionRepositories, 'rules'>, principal: Principal, id: string) => {
    if (!(await r.rules.findById(principal.orgId, id))) throw new AppError('not_found', 'No such rule.');
  };
  const hookFact = (action: string, hookId: string, metadata: Record<string, unknown>): AuditFact => ({
    action,
    resourceType: 'hook',
    resourceId: hookId,
    metadata,
  });

  return {
    async list(principal: Principal, ruleId: string) {
      await ruleOf(repos, principal, ruleId);
      return (await repos.hooks.list(principal.orgId, ruleId)).map(hookView);
    },

    async create(principal: Principal, ruleId: string, input: HookInput) {
      const hook = await repos.transaction(async (tx) => {
        await ruleOf(tx, principal, ruleId);
        const created = hookWritten(
          await tx.hooks.create(principal.orgId, ruleId, {
            ...(input.name !== undefined ? { name: input.name } : {}),
            targetUrl: allowedTarget(input.target_url, targetPolicy),
            trigger: input.trigger,
            active: input.active,
            description: input.description ?? null,
          }),
        );
        const metadata = {
          rule_id: ruleId,
          name: created.name,
          trigger: created.trigger,
          target_url: created.targetUrl,
        };
        await audited(tx, principal, hookFact('hook.created', created.id, metadata));
        return created;
      });
      return hookView(hook);
    },

    async update(principal: Principal, ruleId: string, hookId: string, input: HookUpdate) {
      const hook = await repos.transaction(async (tx) => {
        await ruleOf(tx, principal, ruleId);
        const updated = await tx.hooks.update(principal.orgId, ruleId, hookId, {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.target_url !== undefined ? { targetUrl: allowedTarget(input.target_url, targetPolicy) } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
        });
        if (!updated) throw new AppError('not_found', 'No such hook.');
        const metadata = { rule_id: ruleId, changed: Object.keys(input) };
        await audited(tx, principal, hookFact('hook.updated', hookId, metadata));
        return hookWritten(updated);
      });
      return hookView(hook);
    },

    async delete(principal: Principal, ruleId: string, hookId: string): Promise<void> {
      await repos.transaction(async (tx) => {
        await ruleOf(tx, principal, ruleId);
        if (!(await tx.hooks.delete(principal.orgId, ruleId, hookId))) {
          throw new AppError('not_found', 'No such hook.');
        }
        const fact = hookFact('hook.deleted', hookId, { rule_id: ruleId });
        await audited(tx, principal, fact);
      });
    },
  };
}
