// The API's provider (`/rules`) and hook shapes, from the typed client (the dashboard imports no server package).
import type { AnswerOf } from '@relay/client';

export type Rule = AnswerOf<'/rules/{id}', 'get'>;
export type Hook = AnswerOf<'/rules/{id}/hooks', 'get'>['hooks'][number];

export const HOOK_TRIGGERS = ['provider_succeeded', 'provider_failed'] as const satisfies readonly Hook['trigger'][];
export type HookTrigger = Hook['trigger'];

// The rule options (docs/rules.md), each null when off.
export type DedupOption = NonNullable<Rule['dedup']>;
export type VerificationOption = NonNullable<Rule['verification']>;
export type OrderingOption = NonNullable<Rule['ordering']>;
export type DeliveryPolicy = NonNullable<Rule['delivery_policy']>;
export type OutboundHeaders = Rule['outbound_headers'];

export const DEDUP_PRESETS = [
  'github',
  'stripe',
  'shopify',
  'standard_webhooks',
] as const satisfies readonly NonNullable<DedupOption['preset']>[];
export const VERIFICATION_PRESETS = [
  'github',
  'stripe',
  'shopify',
  'slack',
  'standard_webhooks',
  'hmac',
] as const satisfies readonly VerificationOption['preset'][];
export const HMAC_ALGORITHMS = ['sha256', 'sha1', 'sha512'] as const satisfies readonly NonNullable<
  VerificationOption['algorithm']
>[];
export const SIGNATURE_ENCODINGS = ['hex', 'base64'] as const satisfies readonly NonNullable<
  VerificationOption['encoding']
>[];
