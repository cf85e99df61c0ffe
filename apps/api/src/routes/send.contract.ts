import { z } from 'zod';
import { operations } from '../openapi/operation';

const SOURCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
// The body arrives through express.json(), so it is JSON already; z.json() would only add a recursive
// schema that OpenAPI cannot reference from inside a path item.
const payload = z
  .unknown()
  .refine((value) => value !== undefined, 'required')
  .describe('Any JSON value; it is delivered as its JSON text.');

export const sendSchema = z.union([
  z
    .object({ provider_id: z.uuid().describe("An active provider of the caller's organization."), body: payload })
    .strict(),
  z
    .object({
      source: z.string().regex(SOURCE, '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
      target_url: z
        .string()
        .trim()
        .max(2048)
        .describe('http(s) URL without credentials that passes the network policy; empty for the default target.'),
      body: payload,
    })
    .strict(),
]);

const sent = z.object({
  id: z.uuid(),
  status: z.literal('queued'),
  source: z.string(),
  target_url: z.string(),
  provider_id: z.uuid().nullable(),
});

export const sendOperations = operations([
  {
    method: 'post',
    path: '/api/send',
    tag: 'events',
    access: 'POST /api/send',
    summary: 'Send a webhook through the relay (provider mode or manual mode)',
    description:
      "Provider mode: `{provider_id, body}` uses the provider's source and target. Manual mode: `{source, target_url, body}`; an empty `target_url` uses the organization's default target, else DEFAULT_TARGET_URL. Both modes at once is a 400.",
    body: sendSchema,
    responses: {
      202: { description: 'Stored and queued; it is delivered like an ingested webhook.', schema: sent },
      404: { description: "No such provider in the caller's organization (`not_found`)." },
      422: {
        description:
          'Target refused (`target_url_rejected` with `reason`: scheme, credentials or network policy), no default target (`no_default_target`) or inactive provider (`provider_inactive`).',
      },
    },
  },
]);
