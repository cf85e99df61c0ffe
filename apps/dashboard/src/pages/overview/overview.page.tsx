import { Card, Group, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { dataOf } from '@relay/client';
import { useMemo, type ReactNode } from 'react';
import { client } from '../../app/api-client';
import { AnchorLink } from '../../components/links';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { EVENT_STATUSES } from '../events/events-search';
import { BusiestSources } from './busiest-sources';
import { NeedsAttention } from './needs-attention';
import { WINDOWS, windowRange, type OverviewWindow, type WindowRange } from './overview-window';
import { StatusChart, type BucketCounts } from './status-chart';
import { TopFailingRules, TopFailingTargets, type FailingDestination, type FailingRule } from './top-failing';

const route = getRouteApi('/authed/');

interface Stats {
  total: number;
  by_status: Omit<BucketCounts, 'start' | 'total'>;
  needs_attention: number;
  success_rate: number | null;
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
  by_source: (Omit<BucketCounts, 'start'> & { source: string })[];
  top_failing: { rules: FailingRule[]; destinations: FailingDestination[] };
  series: BucketCounts[];
}

const fetchStats = async ({ from, to, bucket }: WindowRange): Promise<Stats> =>
  dataOf(client.GET('/stats', { params: { query: { from, to, bucket } } }));

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl" component="div">
        {children}
      </Text>
    </Card>
  );
}

const ms = (v: number | null) => (v === null ? '—' : `${Math.round(v)} ms`);

/**
 * Events by status over a window (stacked bars and the failure rate), success rate, latency percentiles, where
 * failures come from, busiest sources, needs attention. Every count links to the events list showing those events.
 */
export function OverviewPage() {
  const { window } = route.useSearch();
  const navigate = route.useNavigate();
  // The window ends at the end of the current bucket as of when it was picked: a stable query key for the cache.
  const range = useMemo(() => windowRange(window, Date.now()), [window]);
  const { from, to } = range;
  const stats = useQuery({ queryKey: ['stats', window, from], queryFn: () => fetchStats(range) });
  const s = stats.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Overview</Title>
        <SegmentedControl
          aria-label="Window"
          value={window}
          data={Object.keys(WINDOWS)}
          onChange={(value) => void navigate({ search: { window: value as OverviewWindow } })}
        />
      </Group>
      <ProblemAlert error={stats.error} />
      {stats.isPending ? <PageLoader /> : null}
      {s ? (
        <>
          <SimpleGrid cols={{ base: 2, md: 5 }}>
            <Figure label="Events">
              <AnchorLink to="/events" search={{ from, to }} inherit aria-label={`${s.total} events in the window`}>
                {s.total}
              </AnchorLink>
            </Figure>
            <Figure label="Success rate">
              {s.success_rate === null ? (
                '—'
              ) : (
                <AnchorLink to="/events" search={{ status: 'failed', from, to }} inherit title="The failed events">
                  {(s.success_rate * 100).toFixed(1)} %
                </AnchorLink>
              )}
            </Figure>
            {(['p50', 'p95', 'p99'] as const).map((p) => (
              <Figure key={p} label={`Latency ${p}`}>
                {s.latency_ms[p] === null ? (
                  '—'
                ) : (
                  <AnchorLink to="/events" search={{ status: 'delivered', from, to }} inherit>
                    {ms(s.latency_ms[p])}
                  </AnchorLink>
                )}
              </Figure>
            ))}
          </SimpleGrid>
          {s.total === 0 ? (
            <Text c="dimmed">
              No events in this window. <AnchorLink to="/events">The Events page</AnchorLink> shows how to send a first
              webhook.
            </Text>
          ) : null}
          <Card withBorder>
            <Group justify="space-between" mb="sm">
              <Title order={4}>Events by status</Title>
              <Group gap="sm" aria-label="Events by status in the window">
                {EVENT_STATUSES.map((status) => (
                  <AnchorLink key={status} to="/events" search={{ status, from, to }} size="sm">
                    {s.by_status[status]} {status}
                  </AnchorLink>
                ))}
              </Group>
            </Group>
            <StatusChart series={s.series} bucketMs={range.bucketMs} window={window} />
          </Card>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <TopFailingRules rules={s.top_failing.rules} from={from} to={to} />
            <TopFailingTargets
              rules={s.top_failing.rules}
              destinations={s.top_failing.destinations}
              from={from}
              to={to}
            />
          </SimpleGrid>
          <BusiestSources sources={s.by_source} from={from} to={to} />
          <NeedsAttention count={s.needs_attention} />
        </>
      ) : null}
    </Stack>
  );
}
