import { z } from 'zod';
import { operations } from '../openapi/operation';

export const streamQuery = z
  .object({
    last_event_id: z
      .string()
      .optional()
      .describe('Resume after this message id, for clients that cannot send the `Last-Event-ID` header.'),
  })
  .strict();

export const streamOperations = operations([
  {
    method: 'get',
    path: '/events/stream',
    tag: 'events',
    access: 'GET /events/stream',
    summary: "Live feed of the organization's events (Server-Sent Events)",
    description:
      'Messages `event.created`, `attempt`, `event.status` and `event.deleted`, each with `id:` (ms timestamp) and a JSON `data:` line; comment heartbeats keep the connection open. ' +
      'Reconnecting with `Last-Event-ID` replays from the database what happened since (at least once: deduplicate on the message id and type). ' +
      '`event: replay.truncated` means more happened than is replayed: reload the list.',
    query: streamQuery,
    responses: {
      200: { description: 'The stream.', contentType: 'text/event-stream', schema: z.string() },
      503: { description: 'The feed (Redis) is unavailable (`stream_unavailable`).' },
    },
  },
]);
