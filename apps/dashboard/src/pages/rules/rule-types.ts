// The API's rule (`/rules`) and hook shapes, from the typed client (the dashboard imports no server package).
import type { AnswerOf } from '@relay/client';

export type Rule = AnswerOf<'/rules/{id}', 'get'>;
export type Hook = AnswerOf<'/rules/{id}/hooks', 'get'>['hooks'][number];

export const HOOK_TRIGGERS = ['provider_succeeded', 'provider_failed'] as const satisfies readonly Hook['trigger'][];
export type HookTrigger = Hook['trigger'];

/**
 * Who signs deliveries, as the rules list and a rule page say it: DEFAULT_SIGNING_SECRET signs a rule without its
 * own (`default`), so such a rule is not "unsigned".
 */
export const SIGNING_LABELS: Record<Rule['signing'], string> = {
  own: 'own secret',
  default: 'default secret',
  none: 'unsigned',
};

// The rule options (docs/rules.md), each null when off.
export type DedupOption = NonNullable<Rule['dedup']>;
export type VerificationOption = NonNullable<Rule['verification']>;
export type OrderingOption = NonNullable<Rule['ordering']>;
export type DeliveryPolicy = NonNullable<Rule['delivery_policy']>;
export type OutboundHeaders = Rule['outbound_headers'];

// The options' value sets come with the typed client (one list for every client).
export { DEDUP_PRESETS, HMAC_ALGORITHMS, SIGNATURE_ENCODINGS, VERIFICATION_PRESETS } from '@relay/client';
