import { z } from 'zod';
import { operations } from '../openapi/operation';

// Unauthenticated operations: probes, webhook ingest and the API description itself.
const ingestAccepted = z.object({
  id: z.uuid().describe('The event id (also the webhook-id of deliveries).'),
  status: z.literal('queued'),
});
const ingestResponses = {
  202: { description: 'Stored durably and queued for delivery.', schema: ingestAccepted },
  413: { description: 'Body over INGEST_MAX_BODY_BYTES (`payload_too_large`).' },
  415: { description: 'Not JSON, or compressed (`unsupported_media_type`, `unsupported_content_encoding`).' },
  422: { description: 'X-Target-Url refused by the target policy (`target_url_rejected`).' },
  503: { description: 'The event store is unavailable; nothing was stored (`database_unavailable`).' },
};
const ingestBody = {
  contentType: 'application/json',
  description:
    'Any JSON value, stored byte for byte. Optional headers: X-Webhook-Source, X-Target-Url (only with ALLOW_PUBLIC_TARGET_OVERRIDE).',
};
const sourceParam = z.object({
  source: z.string().describe('The webhook source (first path segment); deeper segments are allowed and ignored.'),
});

export const publicOperations = operations([
  {
    method: 'get',
    path: '/health',
    tag: 'operations',
    access: 'public',
    summary: 'Liveness probe',
    responses: { 200: { description: 'The process answers.', schema: z.object({ status: z.literal('ok') }) } },
  },
  {
    method: 'get',
    path: '/ready',
    tag: 'operations',
    access: 'public',
    summary: 'Readiness probe (Postgres, Redis, not shutting down)',
    responses: {
      200: {
        description: 'Ready.',
        schema: z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.string()) }),
      },
      503: { description: 'Not ready (`service_unavailable`).' },
    },
  },
  {
    method: 'post',
    path: '/',
    tag: 'ingest',
    access: 'public',
    summary: 'Ingest a webhook (source from X-Webhook-Source or DEFAULT_SOURCE)',
    rawBody: ingestBody,
    responses: ingestResponses,
  },
  {
    method: 'post',
    path: '/:source',
    tag: 'ingest',
    access: 'public',
    summary: 'Ingest a webhook for a source (nested paths such as /github/org/repo are accepted too)',
    params: sourceParam,
    rawBody: ingestBody,
    responses: ingestResponses,
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'operations',
    access: 'public',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'The document.', schema: z.record(z.string(), z.unknown()) } },
  },
  {
    method: 'get',
    path: '/docs',
    tag: 'operations',
    access: 'public',
    summary: 'Interactive API documentation (Swagger UI, served locally)',
    responses: { 200: { description: 'HTML page.', contentType: 'text/html', schema: z.string() } },
  },
]);
