import {
  passwordChangeSchema,
  passwordResetIssuedSchema,
  passwordResetRedeemSchema,
  userSchema,
  uuidParam,
} from '@relay/contracts';
import { retryAfter } from '../../auth/too-many-attempts';
import { defineOperation } from '../../composition/define-operation';
import { renewSession } from './renew-session';

const manage = { role: 'admin', scope: 'organization:manage' } as const;
const users = { tag: 'organization', access: manage, notFound: 'No such user.', params: uuidParam } as const;
const refusals = {
  404: { description: 'No such user.' },
  409: { description: 'Your own account (`own_account`), or the last active admin (`last_admin`).' },
};

/** Sets Retry-After on a 429 before it propagates. */
const withRetryAfter = async <T>(res: Parameters<typeof retryAfter>[0], work: Promise<T>) =>
  work.catch((err: unknown) => {
    retryAfter(res, err);
    throw err;
  });

export const accountOperations = [
  defineOperation({
    method: 'post',
    path: '/api/auth/password',
    tag: 'auth',
    access: { role: 'viewer', scope: null },
    refuseApiKeys: 'An API key has no password.',
    summary: 'Change your password; your other sessions and your personal tokens end',
    body: passwordChangeSchema,
    responses: {
      204: { description: 'Changed. A session caller gets a new session cookie; Basic callers use the new password.' },
      403: { description: 'The current password is wrong (`wrong_password`).' },
      429: { description: 'Too many wrong passwords (Retry-After).' },
    },
    handler: async ({ services, principal, req, res, body }) => {
      const cut = await withRetryAfter(res, services.passwords.change(principal, body, req.ip));
      if (principal.mechanism === 'session') await renewSession(req, cut);
      return { status: 204 };
    },
  }),
  defineOperation({
    method: 'post',
    path: '/api/auth/password-reset',
    tag: 'auth',
    access: 'public',
    summary: 'Set a password with a one-time code from an admin',
    body: passwordResetRedeemSchema,
    responses: {
      204: { description: 'Set; every session and personal token of the user ended.' },
      400: { description: 'The code is unknown, used or expired (`reset_code_invalid`).' },
      429: { description: 'Too many attempts (Retry-After).' },
    },
    handler: async ({ services, req, res, body }) => {
      await withRetryAfter(res, services.passwords.redeemReset(body, req.ip));
      return { status: 204 };
    },
  }),
  defineOperation({
    ...users,
    method: 'post',
    path: '/api/users/:id/password-reset',
    summary: "Issue a one-time code (valid 24 h) that sets a user's password",
    responses: {
      201: { description: 'The code and link, shown only here.', schema: passwordResetIssuedSchema },
      404: { description: 'No such user.' },
    },
    handler: async ({ services, principal, params }) => ({
      status: 201,
      body: await services.passwords.issueReset(principal, params.id),
    }),
  }),
  defineOperation({
    ...users,
    method: 'post',
    path: '/api/users/:id/disable',
    summary: 'Disable a user: sessions, tokens and Basic access are refused at once',
    responses: { 200: { description: 'Disabled.', schema: userSchema }, ...refusals },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.userLifecycle.disable(principal, params.id),
    }),
  }),
  defineOperation({
    ...users,
    method: 'post',
    path: '/api/users/:id/enable',
    summary: 'Re-enable a disabled user',
    responses: { 200: { description: 'Enabled.', schema: userSchema }, ...refusals },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.userLifecycle.enable(principal, params.id),
    }),
  }),
  defineOperation({
    ...users,
    method: 'delete',
    path: '/api/users/:id',
    summary: 'Delete a user (their audit entries are kept)',
    responses: { 204: { description: 'Deleted.' }, ...refusals },
    handler: async ({ services, principal, params }) => {
      await services.userLifecycle.remove(principal, params.id);
      return { status: 204 };
    },
  }),
];
