import type { AnswerOf } from '@relay/client';

// A plan as people read it, after Terraform's: `+` created, `~` changed field by field, `-` deleted.

export type ConfigPlan = AnswerOf<'/api/config/apply', 'post'>;
type Change = ConfigPlan['changes'][number];

const SIGN = { create: '+', update: '~', delete: '-' } as const;

// A value on one line: secrets come from the api only as "(set)" and "(changed)", never as values.
const shown = (value: unknown) =>
  value === null || value === undefined ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value);

const title = (c: Change) => {
  const what = c.kind === 'default_target' || c.kind === 'notifications' ? c.kind : `${c.kind} "${c.name}"`;
  return `${SIGN[c.action]} ${what}${c.rule ? ` (rule "${c.rule}")` : ''}`;
};

export function planText(plan: ConfigPlan): string {
  if (plan.changes.length === 0) return 'No changes: the organization matches the file.';
  const lines: string[] = [];
  for (const change of plan.changes) {
    lines.push(title(change));
    for (const f of change.fields) {
      lines.push(
        change.action === 'create'
          ? `    ${f.field}: ${shown(f.new)}`
          : `    ${f.field}: ${shown(f.old)} → ${shown(f.new)}`,
      );
    }
  }
  const { create, update, delete: deleted } = plan.summary;
  lines.push('', `Plan: ${create} to create, ${update} to change, ${deleted} to delete.`);
  return lines.join('\n');
}
