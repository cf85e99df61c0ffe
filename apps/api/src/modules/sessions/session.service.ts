import { AppError, type AccessRule, type Principal } from '@relay/core';
import type { OperatorRecord, Repositories } from '@relay/db';
import { checkPassword } from '../../auth/password-check';
import type { LoginLimiter } from '../../auth/login-limiter';
import type { PasswordHasher } from '../../auth/passwords';
import { sessionCookieName } from '../../auth/sessions';
import { meView } from './session.views';

export interface SessionServiceDeps {
  repositories: Pick<Repositories, 'audit' | 'operators' | 'organizations' | 'users'>;
  passwords: PasswordHasher;
  limiter: LoginLimiter;
  secureCookie: boolean;
  /** Every guarded route's access rule: which scopes a principal can actually use. */
  accessRules: readonly AccessRule[];
}

export type LoginOutcome =
  { user: Principal } | { operator: OperatorRecord } | { limited: true; retryAfterSeconds: number };

// Password login (through the one password limit HTTP Basic shares: per username + IP and per IP,
// counted before the hash is verified; failures audited), and who the caller is. The session itself is the
// request's: the operations start and end it.
export function createSessionService(deps: SessionServiceDeps) {
  const repos = deps.repositories;
  const checkDeps = {
    users: repos.users,
    operators: repos.operators,
    audit: repos.audit,
    passwords: deps.passwords,
    limiter: deps.limiter,
  };
  return {
    /** The session cookie, as logout clears it (the options must match those it was set with). */
    cookie: {
      name: sessionCookieName(deps.secureCookie),
      options: { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: deps.secureCookie },
    },

    /** Throws `unauthenticated` for a wrong username or password, alike. */
    async login(username: string, password: string, ip: string | undefined): Promise<LoginOutcome> {
      const outcome = await checkPassword(checkDeps, { username, password, ip, mechanism: 'session' });
      if ('failed' in outcome) throw new AppError('unauthenticated', 'Wrong username or password.');
      return outcome;
    },
    async me(principal: Principal) {
      return meView(principal, await repos.organizations.findById(principal.orgId), deps.accessRules);
    },
  };
}
