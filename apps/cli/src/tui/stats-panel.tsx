import { Box, Text } from 'ink';
import type { Stats } from './tui-actions';
import { useTheme } from './tui-theme';

const pct = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);
const ms = (value: number | null) => (value === null ? '-' : `${value} ms`);
const sourceLine = (source: string, total: string, delivered: string, failed: string) =>
  `  ${source.slice(0, 24).padEnd(24)} ${total.padStart(7)} ${delivered.padStart(10)} ${failed.padStart(7)}`;

/** GET /stats over its default window (the last 24 hours): counts, success rate, latency, busiest sources. */
export function StatsPanel({ stats, height, width }: { stats: Stats | undefined; height: number; width: number }) {
  const theme = useTheme();
  if (!stats)
    return (
      <Box height={height} width={width}>
        <Text {...theme.tone('gray')}>Loading statistics…</Text>
      </Box>
    );
  const { by_status: s, latency_ms: l } = stats;
  const sources = stats.by_source.slice(0, Math.max(0, height - 9));
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Text bold wrap="truncate-end">{`Statistics ${stats.from} → ${stats.to}`}</Text>
      <Text wrap="truncate-end">
        {`  events ${stats.total}   `}
        <Text {...theme.status('delivered')}>{`delivered ${s.delivered}`}</Text>
        {'   '}
        <Text {...theme.status('failed')}>{`failed ${s.failed}`}</Text>
        {'   '}
        <Text {...theme.status('queued')}>{`queued ${s.queued}`}</Text>
        {'   '}
        <Text {...theme.status('paused')}>{`paused ${s.paused}`}</Text>
        {'   '}
        <Text {...theme.status('ignored')}>{`ignored ${s.ignored}`}</Text>
      </Text>
      <Text wrap="truncate-end">
        {`  needs attention ${stats.needs_attention}   success rate ${pct(stats.success_rate)}`}
      </Text>
      <Text wrap="truncate-end">{`  latency p50 ${ms(l.p50)}   p95 ${ms(l.p95)}   p99 ${ms(l.p99)}`}</Text>
      <Text> </Text>
      <Text bold wrap="truncate-end">
        {sourceLine('SOURCE', 'TOTAL', 'DELIVERED', 'FAILED')}
      </Text>
      {sources.length === 0 ? <Text {...theme.tone('gray')}> no events in the window</Text> : null}
      {sources.map((row) => (
        <Text key={row.source} wrap="truncate-end">
          {sourceLine(row.source, String(row.total), String(row.delivered), String(row.failed))}
        </Text>
      ))}
    </Box>
  );
}
