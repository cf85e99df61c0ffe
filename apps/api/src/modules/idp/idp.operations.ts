import { idpCallbackQuerySchema, idpLoginQuerySchema } from '@relay/contracts';
import { AppError, DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import type { Request } from 'express';
import { promisify, startSession } from '../../auth/session-start';
import { defineOperation } from '../../composition/define-operation';
import { callbackErrorCode, signInPageFor } from './idp-callback-failure';

// Where the login starts: the callback comes back to this origin, where the host-only session cookie is.
const originOf = (req: Request) => `${req.protocol}://${req.host}`;

const SIGN_IN_FAILED =
  'A failed login (no session started): to the sign-in page, `/app/login?error=<code>[&redirect=<page>]`, with ' +
  'the reason of `idp_login_failed` (state_mismatch, provider_error, code_rejected, id_token_invalid, ' +
  'provider_unreachable, not_provisioned, email_not_verified, domain_not_allowed, user_disabled, …) or ' +
  '`idp_not_configured` as the code.';

const failures = {
  400: { description: 'A `return_to` that is not a path on this relay.' },
  401: {
    description:
      'A link (`link=1`) that failed: `idp_login_failed` with a `reason`, audited. (A login redirects to the ' +
      'sign-in page instead.)',
  },
  404: { description: '`idp_not_configured`: no identity provider for this organization (or no such organization).' },
};

export const idpOperations = [
  defineOperation({
    method: 'get',
    path: '/api/auth/idp',
    tag: 'auth',
    access: 'public',
    summary: "Redirect to the identity provider's login",
    description:
      'Starts an OpenID Connect login (Authorization Code with PKCE, state and nonce kept in the session) and ' +
      'redirects to the provider. After the callback the browser lands on `return_to` (a path on this relay) ' +
      'or /app/. ' +
      'The organization: `organization` (a slug), else the one of the host; the callback is on the same host. ' +
      'With `link=1` (signed in with a session only) the identity is linked to the signed-in user.',
    query: idpLoginQuerySchema,
    responses: {
      302: {
        description:
          "To the provider's authorization endpoint; when the provider cannot be reached (audited), to the " +
          'sign-in page with `?error=provider_unreachable`.',
      },
      ...failures,
    },
    handler: async ({ services, req, res, query }) => {
      let orgId: OrgId;
      let linkUserId: string | undefined;
      if (query.link) {
        // Linking adds a way into an existing account: only its signed-in owner may, in its own organization.
        const principal = req.principal;
        if (principal?.kind !== 'user' || principal.mechanism !== 'session') throw new AppError('unauthenticated');
        [orgId, linkUserId] = [principal.orgId, principal.userId!];
      } else orgId = await services.idpLogin.organizationFor(req.hostname, query.organization);
      const returnTo = query.return_to ?? '/app/';
      const started = await services.idpLogin
        .start(orgId, returnTo, req.ip, originOf(req), linkUserId)
        .catch((err: unknown) => {
          // E.g. the provider cannot be reached (audited): the sign-in page says so, unless this is a link.
          const code = callbackErrorCode(err);
          if (code === undefined || code === 'idp_not_configured' || linkUserId) throw err;
          res.redirect(302, signInPageFor(code, returnTo));
          return undefined;
        });
      if (!started) return undefined;
      const { url, pending } = started;
      req.session.idpLogin = pending;
      await promisify((done) => req.session.save(done));
      res.redirect(302, url);
      return undefined;
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/auth/callback/idp',
    tag: 'auth',
    access: 'public',
    summary: 'Login callback from the identity provider',
    description:
      "Completes the login started by GET /api/auth/idp: the provider's answer is checked (state, PKCE, the ID " +
      "token's signature, issuer, audience, expiry and nonce), the user found by (issuer, subject) or provisioned, " +
      'and a session started (`login_method: idp`) in the organization the login started for. A link ' +
      '(`?link=1` at the start) adds the identity to the signed-in user instead (`409 identity_taken` when ' +
      'another user has it). A failure of a login this browser started (its `state`) is audited as ' +
      '`auth.login_failed`; a callback of no such login (`no_login_in_progress`, `state_mismatch`) is only ' +
      'logged and counted (`relay_idp_callback_rejected_total`).',
    query: idpCallbackQuerySchema,
    responses: {
      302: { description: `Signed in (or the identity linked): to \`return_to\` or /app/. ${SIGN_IN_FAILED}` },
      ...failures,
      409: { description: 'A link of an identity another user has already (`identity_taken`).' },
    },
    handler: async ({ services, req, res }) => {
      // One use: whatever happens next, this login attempt is over.
      const pending = req.session.idpLogin;
      if (pending) {
        delete req.session.idpLogin;
        await promisify((done) => req.session.save(done));
      }
      const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      try {
        if (pending?.linkUserId) {
          await services.idpLogin.link(pending, req.principal, search, req.ip);
          res.redirect(302, pending.returnTo);
          return undefined;
        }
        // The session is only ever for the organization the login started for (kept in this browser's session).
        const orgId = (pending?.organizationId as OrgId | undefined) ?? DEFAULT_ORGANIZATION_ID;
        const user = await services.idpLogin.complete(orgId, pending, search, req.ip);
        await startSession(req, { userId: user.userId!, orgId: user.orgId }, 'idp');
        res.redirect(302, pending?.returnTo ?? '/app/');
      } catch (err) {
        const code = services.idpLogin.callbackFailed(err, pending, req.ip);
        // A person's browser follows this: the sign-in page says why, not a JSON problem. A link's failure
        // (signed in, from the Account page) stays the problem its start would answer.
        if (code === undefined || pending?.linkUserId) throw err;
        res.redirect(302, signInPageFor(code, pending?.returnTo));
      }
      return undefined;
    },
  }),
];
