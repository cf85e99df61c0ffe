import { AppError, type OrgId } from '@relay/core';
import type { AuditRepository } from '@relay/db';
import { Router, type Request } from 'express';
import { verifyLogin, type AuthenticateDeps } from '../auth/authenticate';
import type { LoginLimiter } from '../auth/login-limiter';
import { sessionCookieName } from '../auth/sessions';
import { validate } from '../http/validate';
import { loginSchema } from './identity.contract';

export interface SessionRouteDeps extends AuthenticateDeps {
  audit: AuditRepository;
  limiter: LoginLimiter;
  secureCookie: boolean;
}

const promisify = (run: (done: (err?: unknown) => void) => void) =>
  new Promise<void>((resolve, reject) => run((err) => (err ? reject(err) : resolve())));

/** `POST /api/auth/login` (username + password → session cookie) and `POST /api/auth/logout`. */
export function sessionRoutes(deps: SessionRouteDeps): Router {
  const router = Router();

  async function recordFailure(req: Request, username: string) {
    const known = await deps.users.findByUsernameForLogin(username);
    await deps.audit.record((known?.organizationId ?? null) as OrgId | null, {
      actorUserId: known?.id ?? null,
      actorEmail: known?.email ?? null,
      action: 'auth.login_failed',
      resourceType: 'user',
      resourceId: known?.id ?? null,
      metadata: { username, ip: req.ip },
    });
  }

  router.post('/api/auth/login', async (req, res) => {
    // Login CSRF: a cross-site page must not log the browser into another account.
    if (req.get('sec-fetch-site') === 'cross-site') throw new AppError('csrf_rejected');
    const { username, password } = validate(loginSchema, req.body);
    const ip = req.ip ?? 'unknown';
    const limit = await deps.limiter.check(username, ip);
    if (!limit.ok) {
      res.setHeader('Retry-After', String(limit.retryAfterSeconds));
      throw new AppError('too_many_attempts', `Too many failed logins; try again in ${limit.retryAfterSeconds} s.`);
    }
    const login = await verifyLogin(username, password, deps);
    if (!login) {
      await deps.limiter.recordFailure(username, ip);
      await recordFailure(req, username);
      throw new AppError('unauthenticated', 'Wrong username or password.');
    }
    await deps.limiter.reset(username, ip);
    // A new session id at login: a session id planted before login is worthless after it.
    await promisify((done) => req.session.regenerate(done));
    if ('operator' in login) {
      req.session.operatorId = login.operator.id;
      await promisify((done) => req.session.save(done));
      res.json({
        mechanism: 'session',
        kind: 'operator',
        operator: { id: login.operator.id, username: login.operator.username },
      });
      return;
    }
    const principal = login.user;
    req.session.userId = principal.userId!;
    req.session.orgId = principal.orgId;
    await promisify((done) => req.session.save(done));
    res.json({
      mechanism: 'session',
      user: { id: principal.userId, username: principal.username, email: principal.email, role: principal.role },
      organization: { id: principal.orgId },
    });
  });

  router.post('/api/auth/logout', async (req, res) => {
    if (req.session?.userId || req.session?.operatorId) await promisify((done) => req.session.destroy(done));
    res.clearCookie(sessionCookieName(deps.secureCookie), {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secureCookie,
    });
    res.status(204).end();
  });
  return router;
}
