import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '@relay/core';
import type { AuditRepository, OperatorRepository } from '@relay/db';
import type { PasswordHasher } from '../auth/passwords';

export interface BootstrapDeps {
  operators: OperatorRepository;
  audit: AuditRepository;
  passwords: PasswordHasher;
  /** PLATFORM_ADMIN_TOKEN; unset disables bootstrap. */
  adminToken: string | undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison of a presented bearer token with the configured one. */
function tokenMatches(presented: string | undefined, expected: string): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), digest(expected));
}

// `POST /api/platform/bootstrap/operator`: the first operator, once. Every use is audited at
// platform level, the refused ones too. The generated password is returned once, never stored.
export async function bootstrapOperator(
  deps: BootstrapDeps,
  request: { bearer: string | undefined; username: string; ip: string | undefined },
) {
  if (!deps.adminToken) throw new AppError('not_found');
  const refuse = async (reason: string, error: AppError) => {
    await deps.audit.record(null, {
      actorUserId: null,
      actorEmail: null,
      action: 'operator.bootstrap_refused',
      resourceType: 'operator',
      resourceId: null,
      metadata: { username: request.username, reason, ip: request.ip },
    });
    return error;
  };
  // "Once any operator exists it answers 409 whatever the token."
  if (await deps.operators.exists()) throw await refuse('operator_exists', new AppError('operator_exists'));
  if (!tokenMatches(request.bearer, deps.adminToken))
    throw await refuse('bad_token', new AppError('unauthenticated', 'Missing or wrong PLATFORM_ADMIN_TOKEN.'));
  const password = randomBytes(18).toString('base64url');
  const created = await deps.operators.bootstrap(request.username, await deps.passwords.hash(password));
  if (created === 'exists') throw await refuse('operator_exists', new AppError('operator_exists'));
  if (created === 'username_taken') throw await refuse('username_taken', new AppError('username_taken'));
  await deps.audit.record(null, {
    actorUserId: null,
    actorEmail: null,
    action: 'operator.bootstrapped',
    resourceType: 'operator',
    resourceId: created.id,
    metadata: { username: created.username, ip: request.ip },
  });
  return { operator: { id: created.id, username: created.username }, password };
}
