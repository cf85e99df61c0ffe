import { visibleLength } from './colors';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Right-align (counts, durations). */
  align?: 'right';
  /** Cut longer values with "…" (free text such as failure reasons). */
  maxWidth?: number;
}

const cut = (text: string, max: number | undefined) =>
  max !== undefined && text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;

/**
 * Rows as aligned columns under an upper-case header, two spaces apart, the way `kubectl` and the Stripe CLI print
 * lists: easy to read and to cut with awk. Values may carry colour (the width ignores escape codes).
 */
export function formatTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) => columns.map((c) => cut(c.value(row), c.maxWidth)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => visibleLength(r[i]!))));
  const pad = (text: string, i: number) => {
    const fill = ' '.repeat(widths[i]! - visibleLength(text));
    return columns[i]!.align === 'right' ? fill + text : text + fill;
  };
  const line = (values: string[]) => values.map(pad).join('  ').replace(/\s+$/, '');
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n');
}
