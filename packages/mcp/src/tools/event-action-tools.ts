import { dataOf } from '@relay/client';
import { eventActionSchema } from '@relay/contracts';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';
import { BULK_RETRY_EVENTS } from './bulk-retry-tool';
import { eventSummaryOf, eventSummaryShape } from './event-views';

const eventId = z.uuid().describe('The event id, from list_events.');
const destinationInput = eventActionSchema.shape.destination_id.describe(
  `${eventActionSchema.shape.destination_id.description ?? ''} Its id is in get_event's deliveries.`,
);
/** The action's request: with a destination the body `{destination_id}`, else none (the primary target). */
const actionRequest = (id: string, destination_id: string | undefined) => ({
  params: { path: { id } },
  ...(destination_id ? { body: { destination_id } } : {}),
});

const retryEvent = defineTool({
  name: 'retry_event',
  title: 'Retry an event',
  description:
    'Starts a new delivery run of one failed or delivered event: it is queued again and sent to its target with ' +
    'a fresh set of attempts (same webhook-id, so receivers can de-duplicate). Use it after the cause of a ' +
    'failure is fixed; confirm with the user first, since a delivered event is delivered again. A queued event ' +
    'cannot be retried (event_not_retryable), nor a paused one (event_paused: resume its rule with resume_rule). ' +
    "With destination_id, only that destination's delivery of the event starts a new run (the primary target " +
    'and the other deliveries are untouched; a paused delivery waits for resume_destination: delivery_paused). ' +
    'Returns at once: check the outcome later with get_event.',
  operation: 'POST /events/{id}/retry',
  input: { id: eventId, destination_id: destinationInput },
  output: {
    id: z.string(),
    status: z.literal('queued'),
    destination_id: z.string().optional().describe('The destination whose delivery was queued again.'),
    link: z.string(),
  },
  // Not idempotent: each call starts another run and sends the webhook again.
  annotations: { destructiveHint: false, idempotentHint: false },
  async run({ id, destination_id }, { client, link }) {
    const queued = await dataOf(client.POST('/events/{id}/retry', actionRequest(id, destination_id)));
    return {
      id: queued.id,
      status: queued.status,
      ...(queued.destination_id ? { destination_id: queued.destination_id } : {}),
      link: link(`/events/${id}`),
    };
  },
});

const acknowledgeEvent = defineTool({
  name: 'acknowledge_event',
  title: 'Acknowledge a failed event',
  description:
    'Marks a failed event as seen, so it no longer needs attention (needs_attention false) without being ' +
    'retried; it stays failed. Use it when a failure is understood and no retry is wanted. The retrying head ' +
    "of an ordered rule's blocked key (rule_blocked_keys) can be acknowledged too: it is given up on (failed, " +
    'reason acknowledged) and its key moves on. Other events are refused (event_not_failed); acknowledging one ' +
    "again changes nothing. With destination_id, that destination's failed delivery is acknowledged instead " +
    '(delivery_not_failed otherwise) and the event is untouched. Returns the event.',
  operation: 'POST /events/{id}/ack',
  input: { id: eventId, destination_id: destinationInput },
  output: eventSummaryShape,
  // A second acknowledgement keeps the first one's time: the api sets it only when unset.
  annotations: { destructiveHint: false, idempotentHint: true },
  async run({ id, destination_id }, { client, link }) {
    return eventSummaryOf(await dataOf(client.POST('/events/{id}/ack', actionRequest(id, destination_id))), link);
  },
});

const deleteEvent = defineTool({
  name: 'delete_event',
  title: 'Delete an event',
  description:
    'Deletes one event with its payload and attempts, for good (e.g. a payload that must not be kept). It ' +
    'cannot be undone: confirm with the user first. Returns the deleted id.',
  operation: 'DELETE /events/{id}',
  input: { id: eventId },
  output: { id: z.string(), deleted: z.literal(true) },
  annotations: { destructiveHint: true, idempotentHint: true },
  async run({ id }, { client }) {
    await dataOf(client.DELETE('/events/{id}', { params: { path: { id } } }));
    return { id, deleted: true as const };
  },
});

export const EVENT_ACTION_TOOLS: readonly AnyRelayTool[] = [
  retryEvent,
  acknowledgeEvent,
  deleteEvent,
  BULK_RETRY_EVENTS,
];
