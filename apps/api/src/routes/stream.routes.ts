import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
import { guard, principalOf } from '../auth/guard';
import { validate } from '../http/validate';
import { parseLastEventId, type EventStreams } from '../stream/event-stream';
import { streamQuery } from './stream.contract';

/** `GET /events/stream`; mounted before the event routes so `stream` is not taken for an id. */
export function streamRoutes(streams: EventStreams): Router {
  const router = Router();
  router.get('/events/stream', guard(accessFor('GET /events/stream')), async (req, res) => {
    const query = validate(streamQuery, req.query);
    const lastEventId = parseLastEventId(req.get('last-event-id') ?? query.last_event_id);
    await streams.serve(res, principalOf(req).orgId, lastEventId);
  });
  return router;
}
