import type { Rule } from './rule-types';

// The rule's routing filter (docs/routing.md) as the form edits it: JSON text, or a CEL expression written as
// `{"cel": "…"}`. Empty text means no filter. The API checks the filter itself; here only the JSON is parsed.

export type FilterMode = 'json' | 'cel';
export type RoutingFilter = NonNullable<Rule['filter']>;

export interface FilterDraft {
  filterMode: FilterMode;
  filterText: string;
}

const isCel = (filter: RoutingFilter): filter is { cel: string } =>
  Object.keys(filter).length === 1 && typeof filter.cel === 'string';

/** The editor's starting values: a stored CEL filter opens as its expression, any other as indented JSON. */
export function filterDraftOf(filter: Rule['filter'] | undefined): FilterDraft {
  if (!filter) return { filterMode: 'json', filterText: '' };
  if (isCel(filter)) return { filterMode: 'cel', filterText: filter.cel };
  return { filterMode: 'json', filterText: JSON.stringify(filter, null, 2) };
}

export type ParsedFilter = { ok: true; filter: RoutingFilter | null } | { ok: false; message: string };

/** The filter the text stands for (null: none), or why the JSON cannot be one. */
export function parseFilterDraft({ filterMode, filterText }: FilterDraft): ParsedFilter {
  const text = filterText.trim();
  if (!text) return { ok: true, filter: null };
  if (filterMode === 'cel') return { ok: true, filter: { cel: text } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `Not JSON: ${(error as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'A filter is a JSON object, such as {"body": {"type": "push"}}' };
  return { ok: true, filter: value as RoutingFilter };
}

/** The draft in the other mode: `{"cel": "…"}` opens as its expression and back; other text is kept as it is. */
export function switchFilterMode(draft: FilterDraft, mode: FilterMode): FilterDraft {
  if (mode === draft.filterMode) return draft;
  const parsed = parseFilterDraft(draft);
  if (mode === 'json' && parsed.ok && parsed.filter)
    return { filterMode: mode, filterText: JSON.stringify(parsed.filter, null, 2) };
  if (mode === 'cel' && parsed.ok && parsed.filter && isCel(parsed.filter))
    return { filterMode: mode, filterText: parsed.filter.cel };
  return { filterMode: mode, filterText: draft.filterText };
}

/** A filter in one line: a CEL filter as its expression, any other as compact JSON. */
export const filterSummary = (filter: RoutingFilter): string =>
  isCel(filter) ? `CEL: ${filter.cel}` : JSON.stringify(filter);
