import type { AnswerOf } from '@relay/client';
import { pacingStateSchema, signingSchema, targetUrl } from '@relay/contracts';
import { z } from 'zod';
import { ruleOptionsSummary, ruleOptionsView } from './rule-option-inputs';

// Rules and their hooks as tool results show them: everything an assistant needs to reason
// about where events go, never a signing secret (the API returns none either, only whether one is set).

type Rule = AnswerOf<'/rules/{id}', 'get'>;
type Hook = AnswerOf<'/rules/{id}/hooks', 'get'>['hooks'][number];

export const ruleIdInput = z.uuid().describe('The rule id (from list_rules).');
export const targetUrlInput = targetUrl.describe(
  'http(s) URL the relay POSTs to; checked against the network policy (refused: target_url_rejected).',
);
export const descriptionInput = z.string().max(500).describe('A note for humans, up to 500 characters.');

/** The pacing state only get_rule and get_destination show (one Redis read each; lists leave it out). */
export const pacingStateSummary = pacingStateSchema
  .nullable()
  .optional()
  .describe(
    'Pacing now, over every worker: the rate in force (halved after a 429 until successes restore it), deliveries ' +
      'in flight and waiting their turn, and a Retry-After hold. null: not paced and not held, or Redis did not ' +
      'answer in time.',
  );

export const ruleSummary = z.object({
  id: z.string(),
  name: z.string().describe('Unique in the organization.'),
  source: z.string().describe('Events ingested at /<source> (or with X-Webhook-Source) are delivered by this rule.'),
  target_url: z.string(),
  active: z.boolean().describe('An inactive rule delivers nothing; its events go to the default target.'),
  description: z.string().nullable(),
  has_signing_secret: z.boolean().describe('Deliveries carry X-Relay-Signature and webhook-signature.'),
  signing: signingSchema,
  previous_secret_expires_at: z.string().nullable(),
  forward_headers: z.array(z.string()).describe('Inbound headers forwarded beyond the default set.'),
  ...ruleOptionsSummary,
  health: z
    .object({
      status: z.enum(['healthy', 'unhealthy']),
      reason: z.enum(['gone', 'failing']).nullable().describe('gone: the target answered 410; failing: no success.'),
      since: z.string().nullable(),
    })
    .describe("An unhealthy rule's events wait as paused until resume_rule."),
  pacing_state: pacingStateSummary,
  created_at: z.string(),
  updated_at: z.string(),
  link: z.string(),
});

export const hookSummary = z.object({
  id: z.string(),
  rule_id: z.string(),
  name: z.string().describe('Unique in the rule.'),
  trigger: z.enum(['provider_succeeded', 'provider_failed']),
  target_url: z.string(),
  active: z.boolean(),
  description: z.string().nullable(),
  created_at: z.string(),
  link: z.string().describe("The rule's dashboard page, where its hooks are listed."),
});

export const ruleView = (rule: Rule, link: (path: string) => string): z.infer<typeof ruleSummary> => ({
  id: rule.id,
  name: rule.name,
  source: rule.source,
  target_url: rule.target_url,
  active: rule.active,
  description: rule.description,
  has_signing_secret: rule.has_signing_secret,
  signing: rule.signing,
  previous_secret_expires_at: rule.previous_secret_expires_at,
  forward_headers: rule.outbound_headers.forward,
  ...ruleOptionsView(rule),
  health: { status: rule.health.status, reason: rule.health.reason, since: rule.health.since },
  ...(rule.pacing_state !== undefined ? { pacing_state: rule.pacing_state } : {}),
  created_at: rule.created_at,
  updated_at: rule.updated_at,
  link: link(`/rules/${rule.id}`),
});

export const hookView = (hook: Hook, link: (path: string) => string): z.infer<typeof hookSummary> => ({
  id: hook.id,
  rule_id: hook.rule_id,
  name: hook.name,
  trigger: hook.trigger,
  target_url: hook.target_url,
  active: hook.active,
  description: hook.description,
  created_at: hook.created_at,
  link: link(`/rules/${hook.rule_id}`),
});
