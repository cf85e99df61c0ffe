import { AppError, checkAccess, type AccessRule, type Principal } from '@relay/core';
import type { Request, RequestHandler } from 'express';

/** Enforces one row of the authorization table: 401 without a principal, 403 for a wrong role or scope. */
export function guard(rule: AccessRule): RequestHandler {
  return (req, _res, next) => {
    if (!req.principal) return next(new AppError('unauthenticated'));
    const decision = checkAccess(req.principal, rule);
    if (!decision.ok) {
      return next(new AppError('forbidden', decision.reason === 'role' ? `This needs the ${rule.role} role.` : `This needs the ${rule.scope} scope.`));
    }
    next();
  };
}

export function principalOf(req: Request): Principal {
  if (!req.principal) throw new AppError('unauthenticated');
  return req.principal;
}
