import { z } from 'zod';
import { timestamp, uuidParam } from '../openapi/common.schemas';
import { operations } from '../openapi/operation';

const SOURCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const targetUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .describe('http(s) URL; checked against the target network policy (422 `target_url_rejected`).');
const signingSecret = z
  .string()
  .min(16)
  .max(256)
  .describe('Write-only HMAC secret for X-Relay-Signature and webhook-signature; never returned.');

export const ruleCreateSchema = z
  .object({
    source: z.string().regex(SOURCE, '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
    target_url: targetUrl,
    active: z.boolean().default(true),
    description: z.string().max(500).nullable().optional(),
    signing_secret: signingSecret.nullable().optional(),
  })
  .strict();
export const ruleUpdateSchema = ruleCreateSchema
  .partial()
  .extend({ active: z.boolean().optional() })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change.');

export const HOOK_TRIGGER_VALUES = ['provider_succeeded', 'provider_failed'] as const;
export const hookCreateSchema = z
  .object({
    target_url: targetUrl,
    trigger: z.enum(HOOK_TRIGGER_VALUES).describe('Fixed at creation.'),
    active: z.boolean().default(true),
    description: z.string().max(500).nullable().optional(),
  })
  .strict();
// The trigger is not in the update schema: sending it is a 400 (it is fixed at creation).
export const hookUpdateSchema = z
  .object({
    target_url: targetUrl.optional(),
    active: z.boolean().optional(),
    description: z.string().max(500).nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change.');
export const hookParams = z.object({ id: z.uuid(), hookId: z.uuid() });

const ruleSchema = z.object({
  id: z.uuid(),
  source: z.string(),
  target_url: z.string(),
  active: z.boolean(),
  description: z.string().nullable(),
  has_signing_secret: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});
const hookSchema = z.object({
  id: z.uuid(),
  rule_id: z.uuid(),
  target_url: z.string(),
  trigger: z.enum(HOOK_TRIGGER_VALUES),
  active: z.boolean(),
  description: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

const conflict = { 409: { description: 'Another active provider serves this source (`active_provider_exists`).' } };
const rejected = {
  422: { description: 'The target URL is refused by the target policy (`target_url_rejected`, with `reason`).' },
};

export const ruleOperations = operations([
  {
    method: 'get',
    path: '/rules',
    tag: 'rules',
    access: 'GET /rules',
    summary: 'Providers (rules) of the organization',
    responses: { 200: { description: 'Rules.', schema: z.object({ rules: z.array(ruleSchema) }) } },
  },
  {
    method: 'post',
    path: '/rules',
    tag: 'rules',
    access: 'POST /rules',
    summary: 'Create a provider',
    body: ruleCreateSchema,
    responses: { 201: { description: 'Created.', schema: ruleSchema }, ...conflict, ...rejected },
  },
  {
    method: 'get',
    path: '/rules/:id',
    tag: 'rules',
    access: 'GET /rules/:id',
    summary: 'One provider',
    params: uuidParam,
    responses: { 200: { description: 'The rule.', schema: ruleSchema } },
  },
  {
    method: 'patch',
    path: '/rules/:id',
    tag: 'rules',
    access: 'PATCH /rules/:id',
    summary: 'Change a provider (null clears description or signing secret)',
    params: uuidParam,
    body: ruleUpdateSchema,
    responses: { 200: { description: 'Updated.', schema: ruleSchema }, ...conflict, ...rejected },
  },
  {
    method: 'delete',
    path: '/rules/:id',
    tag: 'rules',
    access: 'DELETE /rules/:id',
    summary: 'Delete a provider and its hooks',
    params: uuidParam,
    responses: { 204: { description: 'Deleted.' } },
  },
  {
    method: 'get',
    path: '/rules/:id/hooks',
    tag: 'rules',
    access: 'GET /rules/:id/hooks',
    summary: "A provider's hooks",
    params: uuidParam,
    responses: { 200: { description: 'Hooks.', schema: z.object({ hooks: z.array(hookSchema) }) } },
  },
  {
    method: 'post',
    path: '/rules/:id/hooks',
    tag: 'rules',
    access: 'POST /rules/:id/hooks',
    summary: 'Attach a hook to a provider',
    params: uuidParam,
    body: hookCreateSchema,
    responses: { 201: { description: 'Created.', schema: hookSchema }, ...rejected },
  },
  {
    method: 'patch',
    path: '/rules/:id/hooks/:hookId',
    tag: 'rules',
    access: 'PATCH /rules/:id/hooks/:hookId',
    summary: 'Change a hook (not its trigger)',
    params: hookParams,
    body: hookUpdateSchema,
    responses: { 200: { description: 'Updated.', schema: hookSchema }, ...rejected },
  },
  {
    method: 'delete',
    path: '/rules/:id/hooks/:hookId',
    tag: 'rules',
    access: 'DELETE /rules/:id/hooks/:hookId',
    summary: 'Delete a hook',
    params: hookParams,
    responses: { 204: { description: 'Deleted.' } },
  },
]);
