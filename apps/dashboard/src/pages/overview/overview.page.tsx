import { AreaChart, BarChart } from '@mantine/charts';
import { Card, Group, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { dataOf } from '@relay/client';
import { useMemo } from 'react';
import { client } from '../../app/api-client';
import { AnchorLink } from '../../components/links';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { NeedsAttention } from './needs-attention';

const route = getRouteApi('/authed/');
const WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;

interface Counts {
  total: number;
  queued: number;
  delivered: number;
  failed: number;
  paused: number;
  ignored: number;
}
interface Stats {
  total: number;
  by_status: Omit<Counts, 'total'>;
  needs_attention: number;
  success_rate: number | null;
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
  by_source: (Counts & { source: string })[];
  series: (Counts & { start: string })[];
}

const fetchStats = async (from: string): Promise<Stats> =>
  dataOf(client.GET('/stats', { params: { query: { from } } }));

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl">
        {value}
      </Text>
    </Card>
  );
}

// Short axis labels: the time of day within a day, the date beyond.
const bucketLabel = (iso: string, window: keyof typeof WINDOWS) =>
  WINDOWS[window] <= WINDOWS['24h']
    ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : new Date(iso).toLocaleDateString([], { month: 'short', day: 'numeric', hour: '2-digit' });

const ms = (v: number | null) => (v === null ? '—' : `${Math.round(v)} ms`);

/** Events by status over a window, success rate, latency percentiles, busiest sources, needs attention. */
// One colour per event status, the same in both charts (and in the status badges).
const STATUS_SERIES = [
  { name: 'delivered', color: 'green.6' },
  { name: 'failed', color: 'red.6' },
  { name: 'queued', color: 'blue.6' },
  { name: 'paused', color: 'yellow.6' },
  { name: 'ignored', color: 'gray.6' },
];

export function OverviewPage() {
  const { window } = route.useSearch();
  const navigate = route.useNavigate();
  // The window ends "now" at the time the window was picked: a stable query key for the cache.
  const from = useMemo(() => new Date(Date.now() - WINDOWS[window]).toISOString(), [window]);
  const stats = useQuery({ queryKey: ['stats', window, from], queryFn: () => fetchStats(from) });
  const s = stats.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Overview</Title>
        <SegmentedControl
          aria-label="Window"
          value={window}
          data={Object.keys(WINDOWS)}
          onChange={(value) => void navigate({ search: { window: value as keyof typeof WINDOWS } })}
        />
      </Group>
      <ProblemAlert error={stats.error} />
      {stats.isPending ? <PageLoader /> : null}
      {s ? (
        <>
          <SimpleGrid cols={{ base: 2, md: 5 }}>
            <Figure label="Events" value={String(s.total)} />
            <Figure
              label="Success rate"
              value={s.success_rate === null ? '—' : `${(s.success_rate * 100).toFixed(1)} %`}
            />
            <Figure label="Latency p50" value={ms(s.latency_ms.p50)} />
            <Figure label="Latency p95" value={ms(s.latency_ms.p95)} />
            <Figure label="Latency p99" value={ms(s.latency_ms.p99)} />
          </SimpleGrid>
          {s.total === 0 ? (
            <Text c="dimmed">
              No events in this window. <AnchorLink to="/events">The Events page</AnchorLink> shows how to send a first
              webhook.
            </Text>
          ) : null}
          <Card withBorder>
            <Title order={4} mb="sm">
              Events by status
            </Title>
            <AreaChart
              h={240}
              data={s.series.map((p) => ({ ...p, start: bucketLabel(p.start, window) }))}
              dataKey="start"
              type="stacked"
              series={STATUS_SERIES}
              withLegend
            />
          </Card>
          <Card withBorder>
            <Title order={4} mb="sm">
              Busiest sources
            </Title>
            <BarChart
              h={Math.max(120, Math.min(10, s.by_source.length) * 32)}
              data={s.by_source.slice(0, 10)}
              dataKey="source"
              orientation="vertical"
              type="stacked"
              series={STATUS_SERIES}
              withLegend
            />
          </Card>
          <NeedsAttention count={s.needs_attention} />
        </>
      ) : null}
    </Stack>
  );
}
