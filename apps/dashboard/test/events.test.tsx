import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from './render-app';

const event = (id: string, status = 'failed') => ({
  id,
  source: `src-${id.slice(-1)}`,
  status,
  provider_id: null,
  target_url: 'https://target.example/hook',
  attempt_count: 1,
  failure_reason: status === 'failed' ? 'http_500' : null,
  last_error: null,
  acknowledged: false,
  acknowledged_at: null,
  created_at: new Date(Date.now() - 60_000).toISOString(),
  delivered_at: null,
  delivery_counts: { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 },
});
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const page = (events: unknown[], extra = {}) => ({
  events,
  total: events.length,
  total_exact: true,
  page: 1,
  per_page: 50,
  pages: 1,
  ...extra,
});
const common = {
  'GET /events/sources': { body: { sources: [{ source: 'src-1', count: 1 }] } },
  'GET /config/endpoint': { body: { base_url: 'http://relay', ingest_url: 'http://relay/webhook/acme' } },
};

/** A row's cell under the column headed `name` (the columns are the user's choice). */
function cellOf(row: HTMLElement, name: string): HTMLElement {
  const headers = within(row.closest('table')!).getAllByRole('columnheader');
  const at = headers.findIndex((h) => h.textContent === name);
  return within(row).getAllByRole('cell')[at]!;
}

/** A stand-in EventSource the tests push messages into. */
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

describe('events page', () => {
  it('counts the events, and says "about" when the total is an estimate', async () => {
    fakeApi({
      ...common,
      'GET /api/auth/me': { body: viewer },
      'GET /events': { body: page([event(id(1))], { total: 1_234_567, total_exact: false, pages: 24_692 }) },
    });
    renderApp('/app/events');
    expect(await screen.findByText('about 1,234,567 events')).toBeInTheDocument();
  });

  it('sends the filters of the URL to the API and writes changed filters back into the URL', async () => {
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': { body: page([event(id(1))]) },
    });
    const { router } = renderApp('/app/events?status=failed&per_page=200&search=%22abc%22');
    expect(await screen.findByText('src-1')).toBeInTheDocument();
    const list = api.calls.find((c) => c.url.pathname === '/events')!;
    expect(Object.fromEntries(list.url.searchParams)).toMatchObject({
      status: 'failed',
      per_page: '200',
      search: 'abc',
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: /^Needs attention/ }));
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({ needs_attention: true, status: 'failed' }),
    );
    await waitFor(() =>
      expect(
        api.calls.some(
          (c) =>
            c.url.pathname === '/events' &&
            c.url.searchParams.get('needs_attention') === 'true' &&
            c.url.searchParams.get('status') === 'failed',
        ),
      ).toBe(true),
    );
  });

  it("shows each event's destination deliveries, and filters by delivery status and destination", async () => {
    const DEST = '00000000-0000-4000-8000-0000000000c1';
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': {
        body: page([
          { ...event(id(1)), delivery_counts: { total: 3, queued: 0, delivered: 2, failed: 1, paused: 0 } },
          event(id(2), 'delivered'),
        ]),
      },
    });
    const { router } = renderApp(`/app/events?destination_id=${DEST}`);
    const row1 = (await screen.findByRole('link', { name: 'src-1' })).closest('tr')!;
    const row2 = screen.getByRole('link', { name: 'src-2' }).closest('tr')!;
    expect(cellOf(row1, 'Deliveries')).toHaveTextContent(/^3 · 1 failed$/);
    expect(cellOf(row2, 'Deliveries')).toHaveTextContent(/^$/);
    expect(api.calls.find((c) => c.url.pathname === '/events')?.url.searchParams.get('destination_id')).toBe(DEST);
    const user = userEvent.setup();
    await user.click(screen.getByRole('combobox', { name: 'A destination delivery' }));
    // The options of this select, not the Status select's (which has a `failed` too).
    const options = screen.getByRole('listbox', { name: 'A destination delivery', hidden: true });
    await user.click(within(options).getByRole('option', { name: 'failed', hidden: true }));
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({ delivery_status: 'failed', destination_id: DEST }),
    );
    await waitFor(() =>
      expect(
        api.calls.some(
          (c) =>
            c.url.pathname === '/events' &&
            c.url.searchParams.get('delivery_status') === 'failed' &&
            c.url.searchParams.get('destination_id') === DEST,
        ),
      ).toBe(true),
    );
  });

  it('filters by the rule a rule page links with (?rule_id=), shown as a pill', async () => {
    const RULE = '00000000-0000-4000-8000-0000000000a1';
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': { body: page([event(id(1))]) },
    });
    const { router } = renderApp(`/app/events?rule_id=${RULE}`);
    expect(await screen.findByRole('link', { name: 'src-1' })).toBeInTheDocument();
    expect(api.calls.find((c) => c.url.pathname === '/events')?.url.searchParams.get('rule_id')).toBe(RULE);
    expect(router.state.location.search).toMatchObject({ rule_id: RULE });
    expect(screen.getByText(`rule ${RULE.slice(0, 8)}`)).toBeInTheDocument();
  });

  it("fetches the page's events while its code loads (the route's loader), and only once", async () => {
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': { body: page([event(id(1))]) },
    });
    const { router } = renderApp('/app/');
    await screen.findByRole('heading', { name: 'Overview' });
    // Preloading the route (what a hover over its link does) runs the loader without rendering the page.
    await router.preloadRoute({ to: '/events', search: { status: 'failed', page: 1, per_page: 50 } });
    // The page's list, not the needs-attention shortcut's count.
    const listCalls = () =>
      api.calls.filter((c) => c.url.pathname === '/events' && !c.url.searchParams.has('needs_attention'));
    await waitFor(() => expect(listCalls()).toHaveLength(1));
    expect(listCalls()[0]!.url.searchParams.get('status')).toBe('failed');
    await act(() => router.navigate({ to: '/events', search: { status: 'failed', page: 1, per_page: 50 } }));
    expect(await screen.findByRole('link', { name: 'src-1' })).toBeInTheDocument();
    expect(listCalls()).toHaveLength(1);
  });

  it('ignores a per_page above 200 in a hand-edited link', async () => {
    const api = fakeApi({ ...common, 'GET /api/auth/me': { body: admin }, 'GET /events': { body: page([]) } });
    renderApp('/app/events?per_page=5000');
    await screen.findByRole('heading', { name: 'Events' });
    await waitFor(() =>
      expect(api.calls.find((c) => c.url.pathname === '/events')?.url.searchParams.get('per_page')).toBe('50'),
    );
  });

  it('shows a viewer no selection or bulk controls', async () => {
    fakeApi({ ...common, 'GET /api/auth/me': { body: viewer }, 'GET /events': { body: page([event(id(1))]) } });
    renderApp('/app/events');
    expect(await screen.findByText('src-1')).toBeInTheDocument();
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(screen.queryByRole('button', { name: /Retry|Delete/ })).toBeNull();
  });

  it('retries the selected rows after confirmation, and by filter with "all" when nothing is selected', async () => {
    const api = fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': { body: page([event(id(1)), event(id(2))]) },
      'POST /events/bulk/retry': { body: { affected: 1, ids: [id(1)], truncated: false } },
    });
    renderApp('/app/events');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('checkbox', { name: `Select event ${id(1)}` }));
    await user.click(screen.getByRole('button', { name: 'Retry selected' }));
    expect(api.calls.some((c) => c.url.pathname === '/events/bulk/retry')).toBe(false);
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Retry' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.url.pathname === '/events/bulk/retry')?.body).toEqual({ ids: [id(1)] }),
    );
    await user.click(await screen.findByRole('button', { name: 'Retry all' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Retry' }));
    await waitFor(() =>
      expect(api.calls.filter((c) => c.url.pathname === '/events/bulk/retry').at(-1)?.body).toEqual({
        filter: {},
        all: true,
      }),
    );
  });

  it('shows a 403 from the API as its problem document', async () => {
    fakeApi({
      ...common,
      'GET /api/auth/me': { body: admin },
      'GET /events': {
        status: 403,
        body: { title: 'Forbidden', status: 403, detail: 'Missing scope events:read.', code: 'forbidden' },
      },
    });
    renderApp('/app/events');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Forbidden');
    expect(alert).toHaveTextContent('Missing scope events:read.');
  });

  it('says how to send a first webhook when there is no event', async () => {
    fakeApi({ ...common, 'GET /api/auth/me': { body: admin }, 'GET /events': { body: page([]) } });
    renderApp('/app/events');
    expect(await screen.findByText(/curl -X POST 'http:\/\/relay\/webhook\/acme'/)).toBeInTheDocument();
  });

  it('adds live rows from the stream, and holds them back as "n new events" while paused', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    fakeApi({ ...common, 'GET /api/auth/me': { body: admin }, 'GET /events': { body: page([event(id(1))]) } });
    renderApp('/app/events');
    expect(await screen.findByText('src-1')).toBeInTheDocument();
    await waitFor(() => expect(FakeEventSource.last?.url).toBe('/events/stream'));
    act(() => FakeEventSource.last!.emit('event.created', { ...event(id(2), 'queued') }));
    expect(await screen.findByText('src-2')).toBeInTheDocument();
    // Its delivery arrives as an attempt and a status: the row says delivered after one attempt, not zero.
    act(() => {
      FakeEventSource.last!.emit('attempt', { event_id: id(2), attempt_number: 1, kind: 'main' });
      FakeEventSource.last!.emit('event.status', { id: id(2), status: 'delivered' });
    });
    const row2 = screen.getByRole('link', { name: 'src-2' }).closest('tr')!;
    await waitFor(() => expect(within(row2).getByText('delivered')).toBeInTheDocument());
    expect(cellOf(row2, 'Attempts')).toHaveTextContent('1');
    const user = userEvent.setup();
    await user.click(screen.getByRole('switch', { name: 'Pause live updates' }));
    act(() => FakeEventSource.last!.emit('event.created', { ...event(id(3), 'queued') }));
    expect(await screen.findByRole('button', { name: '1 new events' })).toBeInTheDocument();
    expect(screen.queryByText('src-3')).toBeNull();
    await user.click(screen.getByRole('button', { name: '1 new events' }));
    expect(await screen.findByText('src-3')).toBeInTheDocument();
    act(() => FakeEventSource.last!.emit('event.deleted', { id: id(1) }));
    await waitFor(() => expect(screen.queryByRole('link', { name: 'src-1' })).toBeNull());
  });
});
