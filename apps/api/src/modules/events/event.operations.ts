import {
  attemptListSchema,
  bulkResultSchema,
  bulkRetrySchema,
  bulkSelectionSchema,
  deliveryBodyParams,
  eventActionSchema,
  eventBodyQuery,
  eventDetailSchema,
  eventListQuery,
  eventPageSchema,
  eventSourcesSchema,
  eventSummarySchema,
  retryQueuedSchema,
  uuidParam,
} from '@relay/contracts';
import type { Response } from 'express';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

// Reading needs events:read; re-sending needs webhooks:send; deleting stored data is an
// organization-management act.
const read = { role: 'viewer', scope: 'events:read' } as const;
const send = { role: 'admin', scope: 'webhooks:send' } as const;
const manage = { role: 'admin', scope: 'organization:manage' } as const;
const common = { tag: 'events' } as const;
const one = { ...common, params: uuidParam, notFound: 'No such event.' } as const;
// Retry and ack take an optional body: none at all (Express 5 leaves req.body undefined) or `{}` acts on the
// primary target as before; `{"destination_id"}` on that destination's delivery alone (docs/routing.md).
const actionBody = eventActionSchema.default({});

// A stored body as a download no browser renders in place, under its own content type (setHeader, not res.set:
// Express would append a charset the sender never declared).
function sendBody(res: Response, name: string, body: { contentType: string; bytes: Buffer; transformed: boolean }) {
  res.setHeader('Content-Type', body.contentType);
  res
    .status(200)
    .set({
      'Content-Disposition': `attachment; filename="${name}.json"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-store',
      'X-Relay-Body': body.transformed ? 'transformed' : 'received',
    })
    .end(body.bytes);
}

// Event history and actions. Fixed paths come before `/events/:id` (Express matches in order).
export const eventOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/events',
    access: read,
    summary: 'List events, newest first',
    query: eventListQuery,
    responses: { 200: { description: 'A page of events.', schema: eventPageSchema } },
    handler: async ({ services, principal, query }) => ({
      status: 200,
      body: await services.events.list(principal, query),
    }),
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/events/sources',
    access: read,
    summary: 'Distinct sources with event counts',
    responses: { 200: { description: 'Sources.', schema: eventSourcesSchema } },
    handler: async ({ services, principal }) => ({ status: 200, body: await services.events.sources(principal) }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/events/bulk/retry',
    idempotent: true,
    access: send,
    summary: 'Retry failed or delivered events by ids or filter',
    description:
      "With `destination_id`: that destination's failed or delivered deliveries of the selected events start a " +
      'new run (events without one, and queued or paused deliveries, are skipped); the primary target is untouched.',
    body: bulkRetrySchema,
    responses: {
      200: {
        description: 'Retried (queued events, or queued and paused deliveries, are skipped).',
        schema: bulkResultSchema,
      },
    },
    handler: async ({ services, principal, body }) => ({
      status: 200,
      body: await services.events.bulkRetry(principal, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/events/bulk/delete',
    idempotent: true,
    access: manage,
    summary: 'Delete events by ids or filter',
    body: bulkSelectionSchema,
    responses: { 200: { description: 'Deleted.', schema: bulkResultSchema } },
    handler: async ({ services, principal, body }) => ({
      status: 200,
      body: await services.events.bulkDelete(principal, body),
    }),
  }),
  defineOperation({
    ...one,
    method: 'get',
    path: '/events/:id',
    access: read,
    summary: 'One event with payload and headers',
    responses: { 200: { description: 'The event.', schema: eventDetailSchema } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.events.find(principal, params.id),
    }),
  }),
  defineOperation({
    ...one,
    method: 'get',
    path: '/events/:id/attempts',
    access: read,
    summary: 'Delivery and hook attempts, in order',
    responses: { 200: { description: 'Attempts.', schema: attemptListSchema } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.events.attempts(principal, params.id),
    }),
  }),
  defineOperation({
    ...one,
    method: 'get',
    path: '/events/:id/body',
    access: read,
    summary: 'The payload exactly as received (or, with transformed=true, as the primary target was sent it)',
    description:
      'The stored bytes, unparsed, under the Content-Type the webhook was sent with (a JSON media type; ' +
      '`application/json` when none was stored). Served as an attachment that no browser renders in place. ' +
      "With `transformed=true`: the primary's transformed body (JSON), as its transform produced it at the first " +
      'attempt and every automatic retry sent it; 404 `transformed_body_not_found` when none is stored (no ' +
      'transform, not tried yet, or the transform failed). `X-Relay-Body` says which: `received` or `transformed`.',
    query: eventBodyQuery,
    responses: {
      200: {
        description: 'The payload bytes.',
        contentType: 'application/json',
        schema: z.unknown().describe('Any JSON value, byte for byte as received (or as transformed).'),
      },
      404: {
        description: 'No such event (`not_found`), or no transformed body stored (`transformed_body_not_found`).',
      },
    },
    handler: async ({ services, principal, params, query, res }) => {
      const body =
        query.transformed === 'true'
          ? await services.events.transformedBody(principal, params.id)
          : { ...(await services.events.body(principal, params.id)), transformed: false };
      sendBody(res, `event-${params.id}`, body);
      return undefined;
    },
  }),
  defineOperation({
    ...common,
    notFound: 'No such event.',
    method: 'get',
    path: '/events/:id/deliveries/:deliveryId/body',
    params: deliveryBodyParams,
    access: read,
    summary: "What one destination's delivery sends: its transformed body, or the payload as received",
    description:
      "The delivery's transformed body (JSON) as its destination's transform produced it at the first attempt and " +
      'every automatic retry sent it; when the destination has no transform, the payload as received (as ' +
      '`GET /events/{id}/body`). 404 `transformed_body_not_found` when the destination has a transform and nothing ' +
      'is stored (not tried yet, or the transform failed). `X-Relay-Body` says which: `received` or `transformed`.',
    responses: {
      200: {
        description: 'The body bytes.',
        contentType: 'application/json',
        schema: z.unknown().describe('Any JSON value.'),
      },
      404: {
        description:
          'No such event (`not_found`), no such delivery of it (`delivery_not_found`), or no transformed body ' +
          'stored (`transformed_body_not_found`).',
      },
    },
    handler: async ({ services, principal, params, res }) => {
      const body = await services.events.deliveryBody(principal, params.id, params.deliveryId);
      sendBody(res, `delivery-${params.deliveryId}`, body);
      return undefined;
    },
  }),
  defineOperation({
    ...one,
    method: 'post',
    path: '/events/:id/retry',
    idempotent: true,
    access: send,
    summary: 'Start a new delivery run of a failed or delivered event, or of one destination delivery',
    description:
      'Without a body (or with `{}`): the primary target, as the spec defines. With `destination_id`: that ' +
      "destination's delivery of the event alone starts a new run (a fresh attempt budget); the primary target " +
      'and the other deliveries are untouched.',
    body: actionBody,
    responses: {
      202: { description: 'Queued again.', schema: retryQueuedSchema },
      404: {
        description:
          'No such event (`not_found`), or the event has no delivery to that destination (`delivery_not_found`).',
      },
      409: {
        description:
          'The event (or delivery) is still queued (`event_not_retryable`), or paused until its rule is resumed ' +
          '(`event_paused`) or its destination is (`delivery_paused`).',
      },
    },
    handler: async ({ services, principal, params, body }) => ({
      status: 202,
      body: await services.events.retry(principal, params.id, body.destination_id),
    }),
  }),
  defineOperation({
    ...one,
    method: 'post',
    path: '/events/:id/ack',
    access: send,
    summary: 'Acknowledge a failed event, or give up on the retrying head of an ordered key',
    description:
      'A failed event leaves the "needs attention" view. The head of an ordered key that has failed and still ' +
      'retries ends `failed` (reason `acknowledged`) and its key moves on (docs/rules.md, "Ordered delivery"). ' +
      "With `destination_id`: that destination's failed delivery is acknowledged instead; the event is untouched.",
    body: actionBody,
    responses: {
      200: { description: 'Acknowledged.', schema: eventSummarySchema },
      404: {
        description:
          'No such event (`not_found`), or the event has no delivery to that destination (`delivery_not_found`).',
      },
      409: {
        description:
          'Neither failed nor a retrying ordered head (`event_not_failed`); with `destination_id`, the delivery ' +
          'is not failed (`delivery_not_failed`).',
      },
    },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.events.acknowledge(principal, params.id, body.destination_id),
    }),
  }),
  defineOperation({
    ...one,
    method: 'delete',
    path: '/events/:id',
    access: manage,
    summary: 'Delete an event and its attempts',
    responses: { 204: { description: 'Deleted.' } },
    handler: async ({ services, principal, params }) => {
      await services.events.delete(principal, params.id);
      return { status: 204 };
    },
  }),
];
