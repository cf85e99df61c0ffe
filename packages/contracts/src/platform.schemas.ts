import { z } from 'zod';
import { dateTimeInput, INT4_MAX, pageEnvelope, pageQuery, timestamp } from './common.schemas';
import { passwordSchema, secretRedacted, usernameSchema } from './identity.schemas';
import { limitOverridesPatch, limitOverridesSchema, usageSchema } from './limits.schemas';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'suspended', 'canceled'] as const;
/** Statuses whose organization may not ingest. */
export const INGEST_BLOCKED: readonly string[] = ['suspended', 'canceled'];

export const bootstrapSchema = z.object({ username: usernameSchema }).strict();

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
export const organizationCreateSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    slug: z
      .string()
      .regex(SLUG, '1-40 lowercase letters, digits and inner hyphens (it becomes <slug>.<INGEST_CANONICAL_HOST>)'),
    username: usernameSchema,
    password: passwordSchema,
    email: z.email().max(254),
    subscriber_name: z.string().trim().min(1).max(200),
    billing_contact_name: z.string().trim().min(1).max(200),
    billing_contact_email: z.email().max(254),
  })
  .strict();

export const subscriptionPatchSchema = z
  .object({
    plan: z.string().trim().min(1).max(64).optional(),
    status: z.enum(SUBSCRIPTION_STATUSES).optional(),
    monthly_event_limit: z
      .number()
      .int()
      .min(0)
      .max(INT4_MAX)
      .nullable()
      .optional()
      .describe(`null: unlimited; at most ${INT4_MAX}.`),
    current_period_end: dateTimeInput().nullable().optional(),
    ...limitOverridesPatch,
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'give at least one field');

export const organizationListQuery = pageQuery
  .extend({ search: z.string().trim().min(1).max(200).optional().describe('Text in the name or slug.') })
  .strict();

export const subscriptionSchema = z.object({
  plan: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  monthly_event_limit: z.number().int().nullable(),
  current_period_end: timestamp.nullable(),
  ...limitOverridesSchema,
});
export const hostedOrganizationSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  subscriber_name: z.string().nullable(),
  billing_contact_name: z.string().nullable(),
  billing_contact_email: z.string().nullable(),
  subscription: subscriptionSchema,
  created_at: timestamp,
});
export const organizationPageSchema = pageEnvelope('organizations', hostedOrganizationSchema);
export const eventCountsSchema = z.object({
  queued: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
});
export const organizationDetailSchema = hostedOrganizationSchema.extend({
  users_by_role: z.record(z.string(), z.number().int()),
  events: eventCountsSchema,
  domains: z.array(z.object({ domain: z.string(), status: z.enum(['pending', 'active']) })),
  ingest_urls: z.array(z.string()),
  usage: usageSchema,
  rate_limits_in_effect: z
    .object({
      window_seconds: z.number().int().describe('RATE_LIMIT_WINDOW_SECONDS: the window both limits count in.'),
      ingest_rate_limit: z
        .number()
        .int()
        .nullable()
        .describe('Webhooks per window for the organization: its own, else INGEST_RATE_LIMIT; null: no limit.'),
      api_rate_limit: z
        .number()
        .int()
        .nullable()
        .describe('API requests per window for each credential: its own, else API_RATE_LIMIT; null: no limit.'),
    })
    .describe("The rate limits applied to the organization now: its subscription's overrides or the install's."),
  retention_days_in_effect: z
    .number()
    .int()
    .nullable()
    .describe("Days its events are kept: the organization's own retention_days, else RETENTION_DAYS; null: forever."),
});
export const organizationCreatedSchema = z.object({
  organization: hostedOrganizationSchema,
  admin: z.object({ id: z.uuid(), username: z.string() }),
  ingest_urls: z.array(z.string()),
});
export const platformOverviewSchema = z.object({
  organizations: z.number().int(),
  organizations_by_subscription: z.record(z.string(), z.number().int()),
  users: z.number().int(),
  events: eventCountsSchema,
  attempts: z.record(z.string(), z.number().int()).describe('Delivery (`main`) and hook attempts.'),
});
export const operatorBootstrappedSchema = z.object({
  operator: z.object({ id: z.uuid(), username: z.string() }),
  password: z.string().optional().describe('Shown once (never in a replay).'),
  secret_redacted: secretRedacted,
});
