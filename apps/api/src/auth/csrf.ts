import { AppError } from '@relay/core';
import type { Request, RequestHandler } from 'express';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a browser request comes from the relay's own origin (Fetch Metadata, else Origin). */
export function isSameOrigin(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = req.get('origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

// Cookies ride along on cross-site requests, so every state change made with a session must prove
// it comes from the relay's own pages: Sec-Fetch-Site same-origin, or an Origin equal to the Host.
// Bearer and Basic credentials are never sent by a browser on its own, so they are not affected.
export const csrfGuard: RequestHandler = (req, _res, next) => {
  if (SAFE.has(req.method) || (req.principal?.mechanism !== 'session' && !req.operator)) return next();
  if (!isSameOrigin(req)) return next(new AppError('csrf_rejected'));
  next();
};
