import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '@relay/core';
import type { AuditInput, Repositories } from '@relay/db';
import type { LoginLimiter } from '../../auth/login-limiter';
import type { PasswordHasher } from '../../auth/passwords';
import { tooManyAttempts } from '../../auth/too-many-attempts';

export interface BootstrapServiceDeps {
  repositories: Pick<Repositories, 'audit' | 'operators' | 'transaction'>;
  passwords: PasswordHasher;
  /** PLATFORM_ADMIN_TOKEN; unset disables bootstrap. */
  adminToken: string | undefined;
  /** The api's one limiter: wrong tokens count per IP like wrong passwords. */
  limiter: LoginLimiter;
}

export interface BootstrapRequest {
  /** The presented `Authorization: Bearer` token. */
  bearer: string | undefined;
  username: string;
  ip: string | undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison of a presented bearer token with the configured one. */
function tokenMatches(presented: string | undefined, expected: string): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), digest(expected));
}

// Bootstrap entries have no actor: the caller holds the token, not an account.
const anonymous = (entry: Omit<AuditInput, 'actorUserId' | 'actorEmail'>): AuditInput => ({
  actorUserId: null,
  actorEmail: null,
  ...entry,
});

// `POST /api/platform/bootstrap/operator`: the first operator, once. Every use is audited at
// platform level, the refused ones too (so a refusal is recorded, never rolled back). The
// generated password is returned once, never stored.
export function createBootstrapService(deps: BootstrapServiceDeps) {
  const r = deps.repositories;
  async function refused(request: BootstrapRequest, reason: string, error: AppError): Promise<AppError> {
    await r.audit.record(
      null,
      anonymous({
        action: 'operator.bootstrap_refused',
        resourceType: 'operator',
        resourceId: null,
        metadata: { username: request.username, reason, ip: request.ip },
      }),
    );
    return error;
  }

  return {
    async bootstrapOperator(request: BootstrapRequest) {
      if (!deps.adminToken) throw new AppError('not_found');
      // "Once any operator exists it answers 409 whatever the token."
      if (await r.operators.exists()) throw await refused(request, 'operator_exists', new AppError('operator_exists'));
      // Counted before the comparison, like a password: the token cannot be guessed by volume.
      const ip = request.ip ?? 'unknown';
      const limit = await deps.limiter.attempt('bootstrap', 'operator', ip);
      if (!limit.ok) throw tooManyAttempts(limit.retryAfterSeconds);
      if (!tokenMatches(request.bearer, deps.adminToken)) {
        deps.limiter.failed('bootstrap');
        const error = new AppError('unauthenticated', 'Missing or wrong PLATFORM_ADMIN_TOKEN.');
        throw await refused(request, 'bad_token', error);
      }
      await deps.limiter.succeeded('bootstrap', 'operator', ip);
      const password = randomBytes(18).toString('base64url');
      const passwordHash = await deps.passwords.hash(password);
      const created = await r.transaction(async (tx) => {
        const operator = await tx.operators.bootstrap(request.username, passwordHash);
        if (typeof operator === 'string') return operator;
        await tx.audit.record(
          null,
          anonymous({
            action: 'operator.bootstrapped',
            resourceType: 'operator',
            resourceId: operator.id,
            metadata: { username: operator.username, ip: request.ip },
          }),
        );
        return operator;
      });
      if (created === 'exists') throw await refused(request, 'operator_exists', new AppError('operator_exists'));
      if (created === 'username_taken') throw await refused(request, 'username_taken', new AppError('username_taken'));
      return { operator: { id: created.id, username: created.username }, password };
    },
  };
}
