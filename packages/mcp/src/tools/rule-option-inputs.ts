import type { AnswerOf } from '@relay/client';
import {
  dedupOptionSchema,
  deliveryPolicySchema,
  orderingOptionSchema,
  outboundHeadersSchema,
  rateLimitSchema,
  routingFilterSchema,
  transformCode,
  transformPacingInput,
  transformPacingView,
  unhealthyAfterSeconds,
  verificationOptionSchema,
  verificationSecret,
} from '@relay/contracts';
import { z } from 'zod';

// The rule options (docs/rules.md) as create_rule and update_rule take them and tool results show them: the API's
// own field schemas (@relay/contracts), never a copy. Each option object is taken without its cross-field rules
// ("exactly one of preset, header and json_pointer", "the cap at least the base"): the API checks those and its
// field errors, with their stable code, reach the assistant.

type Rule = AnswerOf<'/rules/{id}', 'get'>;

/** An option object's fields as the API declares them, with its text and a hint for the assistant. */
const fieldsOf = <S extends z.ZodRawShape>(schema: z.ZodObject<S>, hint: string) =>
  z.object(schema.shape).strict().describe(`${schema.description} ${hint} null turns it off.`);

const dedupInput = fieldsOf(dedupOptionSchema, 'Give exactly one of preset, header and json_pointer.');
const verificationInput = fieldsOf(verificationOptionSchema, '`hmac` needs header; needs verification_secret.');
const orderingInput = fieldsOf(orderingOptionSchema, 'Give header or json_pointer, or neither ({}).');
const deliveryPolicyInput = fieldsOf(deliveryPolicySchema, 'null: the defaults.');
const { forward, set: setHeaders, remove: removeHeaders } = outboundHeadersSchema.shape;
// Without the API's default ([]): a list left out of an update keeps the stored one.
export const forwardHeadersInput = forward.unwrap().describe(forward.description ?? '');
const setHeadersInput = setHeaders.unwrap().describe(`${setHeaders.description} {} sets none.`);
const removeHeadersInput = removeHeaders.unwrap().describe(`${removeHeaders.description} [] removes none.`);
const filterInput = routingFilterSchema.describe(
  `${routingFilterSchema.description} Only webhooks it matches go to the target; the others end \`ignored\`. ` +
    'Try it first with dry_run_rule_filter. null removes it.',
);

const { transform, forward_path_query, rate_limit, max_concurrency } = transformPacingInput;

/**
 * The transform and pacing fields (docs/transformations.md, docs/rules.md "Transform and pacing") that create and
 * update take, a rule's for its primary target and a destination's for it: off when left out of a create, kept when
 * left out of an update, null turns one off.
 */
export const transformPacingInputs = {
  transform: transform.describe(
    `${transformCode.description} Try it first on a stored webhook with test_transform. null removes it.`,
  ),
  forward_path_query,
  rate_limit: rate_limit.describe(`${rateLimitSchema.description} null turns it off.`),
  max_concurrency: max_concurrency.describe(`${max_concurrency.unwrap().unwrap().description} null: no limit.`),
};

/** The options create_rule takes, each off when left out. */
export const ruleOptionInputs = {
  filter: filterInput.optional(),
  dedup: dedupInput.optional(),
  verification: verificationInput.optional(),
  verification_secret: verificationSecret.optional(),
  unhealthy_after_seconds: unhealthyAfterSeconds.optional(),
  ordering: orderingInput.optional(),
  delivery_policy: deliveryPolicyInput.optional(),
  set_headers: setHeadersInput.optional(),
  remove_headers: removeHeadersInput.optional(),
  ...transformPacingInputs,
};

/** The options update_rule takes: left out keeps one, null turns it off. */
export const ruleOptionUpdates = {
  filter: filterInput.nullable().optional(),
  dedup: dedupInput.nullable().optional(),
  verification: verificationInput.nullable().optional(),
  verification_secret: verificationSecret.nullable().optional(),
  unhealthy_after_seconds: unhealthyAfterSeconds.nullable().optional(),
  ordering: orderingInput.nullable().optional(),
  delivery_policy: deliveryPolicyInput.nullable().optional(),
  set_headers: setHeadersInput.optional(),
  remove_headers: removeHeadersInput.optional(),
  ...transformPacingInputs,
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
  filter: z.record(z.string(), z.unknown()).nullable().describe('The routing filter; null: every webhook goes.'),
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
  ...transformPacingView,
  has_transform: transformPacingView.has_transform.describe(
    'Whether a transform reshapes its deliveries (the code is not shown here; test_transform runs it).',
  ),
};

type OptionsView = { [K in keyof typeof ruleOptionsSummary]: z.infer<(typeof ruleOptionsSummary)[K]> };

/** The options of a rule as results show them: secrets only as whether one is set. */
export const ruleOptionsView = (rule: Rule): OptionsView => ({
  filter: rule.filter,
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
  has_transform: rule.has_transform,
  forward_path_query: rule.forward_path_query,
  rate_limit: rule.rate_limit,
  max_concurrency: rule.max_concurrency,
});
