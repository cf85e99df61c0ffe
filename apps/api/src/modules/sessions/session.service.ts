import { AppError, type Principal } from '@relay/core';
import type { OperatorRecord, Repositories } from '@relay/db';
import { verifyLogin } from '../../auth/authenticate';
import type { LoginLimiter } from '../../auth/login-limiter';
import type { PasswordHasher } from '../../auth/passwords';
import { sessionCookieName } from '../../auth/sessions';
import { meView } from './session.views';

export interface SessionServiceDeps {
  repositories: Repositories;
  passwords: PasswordHasher;
  limiter: LoginLimiter;
  secureCookie: boolean;
}

export type LoginOutcome =
  { user: Principal } | { operator: OperatorRecord } | { limited: true; retryAfterSeconds: number };

// Password login (rate-limited per username + IP and per IP; failures audited, under the user's
// organization when the username exists), and who the caller is. The session itself is the
// request's: the operations start and end it.
export function createSessionService(deps: SessionServiceDeps) {
  const repos = deps.repositories;
  const authDeps = {
    users: repos.users,
    credentials: repos.credentials,
    operators: repos.operators,
    passwords: deps.passwords,
  };

  async function recordFailure(username: string, ip: string | undefined) {
    const known = await repos.users.findByUsernameForLogin(username);
    await repos.audit.record(known?.organizationId ?? null, {
      actorUserId: known?.id ?? null,
      actorEmail: known?.email ?? null,
      action: 'auth.login_failed',
      resourceType: 'user',
      resourceId: known?.id ?? null,
      metadata: { username, ip },
    });
  }

  return {
    /** The session cookie, as logout clears it (the options must match those it was set with). */
    cookie: {
      name: sessionCookieName(deps.secureCookie),
      options: { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: deps.secureCookie },
    },

    /** Throws `unauthenticated` for a wrong username or password, alike. */
    async login(username: string, password: string, ip: string | undefined): Promise<LoginOutcome> {
      const source = ip ?? 'unknown';
      const limit = await deps.limiter.check(username, source);
      if (!limit.ok) return { limited: true, retryAfterSeconds: limit.retryAfterSeconds };
      const login = await verifyLogin(username, password, authDeps);
      if (!login) {
        await deps.limiter.recordFailure(username, source);
        await recordFailure(username, ip);
        throw new AppError('unauthenticated', 'Wrong username or password.');
      }
      await deps.limiter.reset(username, source);
      return login;
    },

    async me(principal: Principal) {
      return meView(principal, await repos.organizations.findById(principal.orgId));
    },
  };
}
