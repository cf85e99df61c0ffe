import { AppError, type OrgId, type Role } from '@relay/core';
import type { AuditRepository, OperatorRepository, UserRecord, UserRepository } from '@relay/db';
import type { PasswordHasher } from './passwords';

export interface CreateUserDeps {
  users: UserRepository;
  audit: AuditRepository;
  passwords: PasswordHasher;
  /** Usernames are unique across users and platform operators (one login form serves both). */
  operators?: OperatorRepository;
}

export interface NewUser {
  username: string;
  email: string;
  password: string;
  role: Role;
}

/** Creates a user and its audit entry; `actor` is who did it (null for the install itself). */
export async function createUser(
  deps: CreateUserDeps,
  orgId: OrgId,
  user: NewUser,
  actor: { userId: string | null; email: string | null; via: Record<string, unknown> },
): Promise<UserRecord> {
  if (await deps.operators?.usernameTaken(user.username)) throw new AppError('username_taken');
  const passwordHash = await deps.passwords.hash(user.password);
  const created = await deps.users
    .create(orgId, { username: user.username, email: user.email, role: user.role, passwordHash })
    .catch((err: unknown) => {
      throw (err as { code?: string }).code === 'P2002' ? new AppError('username_taken') : err;
    });
  await deps.audit.record(orgId, {
    actorUserId: actor.userId,
    actorEmail: actor.email,
    action: 'user.created',
    resourceType: 'user',
    resourceId: created.id,
    metadata: { username: created.username, role: created.role, ...actor.via },
  });
  return created;
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
  if ((await deps.users.countAdmins(orgId)) > 0) return null;
  try {
    return await createUser(
      deps,
      orgId,
      { ...admin, role: 'admin' },
      { userId: null, email: null, via: { source: 'INITIAL_ADMIN_USERNAME' } },
    );
  } catch (err) {
    if (err instanceof AppError && err.code === 'username_taken') return null;
    throw err;
  }
}
