import type { AnswerOf } from '@relay/client';
import type { Colors } from '../../output/colors';
import { formatTable } from '../../output/table';
import { ago } from '../command-kit';
import { formatFields, type BodyOf } from '../admin-kit';
import { ruleOptionFields } from './rule-option-views';
import { healthText } from './rule-health-view';

export type Rule = AnswerOf<'/rules/{id}', 'get'>;
export type Hook = AnswerOf<'/rules/{id}/hooks', 'get'>['hooks'][number];
export type RuleCreateBody = BodyOf<'postRules'>;
export type RuleUpdateBody = BodyOf<'patchRulesId'>;

// Who signs deliveries: the api knows whether DEFAULT_SIGNING_SECRET is set (it is set on both api and worker).
export const signingText = (signing: Rule['signing']) =>
  signing === 'own' ? 'own secret' : signing === 'default' ? 'default secret' : 'none';

const activeText = (colors: Colors, active: boolean) => (active ? colors.green('active') : colors.gray('disabled'));

export function rulesTable(rules: readonly Rule[], colors: Colors): string {
  if (rules.length === 0) return 'No rules yet: create one with `relay rules create --source … --target …`.';
  return formatTable(rules, [
    { header: 'id', value: (r) => r.id },
    { header: 'name', value: (r) => r.name, maxWidth: 40 },
    { header: 'source', value: (r) => r.source },
    { header: 'target', value: (r) => r.target_url, maxWidth: 60 },
    { header: 'state', value: (r) => activeText(colors, r.active) },
    { header: 'signing', value: (r) => r.signing },
    { header: 'description', value: (r) => r.description ?? '', maxWidth: 40 },
  ]);
}

export function ruleDetail(rule: Rule, colors: Colors): string {
  const fields: [string, string][] = [
    ['id', rule.id],
    ['name', rule.name],
    ['source', rule.source],
    ['target', rule.target_url],
    ['state', activeText(colors, rule.active)],
    ['health', healthText(rule.health, colors)],
    ['description', rule.description ?? '-'],
    ['signing', signingText(rule.signing)],
  ];
  if (rule.previous_secret_expires_at)
    fields.push(['previous secret', `also signs until ${rule.previous_secret_expires_at}`]);
  fields.push(
    ['forwards', rule.outbound_headers.forward.length ? rule.outbound_headers.forward.join(', ') : '-'],
    ...ruleOptionFields(rule),
    ['created', `${rule.created_at} (${ago(rule.created_at)})`],
    ['updated', `${rule.updated_at} (${ago(rule.updated_at)})`],
  );
  return formatFields(fields);
}

export function hooksTable(hooks: readonly Hook[], colors: Colors): string {
  if (hooks.length === 0) return 'No hooks on this rule: add one with `relay hooks create <rule-id> --target …`.';
  return formatTable(hooks, [
    { header: 'id', value: (h) => h.id },
    { header: 'name', value: (h) => h.name, maxWidth: 40 },
    { header: 'trigger', value: (h) => h.trigger },
    { header: 'target', value: (h) => h.target_url, maxWidth: 60 },
    { header: 'state', value: (h) => activeText(colors, h.active) },
    { header: 'description', value: (h) => h.description ?? '', maxWidth: 40 },
  ]);
}
