import { isRelayOwnedOutboundHeader, OPT_IN_HEADERS } from '@relay/core';
import { z } from 'zod';
import { resourceNameSchema, sourceSchema, timestamp } from './common.schemas';
import { ruleOptionsInput, ruleOptionsView } from './rule-options.schemas';
import { pacingStateView, transformPacingInput, transformPacingView, transformView } from './transform.schemas';

export const targetUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .describe('http(s) URL; checked against the target network policy (422 `target_url_rejected`).');
export const signingSecret = z
  .string()
  .min(16)
  .max(256)
  .describe('Write-only HMAC secret for X-Relay-Signature and webhook-signature; never returned.');

const outboundHeaderName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'An HTTP header name.')
  .refine(
    (name) => !isRelayOwnedOutboundHeader(name),
    'The relay sets this header itself (content-*, host, hop-by-hop, user-agent, x-relay-*, webhook-*).',
  );

export const outboundHeadersSchema = z
  .object({
    forward: z
      .array(z.enum(OPT_IN_HEADERS))
      .max(OPT_IN_HEADERS.length)
      .default([])
      .describe("Inbound headers withheld by default that this rule forwards: `authorization` (the sender's own)."),
    set: z
      .record(
        outboundHeaderName,
        z
          .string()
          .max(1_000)
          .regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'No control characters.'),
        // The key's own message (which name is refused and why), not zod's "Invalid key in record".
        { error: (issue) => (issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined) },
      )
      .refine((v) => Object.keys(v).length <= 20, 'At most 20 headers.')
      .optional()
      .describe('Headers added to every delivery with these fixed values (they replace inbound ones).'),
    remove: z.array(outboundHeaderName).max(50).optional().describe('Inbound headers never forwarded by this rule.'),
  })
  .strict()
  .describe('Which inbound headers go out to the target beyond the default set.');

export const ruleCreateSchema = z
  .object({
    name: resourceNameSchema
      .optional()
      .describe(
        'Unique in the organization (409 `rule_name_taken`); default: the source, suffixed -2, -3, … if taken.',
      ),
    source: sourceSchema,
    target_url: targetUrl,
    active: z.boolean().default(true),
    description: z.string().max(500).nullable().optional(),
    signing_secret: signingSecret.nullable().optional(),
    outbound_headers: outboundHeadersSchema.optional(),
    ...ruleOptionsInput,
    ...transformPacingInput,
  })
  .strict();
export const ruleUpdateSchema = ruleCreateSchema
  .partial()
  .extend({ active: z.boolean().optional() })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change.');

export const MAX_ROTATION_WINDOW_SECONDS = 30 * 86_400;
export const ruleSecretRotateSchema = z
  .object({
    signing_secret: signingSecret.describe('The new secret: signs X-Relay-Signature and webhook-signature from now.'),
    previous_secret_valid_for_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATION_WINDOW_SECONDS)
      .default(86_400)
      .describe('How long the replaced secret keeps signing too (a second webhook-signature); 0 retires it now.'),
  })
  .strict();

export const HOOK_TRIGGER_VALUES = ['provider_succeeded', 'provider_failed'] as const;
export const hookCreateSchema = z
  .object({
    target_url: targetUrl,
    name: resourceNameSchema
      .optional()
      .describe('Unique in the rule (409 `hook_name_taken`); default: the trigger, suffixed -2, -3, … if taken.'),
    trigger: z.enum(HOOK_TRIGGER_VALUES).describe('Fixed at creation.'),
    active: z.boolean().default(true),
    description: z.string().max(500).nullable().optional(),
  })
  .strict();
// The trigger is not in the update schema: sending it is a 400 (it is fixed at creation).
export const hookUpdateSchema = z
  .object({
    name: resourceNameSchema.optional().describe('Unique in the rule (409 `hook_name_taken`).'),
    target_url: targetUrl.optional(),
    active: z.boolean().optional(),
    description: z.string().max(500).nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change.');
export const hookParams = z.object({ id: z.uuid(), hookId: z.uuid() });

/** Who signs deliveries; DEFAULT_SIGNING_SECRET is set on the api as on the worker, so the api knows. */
export const signingSchema = z
  .enum(['own', 'default', 'none'])
  .describe(
    "Who signs deliveries: `own` its own secret, `default` the install's DEFAULT_SIGNING_SECRET (no secret of " +
      'its own), `none` unsigned.',
  );

/** A rule as the API shows it; the signing secret is never returned. */
export const ruleSchema = z.object({
  id: z.uuid(),
  name: z.string().describe('Unique in the organization.'),
  source: z.string(),
  target_url: z.string(),
  active: z.boolean(),
  description: z.string().nullable(),
  has_signing_secret: z.boolean(),
  signing: signingSchema,
  previous_secret_expires_at: timestamp
    .nullable()
    .describe('While set, the replaced secret also signs webhook-signature, until this time.'),
  outbound_headers: z.object({
    forward: z.array(z.enum(OPT_IN_HEADERS)),
    set: z.record(z.string(), z.string()),
    remove: z.array(z.string()),
  }),
  ...ruleOptionsView,
  ...transformPacingView,
  ...transformView,
  ...pacingStateView,
  created_at: timestamp,
  updated_at: timestamp,
});
export const hookSchema = z.object({
  id: z.uuid(),
  rule_id: z.uuid(),
  name: z.string().describe('Unique in the rule.'),
  target_url: z.string(),
  trigger: z.enum(HOOK_TRIGGER_VALUES),
  active: z.boolean(),
  description: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
