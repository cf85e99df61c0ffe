import { z } from 'zod';
import { pageEnvelope, pageQuery, timestamp, uuidParam } from '../openapi/common.schemas';
import { operations } from '../openapi/operation';
import { passwordSchema, usernameSchema } from './identity.contract';

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
    email: z.email(),
    subscriber_name: z.string().trim().min(1).max(200),
    billing_contact_name: z.string().trim().min(1).max(200),
    billing_contact_email: z.email(),
  })
  .strict();

export const subscriptionPatchSchema = z
  .object({
    plan: z.string().trim().min(1).max(64).optional(),
    status: z.enum(SUBSCRIPTION_STATUSES).optional(),
    monthly_event_limit: z.number().int().min(0).nullable().optional().describe('null: unlimited.'),
    current_period_end: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'give at least one field');

export const organizationListQuery = pageQuery
  .extend({ search: z.string().trim().min(1).max(200).optional().describe('Text in the name or slug.') })
  .strict();

const subscription = z.object({
  plan: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  monthly_event_limit: z.number().int().nullable(),
  current_period_end: timestamp.nullable(),
});
export const hostedOrganization = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  subscriber_name: z.string().nullable(),
  billing_contact_name: z.string().nullable(),
  billing_contact_email: z.string().nullable(),
  subscription,
  created_at: timestamp,
});
const counts = z.object({ queued: z.number().int(), delivered: z.number().int(), failed: z.number().int() });
const organizationDetail = hostedOrganization.extend({
  users_by_role: z.record(z.string(), z.number().int()),
  events: counts,
  domains: z.array(z.object({ domain: z.string(), status: z.enum(['pending', 'active']) })),
  ingest_urls: z.array(z.string()),
});
const overview = z.object({
  organizations: z.number().int(),
  organizations_by_subscription: z.record(z.string(), z.number().int()),
  users: z.number().int(),
  events: counts,
  attempts: z.record(z.string(), z.number().int()).describe('Delivery (`main`) and hook attempts.'),
});

const op = { tag: 'platform', access: 'operator' as const };
export const platformOperations = operations([
  {
    method: 'post',
    path: '/api/platform/bootstrap/operator',
    tag: 'platform',
    access: 'public',
    summary: 'Create the first platform operator (Authorization: Bearer <PLATFORM_ADMIN_TOKEN>)',
    description:
      'Works only while no operator exists. Answers a generated password, shown once, with which the operator signs in through `POST /api/auth/login`. Disabled (404) while PLATFORM_ADMIN_TOKEN is unset.',
    body: bootstrapSchema,
    responses: {
      201: {
        description: 'Created.',
        schema: z.object({
          operator: z.object({ id: z.uuid(), username: z.string() }),
          password: z.string().describe('Shown once.'),
        }),
      },
      401: { description: 'Missing or wrong token (`unauthenticated`).' },
      404: { description: 'PLATFORM_ADMIN_TOKEN is not set (`not_found`).' },
      409: {
        description: "An operator exists already (`operator_exists`), or the username is a user's (`username_taken`).",
      },
    },
  },
  {
    ...op,
    method: 'get',
    path: '/api/platform/overview',
    summary: 'Counts across every organization',
    responses: { 200: { description: 'Overview.', schema: overview } },
  },
  {
    ...op,
    method: 'get',
    path: '/api/platform/organizations',
    summary: 'Organizations, newest first',
    query: organizationListQuery,
    responses: { 200: { description: 'A page.', schema: pageEnvelope('organizations', hostedOrganization) } },
  },
  {
    ...op,
    method: 'get',
    path: '/api/platform/organizations/:id',
    summary: 'One organization',
    params: uuidParam,
    responses: { 200: { description: 'The organization.', schema: organizationDetail } },
  },
  {
    ...op,
    method: 'post',
    path: '/api/platform/organizations',
    summary: 'Create an organization and its initial admin',
    body: organizationCreateSchema,
    responses: {
      201: {
        description: 'Created.',
        schema: z.object({
          organization: hostedOrganization,
          admin: z.object({ id: z.uuid(), username: z.string() }),
          ingest_urls: z.array(z.string()),
        }),
      },
      409: { description: 'Slug (`slug_taken`) or username (`username_taken`) in use.' },
    },
  },
  {
    ...op,
    method: 'patch',
    path: '/api/platform/organizations/:id/subscription',
    summary: 'Change the subscription',
    params: uuidParam,
    body: subscriptionPatchSchema,
    responses: { 200: { description: 'The organization.', schema: hostedOrganization } },
  },
  {
    ...op,
    method: 'get',
    path: '/api/platform/audit',
    summary: 'Platform-level audit entries',
    query: pageQuery,
    responses: {
      200: {
        description: 'Newest first.',
        schema: z.object({
          entries: z.array(z.record(z.string(), z.unknown())),
          total: z.number().int(),
          page: z.number().int(),
          per_page: z.number().int(),
          pages: z.number().int(),
        }),
      },
    },
  },
]);
