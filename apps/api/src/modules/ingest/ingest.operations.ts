import { ingestAccepted, ingestDuplicate, sourceParam } from '@relay/contracts';
import type { Request, Response } from 'express';
import { defineOperation } from '../../composition/define-operation';
import type { ApiServices } from '../../composition/services';

const ingestResponses = {
  200: {
    description:
      "A duplicate: the rule's deduplication key was seen within its window (`dedup`), so nothing was stored; " +
      'the original event and its status.',
    schema: ingestDuplicate,
  },
  202: { description: 'Stored durably and queued for delivery.', schema: ingestAccepted },
  400: {
    description:
      'Not JSON (`invalid_json`), not UTF-8 (`invalid_encoding`), nested deeper than MAX_PAYLOAD_DEPTH ' +
      '(`payload_too_deep`), a bad source (`invalid_source`) or X-Target-Url while disabled (`target_override_disabled`).',
  },
  401: {
    description:
      "The rule's inbound signature verification refused the webhook (`signature_invalid`); nothing was stored.",
  },
  413: { description: 'Body over INGEST_MAX_BODY_BYTES (`payload_too_large`).' },
  415: { description: 'Not JSON, or compressed (`unsupported_media_type`, `unsupported_content_encoding`).' },
  422: { description: 'X-Target-Url refused by the target policy (`target_url_rejected`).' },
  429: {
    description:
      "Over the organization's rate limit (`rate_limited`, with Retry-After and the RateLimit headers) or its " +
      'monthly event quota (`quota_exceeded`, with `period_end` and Retry-After); nothing was stored.',
  },
  503: {
    description:
      'The event store is unavailable (`database_unavailable`), or this process is storing INGEST_MAX_IN_FLIGHT ' +
      'webhooks already (`ingest_overloaded`); nothing was stored, retry after Retry-After.',
  },
};
const common = {
  tag: 'ingest',
  access: 'public',
  rawBody: {
    contentType: 'application/json',
    description:
      'Any JSON value, stored byte for byte. Optional headers: X-Webhook-Source, ' +
      'X-Target-Url (only with ALLOW_PUBLIC_TARGET_OVERRIDE).',
  },
  responses: ingestResponses,
} as const;

// The source comes from the path itself (any depth), so the handler reads it, not `params`.
async function receive({ services, req, res }: { services: ApiServices; req: Request; res: Response }) {
  const message = { host: req.hostname ?? '', path: req.path, message: req, resolved: res.locals, response: res };
  // The limits' headers; a refusal carries its own (problem.ts sets them).
  const { answer, headers } = await services.webhooks.receive(message);
  res.set(headers);
  return { status: 'duplicate' in answer ? 200 : 202, body: answer };
}

const ingestRoot = defineOperation({
  ...common,
  method: 'post',
  path: '/',
  summary: 'Ingest a webhook (source from X-Webhook-Source or DEFAULT_SOURCE)',
  handler: receive,
});

// Both documented operations (POST / and POST /:source, with deeper paths too) are served by one
// catch-all route, mounted after every API route: any POST no API route claimed is a webhook.
export const ingestOperations = [
  ingestRoot,
  defineOperation({
    ...common,
    method: 'post',
    path: '/:source',
    summary: 'Ingest a webhook for a source (nested paths such as /github/org/repo are accepted too)',
    params: sourceParam,
    handler: receive,
  }),
];

/** The route that serves both ingest operations. */
export const INGEST_ROUTE = { ...ingestRoot, path: '/{*path}' };
