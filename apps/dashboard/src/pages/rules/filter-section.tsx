import { NativeSelect, Stack, Textarea } from '@mantine/core';
import { ApiError } from '../../app/api-client';
import { parseFilterDraft, switchFilterMode, type FilterDraft, type FilterMode } from './filter-draft';
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

interface FilterSectionProps extends SectionProps<FilterDraft> {
  /**
   * Set in a destination's form: the filter decides that destination's deliveries, not the primary's; `id` once
   * the destination is saved (the dry run then tries the typed filter for it).
   */
  destination?: { id?: string | undefined } | undefined;
}

/**
 * A routing filter (docs/routing.md), the rule's or a destination's: JSON in Hookdeck's syntax, or a CEL
 * expression, tried as typed on the rule's stored webhooks.
 */
export function FilterSection({ draft, set, error, rule, destination }: FilterSectionProps) {
  const parsed = parseFilterDraft(draft);
  const cel = draft.filterMode === 'cel';
  const effect = destination
    ? '; only matching webhooks get a delivery to this destination. Empty: every webhook does'
    : '; only matching webhooks go to the target, the others end ignored. Empty: every webhook goes';
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
            : 'e.g. {"body": {"amount": {"$gte": 100}}, "headers": {"x-env": "prod"}}') + effect
        }
        rows={5}
        styles={{ input: { fontFamily: 'monospace' } }}
        value={draft.filterText}
        onChange={(e) => set({ filterText: e.currentTarget.value })}
        error={parsed.ok ? apiFilterError(error) : parsed.message}
      />
      {/* A new rule has no webhooks to try a filter on; a new destination has its rule's. */}
      {rule && parsed.ok && parsed.filter ? (
        <FilterDryRun ruleId={rule.id} destinationId={destination?.id} filter={parsed.filter} />
      ) : null}
    </Stack>
  );
}
