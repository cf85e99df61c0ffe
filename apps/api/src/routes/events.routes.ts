import { AppError } from '@relay/core';
import type { EventQueryRepository } from '@relay/db';
import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
import { guard, principalOf } from '../auth/guard';
import type { EventActions } from '../events/event-actions';
import { attemptView, detailView, filterOf, summaryView } from '../events/event-views';
import { idParam } from '../http/params';
import { validate } from '../http/validate';
import { bulkSelectionSchema, eventListQuery } from './events.contract';

export interface EventRouteDeps {
  queries: EventQueryRepository;
  actions: EventActions;
}

const selectionOf = (body: unknown) => {
  const parsed = validate(bulkSelectionSchema, body);
  return 'ids' in parsed ? { ids: parsed.ids } : { filter: filterOf(parsed.filter) };
};

/** Event history and actions. Fixed paths come before `/events/:id` (Express matches in order). */
export function eventRoutes(deps: EventRouteDeps): Router {
  const router = Router();
  router.get('/events', guard(accessFor('GET /events')), async (req, res) => {
    const query = validate(eventListQuery, req.query);
    const { events, total } = await deps.queries.page(
      principalOf(req).orgId,
      filterOf(query),
      query.page,
      query.per_page,
    );
    res.json({
      events: events.map(summaryView),
      total,
      page: query.page,
      per_page: query.per_page,
      pages: Math.ceil(total / query.per_page),
    });
  });
  router.get('/events/sources', guard(accessFor('GET /events/sources')), async (req, res) => {
    res.json({ sources: await deps.queries.sources(principalOf(req).orgId) });
  });
  router.post('/events/bulk/retry', guard(accessFor('POST /events/bulk/retry')), async (req, res) => {
    const { ids, truncated } = await deps.actions.bulkRetry(principalOf(req), selectionOf(req.body));
    res.json({ affected: ids.length, ids, truncated });
  });
  router.post('/events/bulk/delete', guard(accessFor('POST /events/bulk/delete')), async (req, res) => {
    const { ids, truncated } = await deps.actions.bulkDelete(principalOf(req), selectionOf(req.body));
    res.json({ affected: ids.length, ids, truncated });
  });
  router.get('/events/:id', guard(accessFor('GET /events/:id')), async (req, res) => {
    const event = await deps.queries.findById(principalOf(req).orgId, idParam(req, 'id', 'event'));
    if (!event) throw new AppError('not_found', 'No such event.');
    res.json(detailView(event));
  });
  router.get('/events/:id/attempts', guard(accessFor('GET /events/:id/attempts')), async (req, res) => {
    const attempts = await deps.queries.attempts(principalOf(req).orgId, idParam(req, 'id', 'event'));
    if (!attempts) throw new AppError('not_found', 'No such event.');
    res.json({ attempts: attempts.map(attemptView) });
  });
  router.post('/events/:id/retry', guard(accessFor('POST /events/:id/retry')), async (req, res) => {
    const id = idParam(req, 'id', 'event');
    await deps.actions.retry(principalOf(req), id);
    res.status(202).json({ id, status: 'queued' });
  });
  router.post('/events/:id/ack', guard(accessFor('POST /events/:id/ack')), async (req, res) => {
    const principal = principalOf(req);
    const id = idParam(req, 'id', 'event');
    await deps.actions.acknowledge(principal, id);
    const event = await deps.queries.findById(principal.orgId, id);
    if (!event) throw new AppError('not_found', 'No such event.');
    res.json(summaryView(event));
  });
  router.delete('/events/:id', guard(accessFor('DELETE /events/:id')), async (req, res) => {
    await deps.actions.delete(principalOf(req), idParam(req, 'id', 'event'));
    res.status(204).end();
  });
  return router;
}
