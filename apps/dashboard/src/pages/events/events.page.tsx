import { Button, Group, Pagination, Stack, Switch, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useCallback, useMemo, useState } from 'react';
import { useSession } from '../../app/session';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { EventsBulkBar } from './events-bulk-bar';
import { EventsEmpty } from './events-empty';
import { EventsFilters } from './events-filters';
import { eventsListQuery } from './events-query';
import { hasFilter, type EventsSearch } from './events-search';
import { EventsTable } from './events-table';
import { useLiveEvents } from './use-live-events';

const route = getRouteApi('/authed/events');
// A row that arrived live: the feed says nothing of its deliveries yet (the fan-out follows), the next fetch does.
const NO_DELIVERIES = { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 };

/** The event history: filters in the URL, pages from the API's envelope, live rows on the first unfiltered page. */
export function EventsPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const { me, canWrite } = useSession();
  const [paused, setPaused] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const events = useQuery({ ...eventsListQuery(search), placeholderData: keepPreviousData });
  // Live rows make sense only where new events would show: the first page without filters.
  const liveEnabled = search.page === 1 && !hasFilter(search);
  const live = useLiveEvents(liveEnabled, paused);
  const rows = useMemo(() => {
    const fetched = events.data?.events ?? [];
    const known = new Set(fetched.map((e) => e.id));
    const fresh = live.live
      .filter((e) => !known.has(e.id))
      .map((e) => ({
        ...e,
        attempt_count: 0,
        failure_reason: null,
        acknowledged: false,
        delivery_counts: NO_DELIVERIES,
      }));
    const all = [...fresh, ...fetched].filter((e) => !live.deleted.has(e.id));
    return all.slice(0, Math.max(search.per_page, fresh.length));
  }, [events.data, live.live, live.deleted, search.per_page]);

  const update = (patch: Partial<EventsSearch>) => {
    setSelected(new Set());
    live.reset();
    void navigate({ search: (prev) => ({ ...prev, ...patch, page: 'page' in patch ? (patch.page ?? 1) : 1 }) });
  };
  // Stable, so memoised rows do not re-render when the page does.
  const toggle = useCallback(
    (id: string) =>
      setSelected((s) => {
        const next = new Set(s);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const canSelect = canWrite && me.scopes.some((s) => s === 'webhooks:send' || s === 'organization:manage');
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Events</Title>
        {liveEnabled ? (
          <Group>
            {live.heldCount > 0 ? (
              <Button size="xs" variant="light" onClick={live.release}>
                {live.heldCount} new events
              </Button>
            ) : null}
            <Switch
              label="Pause live updates"
              checked={paused}
              onChange={(e) => {
                setPaused(e.currentTarget.checked);
                if (!e.currentTarget.checked) live.release();
              }}
            />
          </Group>
        ) : null}
      </Group>
      <EventsFilters search={search} onChange={update} />
      <ProblemAlert error={events.error} />
      {canSelect && events.data ? (
        <EventsBulkBar
          selected={[...selected]}
          search={search}
          total={events.data.total}
          canRetry={me.scopes.includes('webhooks:send')}
          canDelete={me.scopes.includes('organization:manage')}
          onDone={() => setSelected(new Set())}
        />
      ) : null}
      {events.isPending ? <PageLoader /> : null}
      {events.data && rows.length === 0 ? <EventsEmpty filtered={hasFilter(search)} /> : null}
      {rows.length > 0 ? (
        <EventsTable
          events={rows}
          statuses={live.statuses}
          attempts={live.attempts}
          selectable={canSelect}
          selected={selected}
          onToggle={toggle}
          onToggleAll={(ids) => setSelected(new Set(ids))}
        />
      ) : null}
      {events.data && events.data.pages > 1 ? (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {events.data.total_exact === false ? 'about ' : ''}
            {events.data.total.toLocaleString('en')} events
          </Text>
          <Pagination total={events.data.pages} value={search.page} onChange={(page) => update({ page })} />
        </Group>
      ) : null}
    </Stack>
  );
}
