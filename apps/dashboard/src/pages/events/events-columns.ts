// The events table's optional columns, in display order. Source is always shown: it is the row's link.
export const EVENT_COLUMNS = [
  { id: 'status', label: 'Status' },
  { id: 'attempts', label: 'Attempts' },
  { id: 'reason', label: 'Reason' },
  { id: 'last_error', label: 'Last error' },
  { id: 'target', label: 'Target' },
  { id: 'deliveries', label: 'Deliveries' },
  { id: 'received', label: 'Received' },
] as const;

export type ColumnId = (typeof EVENT_COLUMNS)[number]['id'];
export type Columns = ReadonlySet<ColumnId>;

export const ALL_COLUMNS: Columns = new Set(EVENT_COLUMNS.map((c) => c.id));
const IDS: ReadonlySet<string> = ALL_COLUMNS;

/** Known column ids of a stored list, in display order (an unknown id from an older version is dropped). */
export function columnsOf(stored: unknown): Columns | undefined {
  if (!Array.isArray(stored)) return undefined;
  const known = stored.filter((id): id is ColumnId => typeof id === 'string' && IDS.has(id));
  return new Set(EVENT_COLUMNS.map((c) => c.id).filter((id) => known.includes(id)));
}
