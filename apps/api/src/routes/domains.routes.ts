import { Router } from 'express';
import { accessFor } from '../auth/access-table';
import { guard, principalOf } from '../auth/guard';
import type { DomainActions } from '../domains/domain-actions';
import { idParam } from '../http/params';
import { validate } from '../http/validate';
import { domainCreateSchema } from './domains.contract';

export function domainRoutes(actions: DomainActions): Router {
  const router = Router();
  router.get('/api/domains', guard(accessFor('GET /api/domains')), async (req, res) => {
    res.json({ domains: await actions.list(principalOf(req)) });
  });
  router.post('/api/domains', guard(accessFor('POST /api/domains')), async (req, res) => {
    res.status(201).json(await actions.create(principalOf(req), validate(domainCreateSchema, req.body).domain));
  });
  router.post('/api/domains/:id/verify', guard(accessFor('POST /api/domains/:id/verify')), async (req, res) => {
    res.json(await actions.verify(principalOf(req), idParam(req, 'id', 'domain')));
  });
  router.delete('/api/domains/:id', guard(accessFor('DELETE /api/domains/:id')), async (req, res) => {
    await actions.delete(principalOf(req), idParam(req, 'id', 'domain'));
    res.status(204).end();
  });
  return router;
}
