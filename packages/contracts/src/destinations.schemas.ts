import { OPT_IN_HEADERS } from '@relay/core';
import { z } from 'zod';
import { resourceNameSchema, timestamp } from './common.schemas';
import { routingFilterSchema } from './routing-filter.schemas';
import { deliveryPolicySchema, healthViewSchema, unhealthyAfterSeconds } from './rule-options.schemas';
import { outboundHeadersSchema, signingSchema, signingSecret, targetUrl } from './rules.schemas';
import { pacingStateView, transformPacingInput, transformPacingView, transformView } from './transform.schemas';

// Routing's destinations (docs/routing.md, "Destinations"): further targets of one rule, each with its own
// filter, signing, headers, policy and health. The option shapes are the rule's own.

export const destinationCreateSchema = z
  .object({
    name: resourceNameSchema
      .optional()
      .describe(
        "Unique in the rule (409 `destination_name_taken`); default: the target's host, suffixed -2, -3, … if taken.",
      ),
    target_url: targetUrl,
    filter: routingFilterSchema
      .nullable()
      .optional()
      .describe('Only webhooks this filter matches get a delivery to this destination. null: every webhook.'),
    active: z.boolean().default(true),
    description: z.string().max(500).nullable().optional(),
    signing_secret: signingSecret
      .nullable()
      .optional()
      .describe(
        'Write-only; never returned. Without one the destination is signed with DEFAULT_SIGNING_SECRET when the ' +
          "install sets it, else unsigned: never with the rule's secret.",
      ),
    outbound_headers: outboundHeadersSchema.optional(),
    delivery_policy: deliveryPolicySchema.nullable().optional(),
    unhealthy_after_seconds: unhealthyAfterSeconds.nullable().optional(),
    ...transformPacingInput,
  })
  .strict();

export const destinationUpdateSchema = destinationCreateSchema
  .partial()
  .extend({ active: z.boolean().optional() })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change.');

export const destinationParams = z.object({ id: z.uuid(), destinationId: z.uuid() });

/** A destination as the API shows it; the signing secret only as whether there is one. */
export const destinationSchema = z.object({
  id: z.uuid(),
  rule_id: z.uuid(),
  name: z.string().describe('Unique in the rule.'),
  target_url: z.string(),
  filter: z.record(z.string(), z.unknown()).nullable().describe('The routing filter as saved; null: every webhook.'),
  active: z.boolean(),
  description: z.string().nullable(),
  has_signing_secret: z.boolean(),
  signing: signingSchema,
  outbound_headers: z.object({
    forward: z.array(z.enum(OPT_IN_HEADERS)),
    set: z.record(z.string(), z.string()),
    remove: z.array(z.string()),
  }),
  delivery_policy: deliveryPolicySchema.nullable(),
  health: healthViewSchema,
  ...transformPacingView,
  ...transformView,
  ...pacingStateView,
  created_at: timestamp,
  updated_at: timestamp,
});

/** The answer of POST /rules/{id}/destinations/{destinationId}/resume. */
export const destinationResumedSchema = z.object({
  destination: destinationSchema,
  resumed_deliveries: z.number().int().describe('Paused deliveries of the destination queued again.'),
});
