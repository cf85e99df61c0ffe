import { loginResultSchema, loginSchema, meSchema, operatorMeSchema } from '@relay/contracts';
import { AppError, type Principal } from '@relay/core';
import type { OperatorRecord } from '@relay/db';
import type { Request } from 'express';
import { z } from 'zod';
import { defineOperation } from '../define-operation';
import { loginView, operatorMeView } from './session.views';

const promisify = (run: (done: (err?: Error) => void) => void) =>
  new Promise<void>((resolve, reject) => run((err) => (err ? reject(err) : resolve())));

// A new session id at login: a session id planted before login is worthless after it.
async function startSession(req: Request, login: { user: Principal } | { operator: OperatorRecord }) {
  await promisify((done) => req.session.regenerate(done));
  if ('operator' in login) req.session.operatorId = login.operator.id;
  else {
    req.session.userId = login.user.userId!;
    req.session.orgId = login.user.orgId;
  }
  await promisify((done) => req.session.save(done));
}

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
        res.setHeader('Retry-After', String(login.retryAfterSeconds));
        throw new AppError('too_many_attempts', `Too many failed logins; try again in ${login.retryAfterSeconds} s.`);
      }
      await startSession(req, login);
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
    access: { role: 'viewer', scope: null },
    allowOperator: true,
    summary: 'The calling principal and the mechanism in effect',
    responses: {
      200: {
        description:
          "The principal; for a platform operator's session `kind: operator` with `operator` and no organization.",
        schema: z.union([meSchema, operatorMeSchema]),
      },
    },
    // An operator's session has no principal (so `ctx.principal` is read only for the others).
    handler: async (ctx) => ({
      status: 200,
      body: ctx.req.operator ? operatorMeView(ctx.req.operator) : await ctx.services.sessions.me(ctx.principal),
    }),
  }),
];
