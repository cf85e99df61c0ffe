import { EVENT_STATUSES } from '@relay/core';
import { z } from 'zod';
import { pageEnvelope, pageQuery, timestamp, uuidParam } from '../openapi/common.schemas';
import { operations } from '../openapi/operation';

export const BULK_CAP = 1000;

const filterFields = {
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Case-insensitive text in source, payload and headers.'),
  status: z.enum(EVENT_STATUSES).optional(),
  source: z.string().max(64).optional(),
  from: z.iso.datetime({ offset: true }).optional().describe('Created at or after (ISO 8601).'),
  to: z.iso.datetime({ offset: true }).optional().describe('Created before (ISO 8601).'),
  needs_attention: z.enum(['true', 'false']).optional().describe('true: failed and not acknowledged.'),
};
export const eventFilterSchema = z.object(filterFields).strict();
export const eventListQuery = pageQuery.extend(filterFields);
export const bulkSelectionSchema = z
  .union([
    z.object({ ids: z.array(z.uuid()).min(1).max(BULK_CAP) }).strict(),
    z.object({ filter: eventFilterSchema }).strict(),
  ])
  .describe(`Either explicit ids (at most ${BULK_CAP}) or the list filters (the oldest ${BULK_CAP} matches per call).`);

const eventSummary = z.object({
  id: z.uuid(),
  source: z.string(),
  status: z.enum(EVENT_STATUSES),
  provider_id: z.uuid().nullable(),
  target_url: z.string().nullable(),
  attempt_count: z.number().int(),
  failure_reason: z.string().nullable(),
  acknowledged: z.boolean(),
  acknowledged_at: timestamp.nullable(),
  created_at: timestamp,
  delivered_at: timestamp.nullable(),
});
const eventDetail = eventSummary.extend({
  payload: z.unknown().describe('The stored JSON payload.'),
  headers: z.record(z.string(), z.string()),
  last_error: z.string().nullable(),
  next_attempt_at: timestamp.nullable(),
  updated_at: timestamp,
});
const attempt = z.object({
  id: z.uuid(),
  attempt_number: z.number().int(),
  kind: z.enum(['main', 'hook']),
  hook_id: z.uuid().nullable(),
  target_url: z.string(),
  response_status: z.number().int().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  started_at: timestamp,
  finished_at: timestamp,
});
const bulkResult = z.object({
  affected: z.number().int(),
  ids: z.array(z.uuid()),
  truncated: z.boolean().describe('More events matched than the cap: call again.'),
});

export const eventOperations = operations([
  {
    method: 'get',
    path: '/events',
    tag: 'events',
    access: 'GET /events',
    summary: 'List events, newest first',
    query: eventListQuery,
    responses: { 200: { description: 'A page of events.', schema: pageEnvelope('events', eventSummary) } },
  },
  {
    method: 'get',
    path: '/events/sources',
    tag: 'events',
    access: 'GET /events/sources',
    summary: 'Distinct sources with event counts',
    responses: {
      200: {
        description: 'Sources.',
        schema: z.object({ sources: z.array(z.object({ source: z.string(), count: z.number().int() })) }),
      },
    },
  },
  {
    method: 'post',
    path: '/events/bulk/retry',
    tag: 'events',
    access: 'POST /events/bulk/retry',
    summary: 'Retry failed or delivered events by ids or filter',
    body: bulkSelectionSchema,
    responses: { 200: { description: 'Retried (queued events are skipped).', schema: bulkResult } },
  },
  {
    method: 'post',
    path: '/events/bulk/delete',
    tag: 'events',
    access: 'POST /events/bulk/delete',
    summary: 'Delete events by ids or filter',
    body: bulkSelectionSchema,
    responses: { 200: { description: 'Deleted.', schema: bulkResult } },
  },
  {
    method: 'get',
    path: '/events/:id',
    tag: 'events',
    access: 'GET /events/:id',
    summary: 'One event with payload and headers',
    params: uuidParam,
    responses: { 200: { description: 'The event.', schema: eventDetail } },
  },
  {
    method: 'get',
    path: '/events/:id/attempts',
    tag: 'events',
    access: 'GET /events/:id/attempts',
    summary: 'Delivery and hook attempts, in order',
    params: uuidParam,
    responses: { 200: { description: 'Attempts.', schema: z.object({ attempts: z.array(attempt) }) } },
  },
  {
    method: 'post',
    path: '/events/:id/retry',
    tag: 'events',
    access: 'POST /events/:id/retry',
    summary: 'Start a new delivery run of a failed or delivered event',
    params: uuidParam,
    responses: {
      202: { description: 'Queued again.', schema: z.object({ id: z.uuid(), status: z.literal('queued') }) },
      409: { description: 'The event is still queued (`event_not_retryable`).' },
    },
  },
  {
    method: 'post',
    path: '/events/:id/ack',
    tag: 'events',
    access: 'POST /events/:id/ack',
    summary: 'Acknowledge a failed event',
    params: uuidParam,
    responses: {
      200: { description: 'Acknowledged.', schema: eventSummary },
      409: { description: 'The event is not failed (`event_not_failed`).' },
    },
  },
  {
    method: 'delete',
    path: '/events/:id',
    tag: 'events',
    access: 'DELETE /events/:id',
    summary: 'Delete an event and its attempts',
    params: uuidParam,
    responses: { 204: { description: 'Deleted.' } },
  },
]);
