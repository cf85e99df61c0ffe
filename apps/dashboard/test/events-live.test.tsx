import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { liveRows } from '../src/pages/events/live-rows';
import type { EventSummary } from '../src/pages/events/event-types';
import { admin, fakeApi, renderApp } from './render-app';

const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const event = (n: number, patch: Partial<EventSummary> = {}): EventSummary => ({
  id: id(n),
  source: `src-${n}`,
  status: 'queued',
  provider_id: null,
  target_url: 'https://target.example/hook',
  attempt_count: 0,
  failure_reason: null,
  last_error: null,
  acknowledged: false,
  acknowledged_at: null,
  created_at: new Date(Date.UTC(2026, 10, 26, 12, 0, n)).toISOString(),
  delivered_at: null,
  delivery_counts: { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 },
  ...patch,
});
const page = (events: unknown[]) => ({
  events,
  total: events.length,
  total_exact: true,
  page: 1,
  per_page: 50,
  pages: 1,
});
const common = {
  'GET /events/sources': { body: { sources: [] } },
  'GET /config/endpoint': { body: { base_url: 'http://relay', ingest_url: 'http://relay/webhook/acme' } },
};

class FakeEventSource {
  static last: FakeEventSource | undefined;
  listeners: Record<string, ((m: MessageEvent<string>) => void)[]> = {};
  constructor(readonly url: string) {
    FakeEventSource.last = this;
  }
  addEventListener(type: string, fn: (m: MessageEvent<string>) => void) {
    (this.listeners[type] ??= []).push(fn);
  }
  emit(type: string, data: unknown) {
    for (const fn of this.listeners[type] ?? []) fn(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
  close() {}
}

function cellOf(row: HTMLElement, name: string): HTMLElement {
  const headers = within(row.closest('table')!).getAllByRole('columnheader');
  return within(row).getAllByRole('cell')[headers.findIndex((h) => h.textContent === name)]!;
}
const headerNames = () => screen.getAllByRole('columnheader').map((h) => h.textContent);

describe('live rows (live-rows.ts)', () => {
  const base = {
    fetched: [event(1)],
    fetchedAt: 1_000,
    live: [],
    deleted: new Set<string>(),
    statuses: {},
    attempts: {},
    summaries: new Map(),
    perPage: 50,
  };

  it('shows a summary fetched after the page, and a status message newer than it over it', () => {
    const failed = event(1, {
      status: 'failed',
      failure_reason: 'http_status',
      last_error: 'HTTP 500',
      attempt_count: 3,
    });
    const summaries = new Map([[id(1), { summary: failed, at: 2_000 }]]);
    expect(liveRows({ ...base, summaries })[0]).toMatchObject({
      failure_reason: 'http_status',
      last_error: 'HTTP 500',
    });
    const acked = {
      [id(1)]: { status: 'failed' as const, failure_reason: 'http_status', acknowledged: true, at: 3_000 },
    };
    expect(liveRows({ ...base, summaries, statuses: acked })[0]).toMatchObject({
      acknowledged: true,
      last_error: 'HTTP 500',
    });
    // A page fetched after both (say after an action) is newer than either.
    expect(liveRows({ ...base, summaries, statuses: acked, fetchedAt: 4_000 })[0]).toEqual(event(1));
  });

  it('fills a live arrival from its summary, and never lowers a seen attempt count', () => {
    const live = [{ id: id(2), source: 'src-2', status: 'queued' as const, created_at: event(2).created_at }];
    expect(liveRows({ ...base, live })[0]).toMatchObject({ id: id(2), target_url: null, attempt_count: 0 });
    const summaries = new Map([[id(2), { summary: event(2, { attempt_count: 1 }), at: 500 }]]);
    const rows = liveRows({ ...base, live, summaries, attempts: { [id(2)]: 2 } });
    expect(rows[0]).toMatchObject({ target_url: 'https://target.example/hook', attempt_count: 2 });
  });
});

describe('events page, live and remembered', () => {
  it('completes a row that turns failed live from its summary: reason and last error without a reload', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    let failed = false;
    const failedRow = event(1, {
      status: 'failed',
      attempt_count: 1,
      failure_reason: 'http_status',
      last_error: 'HTTP 503: upstream down',
    });
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': (url) =>
        url.searchParams.get('needs_attention') === 'true'
          ? { body: page(failed ? [failedRow] : []) }
          : { body: page([failed ? failedRow : event(1)]) },
    });
    renderApp('/app/events');
    const row = (await screen.findByRole('link', { name: 'src-1' })).closest('tr')!;
    expect(cellOf(row, 'Last error')).toHaveTextContent(/^$/);
    await waitFor(() => expect(FakeEventSource.last?.url).toBe('/events/stream'));
    const listCalls = () => api.calls.filter((c) => c.url.pathname === '/events').length;
    const before = listCalls();
    failed = true;
    act(() => {
      FakeEventSource.last!.emit('attempt', { event_id: id(1), attempt_number: 1, kind: 'main' });
      FakeEventSource.last!.emit('event.status', {
        id: id(1),
        status: 'failed',
        failure_reason: 'http_status',
        acknowledged: false,
      });
    });
    // The message's own fields at once, the summary's (last error) after the one fetch it causes.
    await waitFor(() => expect(cellOf(row, 'Reason')).toHaveTextContent('http_status'));
    await waitFor(() => expect(cellOf(row, 'Last error')).toHaveTextContent('HTTP 503: upstream down'));
    expect(within(row).getByText('failed')).toBeInTheDocument();
    // The shortcut's count follows too.
    await waitFor(() => expect(screen.getByTestId('attention-count')).toHaveTextContent('1'));
    expect(listCalls()).toBeGreaterThan(before);
  });

  it('reads the summaries of a burst of live arrivals in one request, not one per event', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    const arrivals = Array.from({ length: 9 }, (_, i) => event(i + 1, { target_url: `https://t.example/${i + 1}` }));
    let stored = [] as EventSummary[];
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': () => ({ body: page(stored) }),
    });
    renderApp('/app/events');
    await screen.findByText('No events yet');
    await waitFor(() => expect(FakeEventSource.last?.url).toBe('/events/stream'));
    const summaryCalls = () =>
      api.calls.filter((c) => c.url.pathname === '/events' && !c.url.searchParams.has('needs_attention')).length;
    const before = summaryCalls();
    stored = [...arrivals].reverse();
    act(() => {
      for (const e of arrivals)
        FakeEventSource.last!.emit('event.created', {
          id: e.id,
          source: e.source,
          status: 'queued',
          created_at: e.created_at,
        });
    });
    for (const e of arrivals) {
      const row = (await screen.findByRole('link', { name: e.source })).closest('tr')!;
      await waitFor(() => expect(cellOf(row, 'Target')).toHaveTextContent(e.target_url!));
    }
    expect(summaryCalls() - before).toBe(1);
  });

  it('keeps the rows that arrived live when the reader filters and comes straight back', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    let stored = [] as EventSummary[];
    fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': (url) =>
        url.searchParams.get('needs_attention') === 'true' ? { body: page([]) } : { body: page(stored) },
    });
    renderApp('/app/events');
    await screen.findByText('No events yet');
    await waitFor(() => expect(FakeEventSource.last?.url).toBe('/events/stream'));
    const arrived = event(1);
    stored = [arrived];
    act(() => FakeEventSource.last!.emit('event.created', arrived));
    await screen.findByRole('link', { name: 'src-1' });
    const user = userEvent.setup();
    const shortcut = screen.getByRole('button', { name: /^Needs attention/ });
    await user.click(shortcut);
    await waitFor(() => expect(screen.queryByRole('link', { name: 'src-1' })).toBeNull());
    // Back within the list's staleTime: the cached first page predates the live row, so it is asked again.
    await user.click(shortcut);
    expect(await screen.findByRole('link', { name: 'src-1' })).toBeInTheDocument();
  });

  it('remembers the chosen columns per user across visits', async () => {
    fakeApi({ ...common, 'GET /api/auth/me': { body: admin }, 'GET /events': { body: page([event(1)]) } });
    const first = renderApp('/app/events');
    await screen.findByRole('link', { name: 'src-1' });
    expect(headerNames()).toEqual(
      expect.arrayContaining(['Source', 'Status', 'Reason', 'Last error', 'Target', 'Received']),
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Columns' }));
    await user.click(await screen.findByRole('checkbox', { name: 'Target', hidden: true }));
    await waitFor(() => expect(headerNames()).not.toContain('Target'));
    first.unmount();
    renderApp('/app/events');
    await screen.findByRole('link', { name: 'src-1' });
    expect(headerNames()).not.toContain('Target');
    expect(headerNames()).toContain('Last error');
    expect(Object.keys(window.localStorage)).toEqual(['relay.events-page.u1']);
  });

  it("starts a bare visit with the user's last filters, but not another user's", async () => {
    fakeApi({ ...common, 'GET /api/auth/me': { body: admin }, 'GET /events': { body: page([event(1)]) } });
    const first = renderApp('/app/events?status=failed&per_page=100');
    await screen.findByRole('link', { name: 'src-1' });
    first.unmount();
    const { router } = renderApp('/app/events');
    await screen.findByRole('link', { name: 'src-1' });
    await waitFor(() => expect(router.state.location.search).toMatchObject({ status: 'failed', per_page: 100 }));
    window.localStorage.setItem('relay.events-page.someone-else', window.localStorage.getItem('relay.events-page.u1')!);
    window.localStorage.removeItem('relay.events-page.u1');
    const other = renderApp('/app/events');
    await screen.findAllByRole('link', { name: 'src-1' });
    expect(other.router.state.location.search).not.toHaveProperty('status');
  });

  it('shows the needs-attention count and filters the list by it in one click', async () => {
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': (url) =>
        url.searchParams.get('needs_attention') === 'true'
          ? { body: { ...page([event(1, { status: 'failed' })]), total: 7 } }
          : { body: page([event(1, { status: 'failed' }), event(2)]) },
    });
    const { router } = renderApp('/app/events');
    const shortcut = await screen.findByRole('button', { name: /^Needs attention/ });
    await waitFor(() => expect(within(shortcut).getByTestId('attention-count')).toHaveTextContent('7'));
    await userEvent.setup().click(shortcut);
    await waitFor(() => expect(router.state.location.search).toMatchObject({ needs_attention: true }));
    expect(shortcut).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() =>
      expect(
        api.calls.some(
          (c) =>
            c.url.pathname === '/events' &&
            c.url.searchParams.get('needs_attention') === 'true' &&
            c.url.searchParams.get('per_page') === '50',
        ),
      ).toBe(true),
    );
  });
});
