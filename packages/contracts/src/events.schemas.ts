import { EVENT_STATUSES } from '@relay/core';
import { z } from 'zod';
import { dateTimeInput, pageEnvelope, pageQuery, timestamp } from './common.schemas';

export const BULK_CAP = 1000;
/** Statuses of a destination delivery (no `ignored`: a filtered-out destination gets no delivery). */
export const DELIVERY_STATUSES = ['queued', 'delivered', 'failed', 'paused'] as const;

const filterFields = {
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Case-insensitive text in source, payload and headers; never in a sensitive header (Authorization, X-Api-Key, ' +
        'SENSITIVE_HEADERS: docs/security.md).',
    ),
  status: z.enum(EVENT_STATUSES).optional(),
  source: z.string().max(64).optional(),
  rule_id: z.uuid().optional().describe('Events stored for this rule (a source can feed several rules).'),
  from: dateTimeInput().optional().describe('Created at or after (ISO 8601).'),
  to: dateTimeInput().optional().describe('Created before (ISO 8601).'),
  needs_attention: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: failed and not acknowledged; false: every other event.'),
  delivery_status: z
    .enum(DELIVERY_STATUSES)
    .optional()
    .describe(
      'Events with at least one destination delivery in this status (`failed`: a failed delivery; docs/routing.md). ' +
        "With `destination_id`: that destination's delivery.",
    ),
  destination_id: z.uuid().optional().describe('Events with a delivery to this destination.'),
};
const deliveryTarget = {
  destination_id: z
    .uuid()
    .optional()
    .describe("Act on this destination's delivery of the event alone; omitted: on the primary target only."),
};
/** Body of `POST /events/{id}/retry` and `/ack`: optional; `{}` or none acts on the primary target. */
export const eventActionSchema = z.object(deliveryTarget).strict();
export const eventFilterSchema = z.object(filterFields).strict();
export const eventListQuery = pageQuery.extend(filterFields);
const selectAll = z
  .literal(true)
  .optional()
  .describe('Required when `filter` is empty: says that every event of the organization is meant.');
export const bulkSelectionSchema = z
  .union([
    z.object({ ids: z.array(z.uuid()).min(1).max(BULK_CAP) }).strict(),
    z.object({ filter: eventFilterSchema, all: selectAll }).strict(),
  ])
  .describe(
    `Either explicit ids (at most ${BULK_CAP}) or the list filters (the oldest ${BULK_CAP} matches per call); ` +
      'an empty filter needs `"all": true` beside it (else 400 `bulk_all_required`).',
  );

/** `POST /events/bulk/retry`: a selection, and optionally the destination whose deliveries to retry. */
export const bulkRetrySchema = z
  .union([
    z.object({ ids: z.array(z.uuid()).min(1).max(BULK_CAP), ...deliveryTarget }).strict(),
    z.object({ filter: eventFilterSchema, all: selectAll, ...deliveryTarget }).strict(),
  ])
  .describe(
    "A selection as for bulk delete; with `destination_id`, retries that destination's failed or delivered " +
      'deliveries of the selected events (events without one, and its queued or paused ones, are skipped), else ' +
      'the primary target as before.',
  );

export const deliveryCountsSchema = z
  .object({
    total: z.number().int(),
    queued: z.number().int(),
    delivered: z.number().int(),
    failed: z.number().int(),
    paused: z.number().int(),
  })
  .describe("The event's destination deliveries by status (all 0: the rule has no destination that took it).");
export const eventSummarySchema = z.object({
  id: z.uuid(),
  source: z.string(),
  status: z.enum(EVENT_STATUSES),
  provider_id: z.uuid().nullable(),
  target_url: z.string().nullable(),
  attempt_count: z.number().int(),
  failure_reason: z.string().nullable(),
  last_error: z
    .string()
    .nullable()
    .describe("The last attempt's error on the primary target (the response status and body, or why no answer)."),
  acknowledged: z.boolean(),
  acknowledged_at: timestamp.nullable(),
  created_at: timestamp,
  delivered_at: timestamp.nullable(),
  delivery_counts: deliveryCountsSchema,
});
/** One destination delivery of an event (routing, docs/routing.md "Destinations"). */
export const eventDeliverySchema = z.object({
  id: z.uuid().describe("The delivery's id, sent as its webhook-id."),
  destination_id: z.uuid(),
  target_url: z.string().describe("The destination's target."),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  failure_reason: z.string().nullable(),
  last_error: z.string().nullable(),
  acknowledged: z.boolean().describe('A failed delivery an operator acknowledged (`POST /events/{id}/ack`).'),
  next_attempt_at: timestamp.nullable(),
  delivered_at: timestamp.nullable(),
});
export const eventDetailSchema = eventSummarySchema.extend({
  payload: z.unknown().describe('The stored JSON payload.'),
  payload_as_text: z
    .literal(true)
    .optional()
    .describe('Present when `payload` is the stored text (a string): not JSON, or nested too deep to re-serialise.'),
  headers: z
    .record(z.string(), z.string())
    .describe(
      'The inbound headers as stored; sensitive ones (Authorization, X-Api-Key, ..., SENSITIVE_HEADERS) masked for ' +
        'every reader: `Bearer [masked]`, `[masked]`.',
    ),
  path: z
    .string()
    .describe('The request path after the source segment (`/org/repo` of `POST /github/org/repo`), "" if none.'),
  query: z
    .record(z.string(), z.union([z.string(), z.array(z.string())]))
    .describe("The request's query: a string per key, an array of strings for a repeated key; {} if none."),
  ignored_reason: z
    .enum(['filtered'])
    .nullable()
    .describe("Why an `ignored` event was not delivered: `filtered`, its rule's filter did not match; else null."),
  next_attempt_at: timestamp.nullable(),
  updated_at: timestamp,
  deliveries: z
    .array(eventDeliverySchema)
    .describe("One per destination delivery, independent of the event's `status` (the primary target's)."),
});
export const attemptSchema = z.object({
  id: z.uuid(),
  attempt_number: z.number().int(),
  kind: z
    .enum(['main', 'hook', 'destination'])
    .describe("`main`: the primary target; `hook`: a hook; `destination`: one of the rule's destinations."),
  hook_id: z.uuid().nullable(),
  destination_id: z.uuid().nullable().describe('The destination this attempt delivered to; null for the primary.'),
  target_url: z.string(),
  response_status: z.number().int().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  started_at: timestamp,
  finished_at: timestamp,
});
export const bulkResultSchema = z.object({
  affected: z.number().int(),
  ids: z.array(z.uuid()),
  truncated: z.boolean().describe('More events matched than the cap: call again.'),
});
export const eventPageSchema = pageEnvelope('events', eventSummarySchema).extend({
  total_exact: z
    .boolean()
    .describe(
      'false: more than 10,000 events match, and `total` (and `pages`) is an estimate rather than a count ' +
        '(counting millions of rows on every page would be slow). A search may count exactly past 10,000.',
    ),
});
export const eventSourcesSchema = z.object({
  sources: z.array(z.object({ source: z.string(), count: z.number().int() })),
});
export const attemptListSchema = z.object({ attempts: z.array(attemptSchema) });
export const retryQueuedSchema = z.object({
  id: z.uuid().describe("The event's id."),
  status: z.literal('queued'),
  destination_id: z.uuid().optional().describe("Present when one destination's delivery was queued again."),
});
