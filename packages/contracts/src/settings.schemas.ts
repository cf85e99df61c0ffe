import { z } from 'zod';

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

/** The organization's own default target and the one in effect. */
export const defaultTargetStateSchema = z.object({
  target_url: z.string().nullable().describe("The organization's own default target."),
  effective_target_url: z.string().nullable().describe('What an event without a rule is delivered to now.'),
  effective_from: z.enum(['organization', 'install']).nullable().describe('`install`: DEFAULT_TARGET_URL.'),
});
export const endpointSchema = z.object({
  base_url: z.string(),
  ingest_url: z
    .string()
    .nullable()
    .describe(
      'POST webhooks here (source from X-Webhook-Source or the default source); null when no URL accepts ' +
        "the organization's webhooks (no host of its own, or a suspended or canceled subscription).",
    ),
  source_url_template: z
    .string()
    .nullable()
    .describe('Or here, with the source as the first path segment (never one of `reserved_sources`); null as above.'),
  reserved_sources: z
    .array(z.string())
    .describe("First path segments of the relay's own routes: a webhook sent to one of them is refused."),
  organization: z
    .object({ id: z.uuid(), slug: z.string() })
    .nullable()
    .describe("Whose URLs these are: the caller's organization, or the one the Host belongs to."),
  ingest_urls: z
    .array(z.string())
    .describe(
      'Every host the organization receives webhooks on: <slug>.<INGEST_CANONICAL_HOST>, ' +
        'its active custom domains, and the base host for the default organization.',
    ),
});
export const oauthSchema = z.object({
  enabled: z.boolean(),
  provider: z.literal('oidc').nullable(),
  issuer: z.string().nullable(),
  login_url: z.string().nullable(),
  button_label: z.string().nullable().optional().describe('The text of the sign-in button; null when not enabled.'),
  organization_name: z
    .string()
    .nullable()
    .optional()
    .describe(
      "The name the sign-in page shows: the caller's organization, the Host's (slug host or custom domain), or " +
        "a single-organization install's; null otherwise (a multi-tenant install's shared host names nobody).",
    ),
});
