import { AppError } from '@relay/core';
import type { OperatorRecord, Repositories } from '@relay/db';
import type { LoginLimiter } from '../../auth/login-limiter';
import type { PasswordHasher } from '../../auth/passwords';
import { tooManyAttempts } from '../../auth/too-many-attempts';
import { auditedByOperator } from './operator-audit';

export interface OperatorServiceDeps {
  repositories: Pick<Repositories, 'audit' | 'operators' | 'transaction'>;
  passwords: PasswordHasher;
  limiter: LoginLimiter;
  now?: () => Date;
}

export const operatorView = (o: OperatorRecord) => ({
  id: o.id,
  username: o.username,
  created_at: o.createdAt.toISOString(),
});

// Platform operators manage each other: change their own password (their other sessions end), add
// operators and remove them, never the last one. Audited at platform level.
export function createOperatorService(deps: OperatorServiceDeps) {
  const r = deps.repositories;
  return {
    list: async () => (await r.operators.list()).map(operatorView),

    /** Answers the cut: the operator's sessions started before it are over. */
    async changePassword(
      operator: OperatorRecord,
      input: { current_password: string; new_password: string },
      ip = 'unknown',
    ) {
      const check = await deps.limiter.attempt('password', operator.username, ip);
      if (!check.ok) throw tooManyAttempts(check.retryAfterSeconds);
      const hash = await r.operators.passwordHashOf(operator.id);
      if (!hash || !(await deps.passwords.verify(hash, input.current_password))) {
        const fact = { action: 'operator.password_change_failed', resourceType: 'operator', resourceId: operator.id };
        await auditedByOperator(r, operator, { ...fact, metadata: { ip } });
        throw new AppError('wrong_password');
      }
      await deps.limiter.succeeded('password', operator.username, ip);
      const newHash = await deps.passwords.hash(input.new_password);
      const cut = deps.now?.() ?? new Date();
      await r.transaction(async (tx) => {
        await tx.operators.setPassword(operator.id, newHash, cut);
        const fact = { action: 'operator.password_changed', resourceType: 'operator', resourceId: operator.id };
        await auditedByOperator(tx, operator, fact);
      });
      return cut;
    },

    async create(operator: OperatorRecord, input: { username: string; password: string }) {
      const passwordHash = await deps.passwords.hash(input.password);
      const created = await r.transaction(async (tx) => {
        const result = await tx.operators.create(input.username, passwordHash).catch((err: unknown) => {
          // A concurrent create of the same name: the unique index decides.
          throw (err as { code?: string }).code === 'P2002' ? new AppError('username_taken') : err;
        });
        if (result === 'username_taken') throw new AppError('username_taken');
        const fact = { action: 'operator.created', resourceType: 'operator', resourceId: result.id };
        await auditedByOperator(tx, operator, { ...fact, metadata: { username: result.username } });
        return result;
      });
      return operatorView(created);
    },

    async remove(operator: OperatorRecord, id: string) {
      await r.transaction(async (tx) => {
        const result = await tx.operators.remove(id);
        if (result === 'not_found') throw new AppError('not_found', 'No such operator.');
        if (result === 'last_operator') throw new AppError('last_operator');
        const fact = { action: 'operator.deleted', resourceType: 'operator', resourceId: id };
        await auditedByOperator(tx, operator, { ...fact, metadata: { username: result.username } });
      });
    },
  };
}
