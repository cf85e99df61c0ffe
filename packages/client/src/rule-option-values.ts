import type { AnswerOf } from './answer-of';

// The closed value sets of the rule options (docs/rules.md), for clients that offer them as choices (the CLI's
// flags, the MCP tools' enums, the dashboard's selects). Types cannot be iterated, so the lists are written here
// once; `satisfies` fails the build when the API's schema and a list disagree.

type Rule = AnswerOf<'/rules/{id}', 'get'>;
type Verification = NonNullable<Rule['verification']>;

export const DEDUP_PRESETS = [
  'github',
  'stripe',
  'shopify',
  'standard_webhooks',
] as const satisfies readonly NonNullable<NonNullable<Rule['dedup']>['preset']>[];
export const VERIFICATION_PRESETS = [
  'github',
  'stripe',
  'shopify',
  'slack',
  'standard_webhooks',
  'hmac',
] as const satisfies readonly Verification['preset'][];
export const HMAC_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const satisfies readonly NonNullable<
  Verification['algorithm']
>[];
export const SIGNATURE_ENCODINGS = ['hex', 'base64'] as const satisfies readonly NonNullable<
  Verification['encoding']
>[];
