import { isoOrNull } from '../http/timestamps';
import { AppError, issueToken } from '@relay/core';
import type { AuditRepository, CredentialRepository } from '@relay/db';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { accessFor } from '../legacy-access-table';
import { actorOf } from '../auth/audit-actor';
import { guard, principalOf } from '../auth/guard';
import { validate } from '../http/validate';
import { tokenCreateSchema } from './identity.contract';

const view = (t: {
  id: string;
  name: string;
  prefix: string;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt?: Date | null;
}) => ({
  id: t.id,
  name: t.name,
  prefix: `ts_${t.prefix}`,
  expires_at: isoOrNull(t.expiresAt),
  last_used_at: isoOrNull(t.lastUsedAt),
  created_at: t.createdAt.toISOString(),
});

function owner(req: Request) {
  const principal = principalOf(req);
  if (principal.userId === null)
    throw new AppError('forbidden', 'Personal tokens belong to users; an API key has none.');
  return { principal, userId: principal.userId };
}

/** `/api/auth/tokens`: each user lists, creates and deletes only its own personal tokens. */
export function tokenRoutes(deps: { credentials: CredentialRepository; audit: AuditRepository }): Router {
  const router = Router();
  router.get('/api/auth/tokens', guard(accessFor('GET /api/auth/tokens')), async (req, res) => {
    const { principal, userId } = owner(req);
    res.json({ tokens: (await deps.credentials.listPersonalTokens(principal.orgId, userId)).map(view) });
  });
  router.post('/api/auth/tokens', guard(accessFor('POST /api/auth/tokens')), async (req, res) => {
    const { principal, userId } = owner(req);
    const body = validate(tokenCreateSchema, req.body);
    const issued = issueToken();
    const token = await deps.credentials.createPersonalToken(principal.orgId, userId, {
      name: body.name,
      prefix: issued.prefix,
      secretHash: issued.secretHash,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
    const { via, ...actor } = actorOf(principal);
    await deps.audit.record(principal.orgId, {
      ...actor,
      action: 'token.created',
      resourceType: 'token',
      resourceId: token.id,
      metadata: { name: token.name, ...via },
    });
    res.status(201).json({ ...view(token), token: issued.token });
  });
  router.delete('/api/auth/tokens/:id', guard(accessFor('DELETE /api/auth/tokens/:id')), async (req, res) => {
    const { principal, userId } = owner(req);
    const id = String(req.params.id);
    const deleted = z.uuid().safeParse(id).success
      ? await deps.credentials.deletePersonalToken(principal.orgId, userId, id)
      : null;
    if (!deleted) throw new AppError('not_found', 'No such token.');
    const { via, ...actor } = actorOf(principal);
    await deps.audit.record(principal.orgId, {
      ...actor,
      action: 'token.deleted',
      resourceType: 'token',
      resourceId: id,
      metadata: { name: deleted.name, ...via },
    });
    res.status(204).end();
  });
  return router;
}
