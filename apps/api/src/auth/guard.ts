import { AppError, checkAccess, type AccessRule } from '@relay/core';
import type { RequestHandler } from 'express';

/** Enforces one row of the authorization table: 401 without a principal, 403 for a wrong role or scope. */
export function guard(rule: AccessRule): RequestHandler {
  return (req, _res, next) => {
    // An operator belongs to no organization: the tenant API is not theirs.
    if (!req.principal && req.operator)
      return next(
        new AppError(
          'forbidden',
          'Platform operators use /api/platform; sign in as a user of the organization instead.',
        ),
      );
    if (!req.principal) return next(new AppError('unauthenticated'));
    const decision = checkAccess(req.principal, rule);
    if (!decision.ok) {
      return next(
        new AppError(
          'forbidden',
          decision.reason === 'role' ? `This needs the ${rule.role} role.` : `This needs the ${rule.scope} scope.`,
        ),
      );
    }
    next();
  };
}

/** Operator-only routes: a platform operator's session; every other caller is refused. */
export const operatorOnly: RequestHandler = (req, _res, next) => {
  if (req.operator) return next();
  if (req.principal)
    return next(new AppError('forbidden', 'Only platform operators, signed in with a session, may do this.'));
  next(new AppError('unauthenticated'));
};
