import {
  DEDUP_PRESETS,
  HMAC_ALGORITHMS,
  SIGNATURE_ENCODINGS,
  VERIFICATION_PRESETS,
  type AnswerOf,
} from '@relay/client';
import { z } from 'zod';

// The rule options (docs/rules.md) as create_rule and update_rule take them and tool results show them. The shapes
// are the API's; limits are checked by the API too, whose field errors reach the assistant. The package depends on
// the typed client only, so the enums come from it (checked there against the API's schema).

type Rule = AnswerOf<'/rules/{id}', 'get'>;

const headerName = z.string().min(1).max(100).describe('An HTTP header name.');
const jsonPointer = z.string().min(2).max(500).describe('A JSON pointer (RFC 6901) such as /id or /data/object/id.');
const seconds = (what: string) => z.number().int().positive().describe(what);

export const dedupInput = z
  .object({
    preset: z.enum(DEDUP_PRESETS).optional().describe('Where this provider puts its delivery id.'),
    header: headerName.optional().describe('A header holding the deduplication key.'),
    json_pointer: jsonPointer.optional().describe('Where in a JSON payload the key is.'),
    window_seconds: seconds('How long a key is remembered: 60 s to 30 days (default 86400).').optional(),
  })
  .strict()
  .describe(
    'Idempotent ingest: give exactly one of preset, header and json_pointer. A webhook whose key was seen within ' +
      'the window is answered with the first event and not stored again. null turns it off.',
  );

export const verificationInput = z
  .object({
    preset: z.enum(VERIFICATION_PRESETS).describe('The signature scheme; `hmac` is generic (then header is needed).'),
    header: headerName.optional().describe('hmac: the header carrying the signature.'),
    algorithm: z.enum(HMAC_ALGORITHMS).optional().describe('hmac: the digest (default sha256).'),
    encoding: z.enum(SIGNATURE_ENCODINGS).optional().describe('hmac: how the digest is written (default hex).'),
    prefix: z.string().max(50).optional().describe('hmac: text before the digest, such as "sha256=".'),
    tolerance_seconds: seconds('stripe, slack, standard_webhooks: the oldest signed timestamp accepted.').optional(),
  })
  .strict()
  .describe(
    'Inbound signature verification: a webhook whose signature does not verify is refused (401 signature_invalid) ' +
      'and not stored. Needs verification_secret. null turns it off.',
  );

export const verificationSecretInput = z
  .string()
  .min(1)
  .max(500)
  .describe("Write-only: the provider's signing secret used to verify inbound webhooks; never shown again.");

export const orderingInput = z
  .object({
    header: headerName.optional().describe('Events with the same value of this header are ordered together.'),
    json_pointer: jsonPointer.optional().describe('Events with the same value at this pointer are ordered together.'),
  })
  .strict()
  .describe(
    'Ordered delivery: one event at a time per key, in ingest order; a failing event holds back its key only. ' +
      'Give header or json_pointer, or neither ({}) to order the whole source. null turns it off.',
  );

export const deliveryPolicyInput = z
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
  .describe('Attempts, backoff and timeout for this rule, each over the install-wide setting. null: the defaults.');

export const unhealthyAfterInput = z
  .number()
  .int()
  .min(3_600)
  .max(90 * 86_400)
  .describe('Seconds of failed attempts with no success after which the rule turns unhealthy (null: the default).');

export const setHeadersInput = z
  .record(z.string(), z.string().max(1_000))
  .describe('Headers added to every delivery with fixed values, e.g. {"x-team": "payments"}; {} sets none.');
export const removeHeadersInput = z
  .array(headerName)
  .max(50)
  .describe('Inbound headers never forwarded to the target by this rule; [] removes none.');

/** The options create_rule takes, each off when left out. */
export const ruleOptionInputs = {
  dedup: dedupInput.optional(),
  verification: verificationInput.optional(),
  verification_secret: verificationSecretInput.optional(),
  unhealthy_after_seconds: unhealthyAfterInput.optional(),
  ordering: orderingInput.optional(),
  delivery_policy: deliveryPolicyInput.optional(),
  set_headers: setHeadersInput.optional(),
  remove_headers: removeHeadersInput.optional(),
};

/** The options update_rule takes: left out keeps one, null turns it off. */
export const ruleOptionUpdates = {
  dedup: dedupInput.nullable().optional(),
  verification: verificationInput.nullable().optional(),
  verification_secret: verificationSecretInput.nullable().optional(),
  unhealthy_after_seconds: unhealthyAfterInput.nullable().optional(),
  ordering: orderingInput.nullable().optional(),
  delivery_policy: deliveryPolicyInput.nullable().optional(),
  set_headers: setHeadersInput.optional(),
  remove_headers: removeHeadersInput.optional(),
};

type OutboundHeaders = Rule['outbound_headers'];
interface HeaderLists {
  forward_headers?: OutboundHeaders['forward'] | undefined;
  set_headers?: OutboundHeaders['set'] | undefined;
  remove_headers?: OutboundHeaders['remove'] | undefined;
}

/**
 * The outbound_headers to send when any list was given (undefined otherwise): each list given replaces the stored
 * one, the others are kept (the API replaces the object whole).
 */
export function outboundHeadersChange(lists: HeaderLists): ((stored?: OutboundHeaders) => OutboundHeaders) | undefined {
  const { forward_headers, set_headers, remove_headers } = lists;
  if (forward_headers === undefined && set_headers === undefined && remove_headers === undefined) return undefined;
  return (stored) => ({
    forward: forward_headers ?? stored?.forward ?? [],
    set: set_headers ?? stored?.set ?? {},
    remove: remove_headers ?? stored?.remove ?? [],
  });
}

export const ruleOptionsSummary = {
  dedup: z.object(dedupInput.shape).nullable(),
  duplicate_count: z.number().describe('Duplicates answered without storing.'),
  verification: z.object(verificationInput.shape).nullable(),
  has_verification_secret: z.boolean().describe('The verification secret itself is never shown.'),
  previous_verification_secret_expires_at: z.string().nullable(),
  signature_failures: z.object({ count: z.number(), last_at: z.string().nullable() }),
  unhealthy_after_seconds: z.number().nullable().describe('The health threshold; null: the install-wide one.'),
  ordering: z.object(orderingInput.shape).nullable(),
  delivery_policy: z.object(deliveryPolicyInput.shape).nullable(),
  set_headers: z.record(z.string(), z.string()),
  remove_headers: z.array(z.string()),
};

type OptionsView = { [K in keyof typeof ruleOptionsSummary]: z.infer<(typeof ruleOptionsSummary)[K]> };

/** The options of a rule as results show them: secrets only as whether one is set. */
export const ruleOptionsView = (rule: Rule): OptionsView => ({
  dedup: rule.dedup,
  duplicate_count: rule.duplicate_count,
  verification: rule.verification,
  has_verification_secret: rule.has_verification_secret,
  previous_verification_secret_expires_at: rule.previous_verification_secret_expires_at,
  signature_failures: rule.signature_failures,
  unhealthy_after_seconds: rule.health.unhealthy_after_seconds,
  ordering: rule.ordering,
  delivery_policy: rule.delivery_policy,
  set_headers: rule.outbound_headers.set,
  remove_headers: rule.outbound_headers.remove,
});
