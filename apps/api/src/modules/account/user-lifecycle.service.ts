import { AppError, type Principal } from '@relay/core';
import type { LifecycleResult, Repositories, TransactionRepositories } from '@relay/db';
import { audited } from '../audit-entry';
import { userView } from '../users/user.views';

export interface UserLifecycleDeps {
  repositories: Pick<Repositories, 'transaction' | 'users'>;
  now?: () => Date;
}

type Change = (tx: TransactionRepositories) => Promise<LifecycleResult>;

// Admins disable, re-enable and delete users of their organization: never their own account and
// never the last active admin. Refusals of access are at each request (authenticate.ts,
// verify-login.ts, sessions.ts), so a disable holds from the next request; audit entries outlive the user.
export function createUserLifecycleService(deps: UserLifecycleDeps) {
  const repos = deps.repositories;
  const now = () => deps.now?.() ?? new Date();

  async function apply(principal: Principal, id: string, action: string, change: Change) {
    if (principal.userId === id) throw new AppError('own_account');
    await repos.transaction(async (tx) => {
      const result = await change(tx);
      if (result === 'not_found') throw new AppError('not_found', 'No such user.');
      if (result === 'last_admin') throw new AppError('last_admin');
      const fact = { action, resourceType: 'user', resourceId: id, metadata: { username: result.username } };
      await audited(tx, principal, fact);
    });
  }

  const current = async (principal: Principal, id: string) => {
    const user = await repos.users.findById(principal.orgId, id);
    if (!user) throw new AppError('not_found', 'No such user.');
    return userView(user);
  };

  return {
    async disable(principal: Principal, id: string) {
      await apply(principal, id, 'user.disabled', (tx) => tx.accounts.setDisabled(principal.orgId, id, true, now()));
      return current(principal, id);
    },

    async enable(principal: Principal, id: string) {
      await apply(principal, id, 'user.enabled', (tx) => tx.accounts.setDisabled(principal.orgId, id, false, now()));
      return current(principal, id);
    },

    async remove(principal: Principal, id: string) {
      await apply(principal, id, 'user.deleted', (tx) => tx.accounts.deleteUser(principal.orgId, id));
    },
  };
}
