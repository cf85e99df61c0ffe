import { randomUUID } from 'node:crypto';
import { AppError, asOrgId, parseToken, secretMatches, userPrincipal, type Principal } from '@relay/core';
import type { CredentialRepository, OperatorRecord, OperatorRepository, UserRepository } from '@relay/db';
import type { RequestHandler } from 'express';
import { Passport } from 'passport';
import { BasicStrategy } from 'passport-http';
import type { PasswordHasher } from './passwords';

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

export interface AuthenticateDeps {
  users: UserRepository;
  credentials: CredentialRepository;
  passwords: PasswordHasher;
  operators: OperatorRepository;
  now?: () => Date;
}

// A hash to verify against when the user does not exist, so an unknown user costs as much as a
// wrong password and the two cannot be told apart by timing. Made once, with the configured cost.
const dummyHashes = new WeakMap<PasswordHasher, Promise<string>>();
function dummyHash(passwords: PasswordHasher): Promise<string> {
  let hashed = dummyHashes.get(passwords);
  if (!hashed) {
    hashed = passwords.hash(randomUUID());
    dummyHashes.set(passwords, hashed);
  }
  return hashed;
}

async function fromBearer(token: string, deps: AuthenticateDeps): Promise<Principal | null> {
  const parsed = parseToken(token);
  if (!parsed) return null;
  const credential = await deps.credentials.findByPrefix(parsed.prefix);
  if (!credential || !secretMatches(parsed.secret, credential.secretHash)) return null;
  const now = deps.now?.() ?? new Date();
  if (credential.expiresAt !== null && credential.expiresAt <= now) return null;
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

/** HTTP Basic: a user's username and password (operators sign in with a session only); null for any failure. */
export async function verifyPassword(
  username: string,
  password: string,
  deps: AuthenticateDeps,
): Promise<Principal | null> {
  const login = await verifyLogin(username, password, deps);
  return login && 'user' in login ? { ...login.user, mechanism: 'basic' } : null;
}

/**
 * Password login: a user of an organization, or else a platform operator (usernames are unique
 * across both). One hash verification either way, so neither existence nor kind leaks by timing.
 */
export async function verifyLogin(
  username: string,
  password: string,
  deps: AuthenticateDeps,
): Promise<{ user: Principal } | { operator: OperatorRecord } | null> {
  const user = await deps.users.findByUsernameForLogin(username);
  const operator = user ? null : await deps.operators.findByUsernameForLogin(username);
  const ok = await deps.passwords.verify(
    user?.passwordHash ?? operator?.passwordHash ?? (await dummyHash(deps.passwords)),
    password,
  );
  if (!ok) return null;
  if (user) return { user: userPrincipal({ ...user, organizationId: asOrgId(user.organizationId) }, 'session') };
  if (operator) return { operator: { id: operator.id, username: operator.username, createdAt: operator.createdAt } };
  return null;
}

/**
 * Resolves the caller from `Authorization: Bearer ts_…` or HTTP Basic (passport-http). Bad
 * credentials answer 401 at once; no credentials leave the request anonymous for the route's guard.
 * Basic never sends a WWW-Authenticate challenge, so browsers do not pop up a dialog.
 */
export function authenticate(deps: AuthenticateDeps): RequestHandler {
  const basic = new BasicStrategy((username, password, done) => {
    verifyPassword(username, password, deps).then(
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
          if (err) return next(err);
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
