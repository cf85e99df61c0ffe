import { AppError } from '@relay/core';
import type { Request, RequestHandler } from 'express';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a browser request comes from the relay's own origin (Fetch Metadata, else Origin: scheme, host and port). */
export function isSameOrigin(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = req.get('origin');
  if (origin === undefined) return false;
  try {
    // Scheme, host and port all count: http://relay.example or https://relay.example:8443 are other
    // origins than https://relay.example. `req.protocol` and `req.host` believe X-Forwarded-Proto/-Host
    // only from TRUST_PROXY proxies; URL#origin drops a scheme's default port on both sides.
    return new URL(origin).origin === new URL(`${req.protocol}://${req.host}`).origin;
  } catch {
    return false;
  }
}

// Cookies ride along on cross-site requests, so every state change made with a session must prove
// it comes from the relay's own pages: Sec-Fetch-Site same-origin, or an Origin equal to the request's own.
// Bearer and Basic credentials are never sent by a browser on its own, so they are not affected.
export const csrfGuard: RequestHandler = (req, _res, next) => {
  if (SAFE.has(req.method) || (req.principal?.mechanism !== 'session' && !req.operator)) return next();
  if (!isSameOrigin(req)) return next(new AppError('csrf_rejected'));
  next();
};
