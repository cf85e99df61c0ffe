import { AppError, type Principal, type Role } from '@relay/core';
import type { Repositories } from '@relay/db';
import type { PasswordHasher } from '../../auth/passwords';
import type { Quota } from '../limits/quota';
import { audited } from '../audit-entry';
import { createUser, type NewUser } from './create-user';
import { usageOf } from '../limits/usage';
import { organizationView, userView } from './user.views';

export interface UserServiceDeps {
  repositories: Pick<Repositories, 'organizations' | 'transaction' | 'users'>;
  passwords: PasswordHasher;
  /** The monthly quota's usage, shown with the organization. */
  quota?: Pick<Quota, 'usage'>;
}

// Users of the caller's organization: admins add users and change roles, never demoting the last
// admin. Every change is audited in the transaction that makes it.
export function createUserService(deps: UserServiceDeps) {
  const repos = deps.repositories;
  return {
    async list(principal: Principal) {
      return (await repos.users.list(principal.orgId)).map(userView);
    },

    async create(principal: Principal, input: NewUser) {
      return userView(await createUser(deps, principal.orgId, input, principal));
    },

    async changeRole(principal: Principal, id: string, role: Role) {
      const user = await repos.transaction(async (tx) => {
        // With a claim mapping the provider decides the role at each login: a change here would not last.
        if (await tx.identities.roleManaged(principal.orgId, id)) throw new AppError('role_managed_by_idp');
        const result = await tx.users.updateRole(principal.orgId, id, role);
        if (result === 'not_found') throw new AppError('not_found', 'No such user.');
        if (result === 'last_admin') throw new AppError('last_admin');
        const fact = { action: 'user.role_updated', resourceType: 'user', resourceId: id };
        const metadata = { from: result.previous, to: role };
        await audited(tx, principal, { ...fact, metadata });
        return result.user;
      });
      return userView(user);
    },

    async organization(principal: Principal) {
      const [organization, limits] = await Promise.all([
        repos.organizations.findById(principal.orgId),
        repos.organizations.limits(principal.orgId),
      ]);
      if (!organization || !limits) throw new AppError('not_found', 'No such organization.');
      const usage = await usageOf(deps.quota, repos, principal.orgId, limits);
      return { ...organizationView(organization), usage };
    },
  };
}
