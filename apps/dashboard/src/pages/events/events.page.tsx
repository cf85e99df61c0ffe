import { Badge, Button, Group, Pagination, Stack, Switch, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useSession } from '../../app/session';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { EventsBulkBar } from './events-bulk-bar';
import { EventsColumnChooser } from './events-column-chooser';
import { ALL_COLUMNS, type Columns } from './events-columns';
import { EventsEmpty } from './events-empty';
import { EventsFilters } from './events-filters';
import { loadPrefs, prefsUserOf, savePrefs, stripPage } from './events-prefs';
import { eventsListQuery } from './events-query';
import { hasFilter, type EventsSearch } from './events-search';
import { EventsTable } from './events-table';
import { liveRows } from './live-rows';
import { needsAttentionQuery } from './needs-attention-query';
import { useLiveEvents } from './use-live-events';
import { useLiveSummaries } from './use-live-summaries';

const route = getRouteApi('/authed/events');

/** The event history: filters in the URL, pages from the API's envelope, live rows on the first unfiltered page. */
export function EventsPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const { me, canWrite } = useSession();
  const [paused, setPaused] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const user = prefsUserOf(me);
  const [columns, setColumns] = useState<Columns>(() => loadPrefs(user).columns ?? ALL_COLUMNS);
  // The filters as they are now are the ones the next visit starts with (routes.tsx restores them).
  useEffect(() => savePrefs(user, { filters: stripPage(search) }), [user, search]);
  const events = useQuery({ ...eventsListQuery(search), placeholderData: keepPreviousData });
  // Asked once the list is in: on a first visit it would compete with the list for the API and the network.
  const attention = useQuery({ ...needsAttentionQuery, enabled: events.data !== undefined });
  // Live rows make sense only where new events would show: the first page without filters.
  const liveEnabled = search.page === 1 && !hasFilter(search);
  const live = useLiveEvents(liveEnabled, paused);
  const summaries = useLiveSummaries(liveEnabled, live.changes, search.per_page + live.live.length);
  const rows = useMemo(
    () =>
      liveRows({
        fetched: events.data?.events ?? [],
        fetchedAt: events.dataUpdatedAt,
        live: live.live,
        deleted: live.deleted,
        statuses: live.statuses,
        attempts: live.attempts,
        summaries,
        perPage: search.per_page,
      }),
    [
      events.data,
      events.dataUpdatedAt,
      live.live,
      live.deleted,
      live.statuses,
      live.attempts,
      summaries,
      search.per_page,
    ],
  );
  const chooseColumns = (next: Columns) => {
    setColumns(next);
    savePrefs(user, { columns: next });
  };
  const needsAttention = search.needs_attention === true;

  const queryClient = useQueryClient();
  const update = (patch: Partial<EventsSearch>) => {
    setSelected(new Set());
    // The live rows go with the view they arrived in, so any cached page is older than what was shown: each is
    // fetched again when next shown (not now), or coming back to the live view within staleTime would lose them.
    if (live.changes > 0) void queryClient.invalidateQueries({ queryKey: ['events', 'list'], refetchType: 'none' });
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
        <Group>
          <Title order={2}>Events</Title>
          <Button
            size="xs"
            color="red"
            variant={needsAttention ? 'filled' : 'light'}
            aria-pressed={needsAttention}
            onClick={() => update({ needs_attention: needsAttention ? undefined : true })}
            rightSection={
              attention.data ? (
                <Badge
                  size="sm"
                  color="red"
                  variant={needsAttention ? 'white' : 'filled'}
                  data-testid="attention-count"
                >
                  {attention.data.total.toLocaleString('en')}
                </Badge>
              ) : null
            }
          >
            Needs attention
          </Button>
        </Group>
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
      <Group justify="space-between" align="flex-end" wrap="nowrap">
        <EventsFilters search={search} onChange={update} />
        <EventsColumnChooser columns={columns} onChange={chooseColumns} />
      </Group>
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
          columns={columns}
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
