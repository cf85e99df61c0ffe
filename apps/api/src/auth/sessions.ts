import { asOrgId, userPrincipal } from '@relay/core';
import type { OperatorRepository, UserRepository } from '@relay/db';
import { RedisStore } from 'connect-redis';
import type { RequestHandler } from 'express';
import session from 'express-session';
import type { NodeRedisClient } from '@relay/queue';
import { sessionStoreUnavailable } from './session-store-unavailable';

/** What the session keeps between the redirect to the identity provider and the callback. */
export interface PendingIdpLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The organization the login is for: the callback signs in to this one only. */
  organizationId: string;
  redirectUri: string;
  returnTo: string;
  startedAt: number;
  /** Set when a signed-in user links an identity: the callback links it to this user, signing nobody in. */
  linkUserId?: string;
}

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    orgId?: string;
    operatorId?: string;
    /** When the login happened (ms): a session older than the user's `sessions_valid_after` is over. */
    startedAt?: number;
    /** How the session was started: a password, or the identity provider. */
    loginMethod?: 'password' | 'idp';
    /** An identity-provider login under way: what the callback must find again (state, nonce, PKCE). */
    idpLogin?: PendingIdpLogin;
  }
}

export interface SessionOptions {
  /** get, set, expire and del of one key each: a single server, a Sentinel-managed primary or a cluster. */
  client: Pick<NodeRedisClient, 'get' | 'set' | 'expire' | 'del'>;
  secret: string;
  ttlSeconds: number;
  secure: boolean;
  prefix: string;
}

/** The cookie's name: `__Host-` pins it to this host over TLS; never express-session's default. */
export const sessionCookieName = (secure: boolean) => (secure ? '__Host-relay_session' : 'relay_session');

// Sessions live in Redis (shared by every api process) with a TTL; the cookie is HttpOnly and
// SameSite=Lax, and holds only the signed session id. What express-session hands on as an error is the
// store's (reading the session, or saving it as the answer ends): Redis is away, so the answer is a 503.
export function sessionMiddleware(options: SessionOptions): RequestHandler {
  const middleware = session({
    name: sessionCookieName(options.secure),
    secret: options.secret,
    store: new RedisStore({ client: options.client, prefix: `${options.prefix}:sess:`, ttl: options.ttlSeconds }),
    resave: false,
    saveUninitialized: false,
    rolling: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: options.secure, path: '/', maxAge: options.ttlSeconds * 1000 },
  });
  return (req, res, next) => middleware(req, res, (err?: unknown) => next(err ? sessionStoreUnavailable(err) : err));
}

/**
 * Whether a session started after the account's cut (a password change, reset or disable): the
 * session must have started after it; one without a start time predates the cut.
 */
export const sessionStillValid = (startedAt: number | undefined, validAfter: Date | null) =>
  validAfter === null || (startedAt !== undefined && startedAt > validAfter.getTime());

/** A logged-in session becomes the principal, unless the request already carries a token or Basic. */
export function sessionPrincipal(users: UserRepository, operators: OperatorRepository): RequestHandler {
  return (req, _res, next) => {
    const { userId, orgId, operatorId, startedAt } = req.session ?? {};
    if (!req.principal && !req.headers.authorization && operatorId) {
      operators.findForSession(operatorId).then((found) => {
        if (found && sessionStillValid(startedAt, found.sessionsValidAfter)) {
          req.operator = { id: found.id, username: found.username, createdAt: found.createdAt };
        }
        next();
      }, next);
      return;
    }
    if (req.principal || !userId || !orgId) return next();
    users.findById(asOrgId(orgId), userId).then((user) => {
      // A disabled user's sessions end at once; so do those started before a password change.
      if (user && user.disabledAt === null && sessionStillValid(startedAt, user.sessionsValidAfter)) {
        req.principal = userPrincipal(user, 'session');
      }
      next();
    }, next);
  };
}
