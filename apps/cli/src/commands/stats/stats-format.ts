import type { AnswerOf } from '@relay/client';
import type { Colors } from '../../output/colors';
import { formatTable } from '../../output/table';

export type DeliveryStats = AnswerOf<'/stats', 'get'>;
export type Sources = AnswerOf<'/events/sources', 'get'>;

/** A latency for people: milliseconds below a second, else seconds with one decimal. */
export function latency(ms: number | null): string {
  if (ms === null) return '-';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export const percent = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);

/** The window's destination deliveries per destination (routing), apart from the events' own counts. */
function destinationsTable(rows: DeliveryStats['by_destination']): string {
  return formatTable(rows, [
    { header: 'destination', value: (d) => d.name, maxWidth: 32 },
    { header: 'rule', value: (d) => d.rule_id },
    { header: 'deliveries', value: (d) => String(d.total), align: 'right' },
    { header: 'delivered', value: (d) => String(d.delivered), align: 'right' },
    { header: 'failed', value: (d) => String(d.failed), align: 'right' },
    { header: 'queued', value: (d) => String(d.queued), align: 'right' },
    { header: 'paused', value: (d) => String(d.paused), align: 'right' },
    { header: 'success', value: (d) => percent(d.success_rate), align: 'right' },
  ]);
}

/** `relay stats`: the window's totals, success rate and latency, the busiest sources, then the destinations. */
export function statsText(stats: DeliveryStats, colors: Colors): string {
  const line = (label: string, value: string) => `  ${`${label}:`.padEnd(15)}${value}`;
  const n = stats.needs_attention;
  const attention = n ? ` (${n} need${n === 1 ? 's' : ''} attention)` : '';
  const lines = [
    colors.bold(`Deliveries from ${stats.from} to ${stats.to}`),
    line('events', String(stats.total)),
    line('delivered', colors.green(String(stats.by_status.delivered))),
    line('failed', colors.red(String(stats.by_status.failed)) + attention),
    line('queued', colors.blue(String(stats.by_status.queued))),
    // Paused: waiting for an unhealthy rule to be resumed (`relay rules resume <id>`).
    line('paused', colors.yellow(String(stats.by_status.paused))),
    // Ignored: the rule's filter did not match (docs/routing.md).
    line('ignored', colors.dim(String(stats.by_status.ignored))),
    line('success rate', percent(stats.success_rate)),
    line('latency', (['p50', 'p95', 'p99'] as const).map((p) => `${p} ${latency(stats.latency_ms[p])}`).join(', ')),
  ];
  if (stats.by_source.length) {
    const table = formatTable(stats.by_source, [
      { header: 'source', value: (s) => s.source },
      { header: 'events', value: (s) => String(s.total), align: 'right' },
      { header: 'delivered', value: (s) => String(s.delivered), align: 'right' },
      { header: 'failed', value: (s) => String(s.failed), align: 'right' },
      { header: 'queued', value: (s) => String(s.queued), align: 'right' },
      { header: 'paused', value: (s) => String(s.paused), align: 'right' },
      { header: 'ignored', value: (s) => String(s.ignored), align: 'right' },
    ]);
    lines.push('', table);
  }
  if (stats.by_destination.length) lines.push('', destinationsTable(stats.by_destination));
  return lines.join('\n');
}

export function sourcesTable(sources: Sources['sources']): string {
  return formatTable(sources, [
    { header: 'source', value: (s) => s.source },
    { header: 'events', value: (s) => String(s.count), align: 'right' },
  ]);
}
