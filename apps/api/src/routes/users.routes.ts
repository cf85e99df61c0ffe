import { AppError } from '@relay/core';
import type { AuditRepository, OrganizationRepository, UserRecord, UserRepository } from '@relay/db';
import { Router } from 'express';
import { z } from 'zod';
import { accessFor } from '../legacy-access-table';
import { actorOf } from '../auth/audit-actor';
import { guard, principalOf } from '../auth/guard';
import { createUser } from '../auth/create-user';
import type { PasswordHasher } from '../auth/passwords';
import { validate } from '../http/validate';
import { newUserSchema, roleChangeSchema } from './identity.contract';

const view = (u: UserRecord) => ({
  id: u.id,
  username: u.username,
  email: u.email,
  role: u.role,
  created_at: u.createdAt.toISOString(),
});

export interface UserRouteDeps {
  users: UserRepository;
  organizations: OrganizationRepository;
  audit: AuditRepository;
  passwords: PasswordHasher;
}

/** Users of the caller's organization; admins add users and change roles (never the last admin). */
export function userRoutes(deps: UserRouteDeps): Router {
  const router = Router();
  router.get('/api/users', guard(accessFor('GET /api/users')), async (req, res) => {
    res.json({ users: (await deps.users.list(principalOf(req).orgId)).map(view) });
  });

  router.post('/api/users', guard(accessFor('POST /api/users')), async (req, res) => {
    const principal = principalOf(req);
    const body = validate(newUserSchema, req.body);
    const { via, actorUserId, actorEmail } = actorOf(principal);
    const user = await createUser(deps, principal.orgId, body, { userId: actorUserId, email: actorEmail, via });
    res.status(201).json(view(user));
  });

  router.patch('/api/users/:id/role', guard(accessFor('PATCH /api/users/:id/role')), async (req, res) => {
    const principal = principalOf(req);
    const { role } = validate(roleChangeSchema, req.body);
    const id = String(req.params.id);
    const result = z.uuid().safeParse(id).success
      ? await deps.users.updateRole(principal.orgId, id, role)
      : 'not_found';
    if (result === 'not_found') throw new AppError('not_found', 'No such user.');
    if (result === 'last_admin') throw new AppError('last_admin');
    const { via, ...actor } = actorOf(principal);
    await deps.audit.record(principal.orgId, {
      ...actor,
      action: 'user.role_updated',
      resourceType: 'user',
      resourceId: id,
      metadata: { from: result.previous, to: role, ...via },
    });
    res.json(view(result.user));
  });

  router.get('/api/organization', guard(accessFor('GET /api/organization')), async (req, res) => {
    const organization = await deps.organizations.findById(principalOf(req).orgId);
    if (!organization) throw new AppError('not_found', 'No such organization.');
    res.json({ id: organization.id, slug: organization.slug, name: organization.name });
  });
  return router;
}
