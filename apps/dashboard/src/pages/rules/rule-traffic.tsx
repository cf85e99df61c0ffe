import { Card, Group, Text, Title } from '@mantine/core';
import { dataOf, type AnswerOf } from '@relay/client';
import { useQuery } from '@tanstack/react-query';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ProblemAlert } from '../../components/problem-alert';

export type RuleTraffic = AnswerOf<'/stats/rules', 'get'>['rules'][number];
type Bucket = RuleTraffic['series'][number];

/**
 * GET /stats/rules over its default window (the last 24 hours) in hourly buckets: one call gives every rule's
 * chart in the list; with `ruleId`, the one rule of its page.
 */
export const ruleTrafficQuery = (ruleId?: string) => ({
  queryKey: ['stats', 'rules', ruleId ?? 'all'],
  queryFn: async () =>
    dataOf(client.GET('/stats/rules', { params: { query: { bucket: '1h' as const, rule_id: ruleId } } })),
  staleTime: 30_000,
});

const hour = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const other = (b: Bucket) => b.queued + b.paused + b.ignored;

interface SparklineProps {
  traffic: RuleTraffic | undefined;
  /** The rules list's is small; a rule page's fills its card. */
  width?: number;
  height?: number;
}

/**
 * Events per bucket as stacked bars: delivered (green) under failed (red) under the rest (queued, paused, ignored;
 * gray). A tiny SVG rather than the overview's chart library, so the rules list's code stays small. Each bar says
 * its counts on hover (an SVG `title`); the whole chart names its totals for screen readers.
 */
export function TrafficSparkline({ traffic, width = 120, height = 28 }: SparklineProps) {
  if (!traffic)
    return (
      <Text size="xs" c="dimmed">
        no events
      </Text>
    );
  const { series } = traffic;
  const max = Math.max(1, ...series.map((b) => b.total));
  const step = width / Math.max(1, series.length);
  const bar = Math.max(1, step - 1);
  const y = (n: number) => (n / max) * height;
  const label = `Traffic: ${traffic.delivered} delivered, ${traffic.failed} failed, ${traffic.total} events`;
  return (
    <svg role="img" aria-label={label} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
      <line x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} stroke="var(--mantine-color-gray-3)" />
      {series.map((b, i) => {
        if (b.total === 0) return null;
        const x = i * step;
        const delivered = y(b.delivered);
        const failed = y(b.failed);
        const rest = y(other(b));
        return (
          <g key={b.start} data-bucket={b.start}>
            <title>{`${hour(b.start)}: ${b.delivered} delivered, ${b.failed} failed, ${other(b)} other`}</title>
            <rect x={x} y={height - delivered} width={bar} height={delivered} fill="var(--mantine-color-green-6)" />
            <rect x={x} y={height - delivered - failed} width={bar} height={failed} fill="var(--mantine-color-red-6)" />
            <rect
              x={x}
              y={height - delivered - failed - rest}
              width={bar}
              height={rest}
              fill="var(--mantine-color-gray-5)"
            />
          </g>
        );
      })}
    </svg>
  );
}

/** Delivered and failed events of a rule in the window, as numbers beside its chart. */
export function TrafficCounts({ traffic }: { traffic: Pick<RuleTraffic, 'delivered' | 'failed'> | undefined }) {
  if (!traffic) return null;
  return (
    <Group gap="xs" wrap="nowrap" style={{ whiteSpace: 'nowrap' }}>
      <Text size="xs" c="green.8" aria-label="delivered">
        {traffic.delivered} delivered
      </Text>
      <Text size="xs" c={traffic.failed > 0 ? 'red.8' : 'dimmed'} aria-label="failed">
        {traffic.failed} failed
      </Text>
    </Group>
  );
}

/** A rule page's traffic: the same chart as its row in the rules list, larger, with its counts. */
export function RuleTrafficCard({ ruleId }: { ruleId: string }) {
  const { can } = useSession();
  const traffic = useQuery({ ...ruleTrafficQuery(ruleId), enabled: can('GET /stats/rules') });
  const mine = traffic.data?.rules.find((t) => t.rule_id === ruleId);
  return (
    <Card withBorder component="section" aria-label="Traffic">
      <Group justify="space-between" mb="xs">
        <Title order={3}>Traffic, last 24 hours</Title>
        <Text size="xs" c="dimmed">
          hourly: delivered, failed, other
        </Text>
      </Group>
      <ProblemAlert error={traffic.error} />
      {traffic.data ? <TrafficSparkline traffic={mine} width={480} height={64} /> : null}
      <TrafficCounts traffic={mine} />
    </Card>
  );
}
