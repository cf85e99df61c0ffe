import { AppError, type OrgId, type Principal, type Role } from '@relay/core';
import type { AuditInput, Repositories, UserRecord } from '@relay/db';
import type { PasswordHasher } from '../../auth/passwords';
import { auditEntry, type AuditFact } from '../audit-entry';

export interface CreateUserDeps {
  repositories: Pick<Repositories, 'transaction' | 'users'>;
  passwords: PasswordHasher;
}

export interface NewUser {
  username: string;
  email: string;
  password: string;
  role: Role;
}

/** Who adds a user: a principal of the organization, or the install itself (a setting, the CLI). */
export type UserCreator = Principal | { source: string };

const entryOf = (by: UserCreator, fact: AuditFact): AuditInput =>
  'source' in by
    ? { actorUserId: null, actorEmail: null, ...fact, metadata: { ...fact.metadata, source: by.source } }
    : auditEntry(by, fact);

/** Creates a user and its audit entry in one transaction. */
export async function createUser(deps: CreateUserDeps, orgId: OrgId, user: NewUser, by: UserCreator) {
  const passwordHash = await deps.passwords.hash(user.password);
  return deps.repositories.transaction(async (tx): Promise<UserRecord> => {
    // Usernames are unique across users and platform operators (one login form serves both).
    if (await tx.operators.usernameTaken(user.username)) throw new AppError('username_taken');
    const created = await tx.users
      .create(orgId, { username: user.username, email: user.email, role: user.role, passwordHash })
      .catch((err: unknown) => {
        // Thrown inside: the unique violation has aborted the transaction anyway.
        throw (err as { code?: string }).code === 'P2002' ? new AppError('username_taken') : err;
      });
    const fact = { action: 'user.created', resourceType: 'user', resourceId: created.id };
    const metadata = { username: created.username, role: created.role };
    await tx.audit.record(orgId, entryOf(by, { ...fact, metadata }));
    return created;
  });
}

/**
 * The first admin of the default organization, from INITIAL_ADMIN_USERNAME/PASSWORD, created only
 * while the organization has no admin (so compose installs get a login, and a restart never
 * resets anything). Concurrent api processes race on the unique username; the loser does nothing.
 */
export async function ensureInitialAdmin(
  deps: CreateUserDeps,
  orgId: OrgId,
  admin: Omit<NewUser, 'role'>,
): Promise<UserRecord | null> {
  if ((await deps.repositories.users.countAdmins(orgId)) > 0) return null;
  try {
    return await createUser(deps, orgId, { ...admin, role: 'admin' }, { source: 'INITIAL_ADMIN_USERNAME' });
  } catch (err) {
    if (err instanceof AppError && err.code === 'username_taken') return null;
    throw err;
  }
}
