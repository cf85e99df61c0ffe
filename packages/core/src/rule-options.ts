// Rule options, as stored in the providers table's JSON columns and sent on the wire
// (snake_case, one shape everywhere). Each is off when absent. docs/rules.md explains them.

/** Senders whose deduplication key is known: the key comes from where the sender puts its delivery id. */
export const DEDUP_PRESETS = ['github', 'stripe', 'shopify', 'standard_webhooks'] as const;
export type DedupPreset = (typeof DEDUP_PRESETS)[number];
export const DEDUP_PRESET_KEYS: Record<DedupPreset, { header: string } | { json_pointer: string }> = {
  github: { header: 'x-github-delivery' },
  stripe: { json_pointer: '/id' },
  shopify: { header: 'x-shopify-webhook-id' },
  standard_webhooks: { header: 'webhook-id' },
};
export const DEFAULT_DEDUP_WINDOW_SECONDS = 86_400;

/** Exactly one of preset, header and json_pointer names the key. */
export interface DedupOption {
  preset?: DedupPreset;
  header?: string;
  json_pointer?: string;
  window_seconds: number;
}

export const VERIFICATION_PRESETS = ['github', 'stripe', 'shopify', 'slack', 'standard_webhooks', 'hmac'] as const;
export type VerificationPreset = (typeof VERIFICATION_PRESETS)[number];
export const HMAC_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
export const SIGNATURE_ENCODINGS = ['hex', 'base64'] as const;
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

/** `hmac` needs header (and takes algorithm, encoding, prefix); the presets fix all but the tolerance. */
export interface VerificationOption {
  preset: VerificationPreset;
  header?: string;
  algorithm?: (typeof HMAC_ALGORITHMS)[number];
  encoding?: (typeof SIGNATURE_ENCODINGS)[number];
  prefix?: string;
  /** Stripe, Slack, Standard Webhooks: how old a signed timestamp may be. */
  tolerance_seconds?: number;
}

/** Neither header nor json_pointer: the whole source is one key. */
export interface OrderingOption {
  header?: string;
  json_pointer?: string;
}

/** Each field optional over the install-wide settings (RETRY_*, DELIVERY_TIMEOUT_MS). */
export interface DeliveryPolicyOption {
  max_attempts?: number;
  backoff_base_seconds?: number;
  backoff_cap_seconds?: number;
  timeout_seconds?: number;
}

/** Pacing (issue 30, docs/rules.md "Pacing"): the periods a rate limit counts over. */
export const RATE_LIMIT_PERIODS = ['second', 'minute', 'hour'] as const;
export type RateLimitPeriod = (typeof RATE_LIMIT_PERIODS)[number];

/** At most `limit` deliveries per `period`, with bursts of up to `burst` (default: `limit`). */
export interface RateLimitOption {
  limit: number;
  period: RateLimitPeriod;
  burst?: number;
}

/** A rule's or destination's transform code is at most this many bytes (docs/transformations.md). */
export const MAX_TRANSFORM_BYTES = 256 * 1024;

export const RULE_HEALTH_STATES = ['healthy', 'unhealthy'] as const;
export type RuleHealthState = (typeof RULE_HEALTH_STATES)[number];
/** Why a rule turned unhealthy: its target answered 410 Gone, or every attempt failed for the span. */
export const UNHEALTHY_REASONS = ['gone', 'failing'] as const;
export type UnhealthyReason = (typeof UNHEALTHY_REASONS)[number];
export const DEFAULT_UNHEALTHY_AFTER_SECONDS = 5 * 86_400;
