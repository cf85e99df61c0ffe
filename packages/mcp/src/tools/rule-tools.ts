import { dataOf } from '@relay/client';
import { resourceNameSchema, signingSecret, sourceSchema } from '@relay/contracts';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';
import { forwardHeadersInput, outboundHeadersChange, ruleOptionInputs, ruleOptionUpdates } from './rule-option-inputs';
import { dryRunRuleFilter } from './rule-dry-run-tool';
import { resumeRule } from './rule-health-tools';
import { ruleBlockedKeys } from './rule-ordering-tools';
import { rotateVerificationSecret } from './rule-secret-tools';
import { testTransform } from './transform-test-tool';
import { descriptionInput, ruleIdInput, ruleSummary, ruleView, targetUrlInput } from './rule-views';

// Rules (`/rules`): which source is delivered to which target, signed with which secret.

// The API's field schemas (@relay/contracts), with text for an assistant where the API's says less.
const sourceInput = sourceSchema.describe(
  'The source this rule serves: webhooks posted to /<source> (e.g. "stripe"). One active rule per source.',
);
const nameInput = resourceNameSchema.describe(
  "The rule's name, unique in the organization (taken: rule_name_taken); a stable handle where ids differ.",
);
const signingSecretInput = signingSecret.describe(
  'HMAC secret (16-256 characters) signing each delivery; write-only: results only say whether one is set.',
);

const listRules = defineTool({
  name: 'list_rules',
  title: 'List rules',
  description:
    'Every rule of the organization: which source is delivered to which target URL, whether it is ' +
    'active and signs its deliveries. Events of a source without an active rule go to the default target. Use it ' +
    'to find a rule id for update_rule, delete_rule, list_hooks or send_webhook.',
  operation: 'GET /rules',
  input: {},
  output: { rules: z.array(ruleSummary) },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(_args, { client, link }) {
    const { rules } = await dataOf(client.GET('/rules'));
    return { rules: rules.map((rule) => ruleView(rule, link)) };
  },
});

const getRule = defineTool({
  name: 'get_rule',
  title: 'Get a rule',
  description:
    'One rule, as list_rules shows it, plus its pacing state now: the rate in force (a 429 halves it), deliveries ' +
    'in flight and waiting their turn, and a Retry-After hold from its target. Use it to see why its deliveries ' +
    'are slow or held back.',
  operation: 'GET /rules/{id}',
  input: { id: ruleIdInput },
  output: { rule: ruleSummary },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ id }, { client, link }) {
    return { rule: ruleView(await dataOf(client.GET('/rules/{id}', { params: { path: { id } } })), link) };
  },
});

const createRule = defineTool({
  name: 'create_rule',
  title: 'Create a rule',
  description:
    'Creates a rule: webhooks ingested for `source` are delivered to `target_url` from now on (with retries). ' +
    'Refused when another active rule serves the source (active_provider_exists) or the target is not allowed ' +
    '(target_url_rejected). The signing secret is never shown again. The options (routing filter, deduplication, ' +
    'inbound signature verification, health threshold, ordering, delivery policy, set/removed headers, transform, ' +
    'pacing) are off unless given. A transform is compiled at save (a syntax error names `transform`); try it on ' +
    'a stored webhook with test_transform first.',
  operation: 'POST /rules',
  input: {
    name: nameInput
      .optional()
      .describe('Unique in the organization; default: the source, suffixed -2, -3, … if taken.'),
    source: sourceInput,
    target_url: targetUrlInput,
    active: z.boolean().optional().describe('Default true; false stores the rule without delivering by it.'),
    description: descriptionInput.optional(),
    signing_secret: signingSecretInput.optional(),
    forward_headers: forwardHeadersInput.optional(),
    ...ruleOptionInputs,
  },
  output: { rule: ruleSummary },
  annotations: { destructiveHint: false },
  async run({ forward_headers, set_headers, remove_headers, ...fields }, { client, link }) {
    const headers = outboundHeadersChange({ forward_headers, set_headers, remove_headers });
    const body = { ...fields, ...(headers ? { outbound_headers: headers() } : {}) };
    return { rule: ruleView(await dataOf(client.POST('/rules', { body })), link) };
  },
});

const updateRule = defineTool({
  name: 'update_rule',
  title: 'Update a rule',
  description:
    'Changes a rule: only the fields given change. `description: null` and `signing_secret: null` clear them ' +
    '(null clearing the secret stops signing). Setting `active: false` pauses the rule: its source then goes to ' +
    'the default target. To rotate a secret without a gap, use the dashboard (rotation keeps the old one valid); ' +
    'for the verification secret, rotate_rule_verification_secret. An option set to null is turned off; ' +
    'forward_headers, set_headers and remove_headers each replace their list and keep the others.',
  operation: 'PATCH /rules/{id}',
  input: {
    id: ruleIdInput,
    name: nameInput.optional(),
    source: sourceInput.optional(),
    target_url: targetUrlInput.optional(),
    active: z.boolean().optional(),
    description: descriptionInput.nullable().optional(),
    signing_secret: signingSecretInput.nullable().optional(),
    forward_headers: forwardHeadersInput.optional().describe('Replaces the forwarded headers; [] forwards none.'),
    ...ruleOptionUpdates,
  },
  output: { rule: ruleSummary },
  annotations: { idempotentHint: true },
  async run({ id, forward_headers, set_headers, remove_headers, ...fields }, { client, link }) {
    // Only what the caller named goes to the API: an absent field is left as it is, a null clears it.
    const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    const headers = outboundHeadersChange({ forward_headers, set_headers, remove_headers });
    if (Object.keys(changes).length === 0 && !headers) {
      throw new Error(
        'Nothing to change: give at least one of name, source, target_url, active, description, signing_secret, ' +
          'forward_headers, set_headers, remove_headers or a rule option.',
      );
    }
    // The API replaces outbound_headers whole: the lists not named are kept from the stored rule.
    const stored = headers && (await dataOf(client.GET('/rules/{id}', { params: { path: { id } } })));
    const body = { ...changes, ...(headers && stored ? { outbound_headers: headers(stored.outbound_headers) } : {}) };
    const rule = await dataOf(client.PATCH('/rules/{id}', { params: { path: { id } }, body }));
    return { rule: ruleView(rule, link) };
  },
});

const deleteRule = defineTool({
  name: 'delete_rule',
  title: 'Delete a rule',
  description:
    'Deletes a rule and its hooks, at once and for good. Events of its source are then delivered to the default ' +
    'target (or fail without one); stored events stay. To pause instead, use update_rule with active: false.',
  operation: 'DELETE /rules/{id}',
  input: { id: ruleIdInput },
  output: { id: z.string(), deleted: z.literal(true), link: z.string().describe('The rules page.') },
  annotations: { destructiveHint: true },
  async run({ id }, { client, link }) {
    await dataOf(client.DELETE('/rules/{id}', { params: { path: { id } } }));
    return { id, deleted: true as const, link: link('/rules') };
  },
});

export const RULE_TOOLS: readonly AnyRelayTool[] = [
  listRules,
  getRule,
  createRule,
  updateRule,
  deleteRule,
  rotateVerificationSecret,
  resumeRule,
  ruleBlockedKeys,
  dryRunRuleFilter,
  testTransform,
];
