import { randomUUID } from 'node:crypto';
import { asOrgId, userPrincipal, type Principal } from '@relay/core';
import type { OperatorRecord, OperatorRepository, UserRepository } from '@relay/db';
import type { PasswordHasher } from './passwords';

// A hash to verify against when the user does not exist, so an unknown user costs as much as a
// wrong password and the two cannot be told apart by timing. Made once, with the configured cost.
const dummyHashes = new WeakMap<PasswordHasher, Promise<string>>();
function dummyHash(passwords: PasswordHasher): Promise<string> {
  let hashed = dummyHashes.get(passwords);
  if (!hashed) {
    hashed = passwords.hash(randomUUID());
    dummyHashes.set(passwords, hashed);
  }
  return hashed;
}

/**
 * A username and password: a user of an organization, or else a platform operator (usernames are
 * unique across both). One hash verification either way, so neither existence nor kind leaks by
 * timing. Not rate-limited by itself: callers go through `checkPassword`.
 */
export async function verifyLogin(
  username: string,
  password: string,
  deps: { users: UserRepository; operators: OperatorRepository; passwords: PasswordHasher },
): Promise<{ user: Principal } | { operator: OperatorRecord } | null> {
  const user = await deps.users.findByUsernameForLogin(username);
  const operator = user ? null : await deps.operators.findByUsernameForLogin(username);
  const ok = await deps.passwords.verify(
    user?.passwordHash ?? operator?.passwordHash ?? (await dummyHash(deps.passwords)),
    password,
  );
  // A disabled user fails exactly like a wrong password (after the same hash work): no enumeration.
  if (!ok || user?.disabledAt) return null;
  if (user) return { user: userPrincipal({ ...user, organizationId: asOrgId(user.organizationId) }, 'session') };
  if (operator) return { operator: { id: operator.id, username: operator.username, createdAt: operator.createdAt } };
  return null;
}
