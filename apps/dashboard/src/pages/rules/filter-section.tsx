import { NativeSelect, Stack, Textarea } from '@mantine/core';
import { ApiError } from '../../app/api-client';
import { parseFilterDraft, switchFilterMode, type FilterMode } from './filter-draft';
import { FilterDryRun } from './filter-dry-run';
import { choices, type SectionProps } from './rule-option-props';

const MODES = ['json', 'cel'] as const satisfies readonly FilterMode[];

/** The API's message for the filter, naming the part it is about (`filter.body.amount.$gtt: …`). */
function apiFilterError(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const found = error.problem.errors?.find((e) => e.field === 'filter' || e.field.startsWith('filter.'));
  if (!found) return undefined;
  return found.field === 'filter' ? found.message : `${found.field}: ${found.message}`;
}

/** The rule's routing filter (docs/routing.md): JSON in Hookdeck's syntax, or a CEL expression, tried as typed. */
export function FilterSection({ draft, set, error, rule }: SectionProps) {
  const parsed = parseFilterDraft(draft);
  const cel = draft.filterMode === 'cel';
  return (
    <Stack gap="xs">
      <NativeSelect
        label="Filter language"
        data={choices(MODES, { json: 'JSON (Hookdeck syntax)', cel: 'CEL expression' })}
        value={draft.filterMode}
        onChange={(e) => set(switchFilterMode(draft, e.currentTarget.value as FilterMode))}
      />
      <Textarea
        label={cel ? 'CEL expression' : 'Filter JSON'}
        description={
          (cel
            ? 'Over body, headers, path and query, e.g. body.type == "push" && headers["x-env"] == "prod"'
            : 'e.g. {"body": {"amount": {"$gte": 100}}, "headers": {"x-env": "prod"}}') +
          '; only matching webhooks go to the target, the others end ignored. Empty: every webhook goes'
        }
        rows={5}
        styles={{ input: { fontFamily: 'monospace' } }}
        value={draft.filterText}
        onChange={(e) => set({ filterText: e.currentTarget.value })}
        error={parsed.ok ? apiFilterError(error) : parsed.message}
      />
      {/* A new rule has no webhooks to try a filter on. */}
      {rule && parsed.ok && parsed.filter ? <FilterDryRun ruleId={rule.id} filter={parsed.filter} /> : null}
    </Stack>
  );
}
