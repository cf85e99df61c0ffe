import { anonymousMeSchema, loginResultSchema, loginSchema, meSchema, operatorMeSchema } from '@relay/contracts';
import { AppError } from '@relay/core';
import { z } from 'zod';
import { promisify, startSession } from '../../auth/session-start';
import { retryAfter, tooManyAttempts } from '../../auth/too-many-attempts';
import { defineOperation } from '../../composition/define-operation';
import { anonymousMeView, loginView, operatorMeView } from './session.views';

export const sessionOperations = [
  defineOperation({
    method: 'post',
    path: '/api/auth/login',
    tag: 'auth',
    access: 'public',
    summary: 'Log in with a password; sets the session cookie',
    body: loginSchema,
    responses: {
      200: {
        description: 'Logged in: a user of an organization, or a platform operator (`kind: operator`).',
        schema: loginResultSchema,
      },
      401: { description: 'Wrong username or password.' },
      429: { description: 'Too many failed logins (Retry-After).' },
    },
    handler: async ({ services, req, res, body }) => {
      // Login CSRF: a cross-site page must not log the browser into another account.
      if (req.get('sec-fetch-site') === 'cross-site') throw new AppError('csrf_rejected');
      const login = await services.sessions.login(body.username, body.password, req.ip);
      if ('limited' in login) {
        const error = tooManyAttempts(login.retryAfterSeconds);
        retryAfter(res, error);
        throw error;
      }
      await startSession(
        req,
        'operator' in login
          ? { operatorId: login.operator.id }
          : { userId: login.user.userId!, orgId: login.user.orgId },
        'password',
      );
      return { status: 200, body: loginView(login) };
    },
  }),
  defineOperation({
    method: 'post',
    path: '/api/auth/logout',
    tag: 'auth',
    access: 'public',
    summary: 'Destroy the session',
    responses: { 204: { description: 'Logged out.' } },
    handler: async ({ services, req, res }) => {
      if (req.session?.userId || req.session?.operatorId) await promisify((done) => req.session.destroy(done));
      res.clearCookie(services.sessions.cookie.name, services.sessions.cookie.options);
      return { status: 204 };
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/auth/me',
    tag: 'auth',
    // Public, as the spec lists it: a probe of which credentials are in effect, none included.
    // Credentials that were sent and are wrong still answer 401 (they are resolved before routes).
    access: 'public',
    summary: 'The calling principal and the mechanism in effect (none without credentials)',
    responses: {
      200: {
        description:
          'The principal and the scopes it can actually use (its role and its API-key scopes both allow them); ' +
          "for a platform operator's session `kind: operator` with `operator` and no organization; without " +
          'credentials `mechanism: none` with `kind`, `user`, `organization` and `role` null and no scopes.',
        schema: z.union([meSchema, operatorMeSchema, anonymousMeSchema]),
      },
      401: { description: 'Credentials were sent and are invalid, expired or revoked.' },
    },
    handler: async ({ services, req }) => {
      if (req.operator) return { status: 200, body: operatorMeView(req.operator) };
      if (!req.principal) return { status: 200, body: anonymousMeView() };
      const me = await services.sessions.me(req.principal);
      // Sessions say how they were started (sessions from before login methods were recorded: a password).
      if (req.principal.mechanism !== 'session') return { status: 200, body: me };
      return { status: 200, body: { ...me, login_method: req.session.loginMethod ?? 'password' } };
    },
  }),
];
