import { streamQuery } from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';
import { parseLastEventId } from './event-stream';

// `GET /events/stream`; mounted before `/events/:id` so `stream` is not taken for an id. The
// handler writes the Server-Sent Events itself and answers no Reply.
export const streamOperations = [
  defineOperation({
    method: 'get',
    path: '/events/stream',
    tag: 'events',
    access: { role: 'viewer', scope: 'events:read' },
    summary: "Live feed of the organization's events (Server-Sent Events)",
    description:
      'Messages `event.created`, `attempt`, `event.status`, `event.deleted` and `delivery.status` (a destination ' +
      'delivery made or changed: `{ event_id, delivery_id, destination_id, status, attempt_count }`), each with ' +
      '`id:` (ms timestamp) and a JSON `data:` line; comment heartbeats keep the connection open. ' +
      'Reconnecting with `Last-Event-ID` replays from the database what happened since ' +
      '(at least once: deduplicate on the message id and type). ' +
      '`event: replay.truncated` means more happened than is replayed: reload the list.',
    query: streamQuery,
    responses: {
      200: { description: 'The stream.', contentType: 'text/event-stream', schema: z.string() },
      503: { description: 'The feed (Redis) is unavailable (`stream_unavailable`).' },
    },
    handler: async ({ services, principal, query, req, res }) => {
      const lastEventId = parseLastEventId(req.get('last-event-id') ?? query.last_event_id);
      await services.streams.serve(res, principal.orgId, lastEventId);
      return undefined;
    },
  }),
];
