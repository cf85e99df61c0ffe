import { AppError, parseToken, secretMatches, userPrincipal, type Principal } from '@relay/core';
import type { CredentialRepository, OperatorRecord } from '@relay/db';
import { loginSchema } from '@relay/contracts';
import type { RequestHandler } from 'express';
import { Passport } from 'passport';
import { BasicStrategy } from 'passport-http';
import { validate } from '../http/validate';
import { checkPassword, type PasswordCheckDeps } from './password-check';
import { retryAfter, tooManyAttempts } from './too-many-attempts';

declare module 'http' {
  interface IncomingMessage {
    principal?: Principal;
    /** A platform operator signed in with a session (never together with a principal). */
    operator?: OperatorRecord;
  }
}

// passport's typings answer `any` for the custom-callback form used here.
type PassportAuthenticate = (
  strategy: string,
  options: { session: false },
  callback: (err: unknown, principal: Principal | false) => void,
) => RequestHandler;

export interface AuthenticateDeps extends PasswordCheckDeps {
  credentials: CredentialRepository;
  now?: () => Date;
}

async function fromBearer(token: string, deps: AuthenticateDeps): Promise<Principal | null> {
  const parsed = parseToken(token);
  if (!parsed) return null;
  const credential = await deps.credentials.findByPrefix(parsed.prefix);
  if (!credential || !secretMatches(parsed.secret, credential.secretHash)) return null;
  const now = deps.now?.() ?? new Date();
  if (credential.expiresAt !== null && credential.expiresAt <= now) return null;
  // A disabled user's personal tokens are refused at once (and work again if the user is re-enabled).
  if (credential.kind === 'personal_token' && credential.user.disabledAt !== null) return null;
  void deps.credentials.touch(credential, now).catch(() => {});
  if (credential.kind === 'api_key') {
    // API keys are created by admins and act as admins, narrowed to their scopes.
    return {
      kind: 'api_key',
      mechanism: 'token',
      orgId: credential.organizationId,
      role: 'admin',
      scopes: credential.scopes,
      userId: null,
      username: null,
      email: null,
      credentialId: credential.id,
    };
  }
  return userPrincipal({ ...credential.user, organizationId: credential.organizationId }, 'token', credential.id);
}

/** HTTP Basic: a user's username and password, through the shared limit (operators sign in with a session only). */
async function fromBasic(
  username: string,
  password: string,
  ip: string | undefined,
  deps: AuthenticateDeps,
): Promise<Principal | null> {
  // The same input rules as the login body (no NUL, bounded lengths): 400 validation_failed.
  validate(loginSchema, { username, password });
  const outcome = await checkPassword(deps, { username, password, ip, mechanism: 'basic' });
  if ('limited' in outcome) throw tooManyAttempts(outcome.retryAfterSeconds);
  return 'user' in outcome ? { ...outcome.user, mechanism: 'basic' } : null;
}

/**
 * Resolves the caller from `Authorization: Bearer ts_…` or HTTP Basic (passport-http). Bad
 * credentials answer 401 at once; no credentials leave the request anonymous for the route's guard.
 * Basic never sends a WWW-Authenticate challenge, so browsers do not pop up a dialog.
 */
export function authenticate(deps: AuthenticateDeps): RequestHandler {
  const basic = new BasicStrategy({ passReqToCallback: true }, (req, username, password, done) => {
    fromBasic(username, password, req.ip, deps).then(
      (principal) => done(null, principal ?? false),
      (err: unknown) => done(err),
    );
  });
  // An authenticator of its own: passport's default instance is process-global, and two apps in
  // one process (tests, or a future second listener) must not share strategies.
  const passport = new Passport();
  passport.use('relay-basic', basic);
  const unauthenticated = () => new AppError('unauthenticated', 'The credentials are invalid, expired or revoked.');
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined) return next();
    const [scheme = '', value = ''] = header.split(' ', 2);
    if (scheme.toLowerCase() === 'bearer') {
      fromBearer(value.trim(), deps).then((principal) => {
        if (!principal) return next(unauthenticated());
        req.principal = principal;
        next();
      }, next);
      return;
    }
    if (scheme.toLowerCase() === 'basic') {
      (passport.authenticate as PassportAuthenticate)(
        'relay-basic',
        { session: false },
        (err: unknown, principal: Principal | false) => {
          if (err) {
            retryAfter(res, err);
            return next(err);
          }
          if (!principal) return next(unauthenticated());
          req.principal = principal;
          next();
        },
      )(req, res, next);
      return;
    }
    next(unauthenticated());
  };
}
