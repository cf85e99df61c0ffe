import { asOrgId, userPrincipal } from '@relay/core';
import type { OperatorRepository, UserRepository } from '@relay/db';
import { RedisStore } from 'connect-redis';
import type { RequestHandler } from 'express';
import session from 'express-session';
import type { RedisClientType } from 'redis';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    orgId?: string;
    operatorId?: string;
  }
}

export interface SessionOptions {
  client: RedisClientType;
  secret: string;
  ttlSeconds: number;
  secure: boolean;
  prefix: string;
}

/** The cookie's name: `__Host-` pins it to this host over TLS; never express-session's default. */
export const sessionCookieName = (secure: boolean) => (secure ? '__Host-relay_session' : 'relay_session');

// Sessions live in Redis (shared by every api process) with a TTL; the cookie is HttpOnly and
// SameSite=Lax, and holds only the signed session id.
export function sessionMiddleware(options: SessionOptions): RequestHandler {
  return session({
    name: sessionCookieName(options.secure),
    secret: options.secret,
    store: new RedisStore({ client: options.client, prefix: `${options.prefix}:sess:`, ttl: options.ttlSeconds }),
    resave: false,
    saveUninitialized: false,
    rolling: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: options.secure, path: '/', maxAge: options.ttlSeconds * 1000 },
  });
}

/** A logged-in session becomes the principal, unless the request already carries a token or Basic. */
export function sessionPrincipal(users: UserRepository, operators: OperatorRepository): RequestHandler {
  return (req, _res, next) => {
    const { userId, orgId, operatorId } = req.session ?? {};
    if (!req.principal && !req.headers.authorization && operatorId) {
      operators.findById(operatorId).then((operator) => {
        if (operator) req.operator = operator;
        next();
      }, next);
      return;
    }
    if (req.principal || !userId || !orgId) return next();
    users.findById(asOrgId(orgId), userId).then((user) => {
      if (user) req.principal = userPrincipal(user, 'session');
      next();
    }, next);
  };
}
