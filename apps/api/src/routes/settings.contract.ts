import { z } from 'zod';
import { operations } from '../openapi/operation';

export const defaultTargetSchema = z
  .object({
    target_url: z
      .string()
      .trim()
      .min(1)
      .max(2048)
      .nullable()
      .describe("http(s) URL checked against the target network policy; null clears the organization's default."),
  })
  .strict();

const defaultTarget = z.object({
  target_url: z.string().nullable().describe("The organization's own default target."),
  effective_target_url: z.string().nullable().describe('What an event without a provider is delivered to now.'),
  effective_from: z.enum(['organization', 'install']).nullable().describe('`install`: DEFAULT_TARGET_URL.'),
});
const endpoint = z.object({
  base_url: z.string(),
  ingest_url: z.string().describe('POST webhooks here (source from X-Webhook-Source or the default source).'),
  source_url_template: z.string().describe('Or here, with the source as the first path segment.'),
  organization: z
    .object({ id: z.uuid(), slug: z.string() })
    .nullable()
    .describe("Whose URLs these are: the caller's organization, or the one the Host belongs to."),
  ingest_urls: z
    .array(z.string())
    .describe(
      'Every host the organization receives webhooks on: <slug>.<INGEST_CANONICAL_HOST>, its active custom domains, and the base host for the default organization.',
    ),
});
const oauth = z.object({
  enabled: z.boolean(),
  provider: z.literal('oidc').nullable(),
  issuer: z.string().nullable(),
  login_url: z.string().nullable(),
});

export const settingsOperations = operations([
  {
    method: 'post',
    path: '/config/default-target',
    tag: 'config',
    access: 'POST /config/default-target',
    summary: "Set or clear the organization's default target",
    body: defaultTargetSchema,
    responses: {
      200: { description: 'The stored and effective default.', schema: defaultTarget },
      422: { description: 'Refused by the target policy (`target_url_rejected`).' },
    },
  },
  {
    method: 'get',
    path: '/config/endpoint',
    tag: 'config',
    access: 'public',
    summary: 'The public ingest URLs',
    responses: { 200: { description: 'Where providers send webhooks.', schema: endpoint } },
  },
  {
    method: 'get',
    path: '/config/oauth',
    tag: 'config',
    access: 'public',
    summary: 'Whether identity-provider login is configured',
    responses: { 200: { description: 'Login options.', schema: oauth } },
  },
]);
