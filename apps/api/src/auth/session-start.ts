import type { Request } from 'express';
import { sessionStoreUnavailable } from './session-store-unavailable';

/** express-session's callback methods (regenerate, save, destroy) as promises; their failures are the store's. */
export const promisify = (run: (done: (err?: Error) => void) => void) =>
  new Promise<void>((resolve, reject) => run((err) => (err ? reject(sessionStoreUnavailable(err)) : resolve())));

/** Whose session it is: a user of an organization, or a platform operator. */
export type SessionOwner = { userId: string; orgId: string } | { operatorId: string };

/**
 * Starts a session under a new id — at a password or identity-provider login, and when a password change renews the
 * caller's own session — so an id planted or seen before is worthless after it. `startedAt` is compared with the
 * account's `sessions_valid_after` (sessions.ts): a later password change, reset or disable ends this session.
 */
export async function startSession(
  req: Request,
  owner: SessionOwner,
  loginMethod: 'password' | 'idp',
  startedAt = Date.now(),
): Promise<void> {
  await promisify((done) => req.session.regenerate(done));
  if ('operatorId' in owner) req.session.operatorId = owner.operatorId;
  else {
    req.session.userId = owner.userId;
    req.session.orgId = owner.orgId;
  }
  req.session.startedAt = startedAt;
  req.session.loginMethod = loginMethod;
  await promisify((done) => req.session.save(done));
}
