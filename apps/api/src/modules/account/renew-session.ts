import type { Request } from 'express';
import { startSession } from '../../auth/session-start';

/**
 * After a password change the caller's own session survives: a new session id (the old one is as
 * dead as every other), started just after the cut so sessions.ts keeps accepting it.
 */
export async function renewSession(req: Request, cut: Date): Promise<void> {
  const { userId, orgId, operatorId, loginMethod = 'password' } = req.session;
  const owner = operatorId ? { operatorId } : { userId: userId!, orgId: orgId! };
  await startSession(req, owner, loginMethod, Math.max(Date.now(), cut.getTime() + 1));
}
