import {
  DEDUP_PRESETS,
  DEFAULT_DEDUP_WINDOW_SECONDS,
  HMAC_ALGORITHMS,
  RULE_HEALTH_STATES,
  SIGNATURE_ENCODINGS,
  UNHEALTHY_REASONS,
  VERIFICATION_PRESETS,
} from '@relay/core';
import { z } from 'zod';
import { timestamp } from './common.schemas';
import { routingFilterSchema } from './routing-filter.schemas';

// Rule options (docs/rules.md): each off when absent or null; PATCH with null turns one off.

const headerName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'An HTTP header name (token characters, at most 100).');
const jsonPointer = z
  .string()
  .max(500)
  .regex(/^(\/([^~/]|~[01])*)+$/, 'A JSON pointer (RFC 6901) such as /id or /data/object/id.');
const oneKeySource = (v: { preset?: unknown; header?: unknown; json_pointer?: unknown }) =>
  [v.preset, v.header, v.json_pointer].filter((x) => x !== undefined).length;

export const dedupOptionSchema = z
  .object({
    preset: z.enum(DEDUP_PRESETS).optional().describe('Where the sender puts its delivery id.'),
    header: headerName.optional().describe('A header holding the deduplication key.'),
    json_pointer: jsonPointer.optional().describe('Where in a JSON payload the key is (RFC 6901).'),
    window_seconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(DEFAULT_DEDUP_WINDOW_SECONDS)
      .describe('How long a key is remembered (default 24 h).'),
  })
  .strict()
  .refine((v) => oneKeySource(v) === 1, 'Give exactly one of preset, header and json_pointer.')
  .describe('Idempotent ingest: a webhook whose key was seen within the window is answered, not stored again.');

export const verificationOptionSchema = z
  .object({
    preset: z.enum(VERIFICATION_PRESETS).describe('The sender whose signature scheme applies; `hmac` is generic.'),
    header: headerName.optional().describe('hmac: the header carrying the signature.'),
    algorithm: z.enum(HMAC_ALGORITHMS).optional().describe('hmac: the digest (default sha256).'),
    encoding: z.enum(SIGNATURE_ENCODINGS).optional().describe('hmac: how the digest is written (default hex).'),
    prefix: z.string().max(50).optional().describe('hmac: text before the digest, such as `sha256=`.'),
    tolerance_seconds: z
      .number()
      .int()
      .min(10)
      .max(86_400)
      .optional()
      .describe('stripe, slack, standard_webhooks: the oldest signed timestamp accepted (default 300).'),
  })
  .strict()
  .refine((v) => v.preset !== 'hmac' || v.header !== undefined, 'The hmac preset needs a header.')
  .refine(
    (v) => v.preset === 'hmac' || (v.header ?? v.algorithm ?? v.encoding ?? v.prefix) === undefined,
    'header, algorithm, encoding and prefix belong to the hmac preset only.',
  )
  .describe('Inbound signature verification over the raw body, before anything is stored.');

export const verificationSecret = z
  .string()
  .min(1)
  .max(500)
  .describe("Write-only: the sender's signing secret (Stripe's and Standard Webhooks' whsec_… as given).");

export const orderingOptionSchema = z
  .object({
    header: headerName.optional().describe('Events with the same value of this header are ordered together.'),
    json_pointer: jsonPointer.optional().describe('Events with the same value at this pointer are ordered together.'),
  })
  .strict()
  .refine((v) => v.header === undefined || v.json_pointer === undefined, 'Give header or json_pointer, not both.')
  .describe('Ordered delivery: one event at a time per key, in ingest order. Neither field: the whole source.');

export const deliveryPolicySchema = z
  .object({
    max_attempts: z.number().int().min(1).max(50).optional(),
    backoff_base_seconds: z.number().int().min(1).max(3_600).optional(),
    backoff_cap_seconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .optional(),
    timeout_seconds: z.number().int().min(1).max(120).optional(),
  })
  .strict()
  .refine(
    (v) =>
      v.backoff_base_seconds === undefined ||
      v.backoff_cap_seconds === undefined ||
      v.backoff_cap_seconds >= v.backoff_base_seconds,
    'backoff_cap_seconds must be at least backoff_base_seconds.',
  )
  .describe('Attempts, backoff and timeout of this rule, each over the install-wide setting.');

export const unhealthyAfterSeconds = z
  .number()
  .int()
  .min(3_600)
  .max(90 * 86_400)
  .describe('Failures with no success for this long turn the rule unhealthy (null: RULE_UNHEALTHY_AFTER_SECONDS).');

/** The options as a rule shows them (secrets only as whether they are set). */
/** The health of a rule or a destination as the API shows it (docs/rules.md, "Endpoint health"). */
export const healthViewSchema = z.object({
  status: z.enum(RULE_HEALTH_STATES),
  reason: z.enum(UNHEALTHY_REASONS).nullable().describe('`gone`: the target answered 410; `failing`: no success.'),
  since: timestamp.nullable(),
  failing_since: timestamp.nullable().describe('Start of the current run of failed attempts.'),
  unhealthy_after_seconds: z.number().int().nullable(),
});

export const ruleOptionsView = {
  dedup: dedupOptionSchema.nullable(),
  duplicate_count: z.number().int().describe('Duplicates answered without storing.'),
  verification: verificationOptionSchema.nullable(),
  has_verification_secret: z.boolean(),
  previous_verification_secret_expires_at: timestamp
    .nullable()
    .describe('While set, the replaced verification secret is accepted too, until this time.'),
  signature_failures: z.object({ count: z.number().int(), last_at: timestamp.nullable() }),
  health: healthViewSchema,
  ordering: orderingOptionSchema.nullable(),
  delivery_policy: deliveryPolicySchema.nullable(),
  filter: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("The rule's routing filter as saved; a webhook it does not match ends `ignored`. null: all go."),
};

/** The options a create or update takes; null turns one off. */
export const ruleOptionsInput = {
  dedup: dedupOptionSchema.nullable().optional(),
  verification: verificationOptionSchema.nullable().optional(),
  verification_secret: verificationSecret.nullable().optional(),
  unhealthy_after_seconds: unhealthyAfterSeconds.nullable().optional(),
  ordering: orderingOptionSchema.nullable().optional(),
  delivery_policy: deliveryPolicySchema.nullable().optional(),
  filter: routingFilterSchema
    .nullable()
    .optional()
    .describe(
      'Only webhooks this filter matches go to the target; the others end `ignored` (no attempt, no hook). ' +
        'null: every webhook goes.',
    ),
};

export const verificationSecretRotateSchema = z
  .object({
    verification_secret: verificationSecret,
    previous_secret_valid_for_seconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .default(86_400)
      .describe('How long the replaced secret is still accepted; 0 retires it now.'),
  })
  .strict();
