import { isoOrNull } from '../http/timestamps';
import { AppError, issueToken } from '@relay/core';
import type { AuditRepository, CredentialRepository } from '@relay/db';
import { Router } from 'express';
import { z } from 'zod';
import { accessFor } from '../legacy-access-table';
import { actorOf } from '../auth/audit-actor';
import { guard, principalOf } from '../auth/guard';
import { validate } from '../http/validate';
import { apiKeyCreateSchema } from './identity.contract';

const view = (k: {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt?: Date | null;
}) => ({
  id: k.id,
  name: k.name,
  prefix: `ts_${k.prefix}`,
  scopes: k.scopes,
  expires_at: isoOrNull(k.expiresAt),
  last_used_at: isoOrNull(k.lastUsedAt),
  created_at: k.createdAt.toISOString(),
});

/** Organization API keys: admins with organization:manage list, create (token shown once) and delete them. */
export function apiKeyRoutes(deps: { credentials: CredentialRepository; audit: AuditRepository }): Router {
  const router = Router();
  router.get('/api/api-keys', guard(accessFor('GET /api/api-keys')), async (req, res) => {
    res.json({ api_keys: (await deps.credentials.listApiKeys(principalOf(req).orgId)).map(view) });
  });
  router.post('/api/api-keys', guard(accessFor('POST /api/api-keys')), async (req, res) => {
    const principal = principalOf(req);
    const body = validate(apiKeyCreateSchema, req.body);
    const issued = issueToken();
    const key = await deps.credentials.createApiKey(principal.orgId, {
      name: body.name,
      prefix: issued.prefix,
      secretHash: issued.secretHash,
      scopes: body.scopes,
      createdById: principal.userId,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
    const { via, ...actor } = actorOf(principal);
    await deps.audit.record(principal.orgId, {
      ...actor,
      action: 'api_key.created',
      resourceType: 'api_key',
      resourceId: key.id,
      metadata: { name: key.name, scopes: key.scopes, ...via },
    });
    res.status(201).json({ ...view(key), token: issued.token });
  });
  router.delete('/api/api-keys/:id', guard(accessFor('DELETE /api/api-keys/:id')), async (req, res) => {
    const principal = principalOf(req);
    const id = String(req.params.id);
    const deleted = z.uuid().safeParse(id).success ? await deps.credentials.deleteApiKey(principal.orgId, id) : null;
    if (!deleted) throw new AppError('not_found', 'No such API key.');
    const { via, ...actor } = actorOf(principal);
    await deps.audit.record(principal.orgId, {
      ...actor,
      action: 'api_key.deleted',
      resourceType: 'api_key',
      resourceId: id,
      metadata: { name: deleted.name, ...via },
    });
    res.status(204).end();
  });
  return router;
}
