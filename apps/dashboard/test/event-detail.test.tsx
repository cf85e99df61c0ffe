import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Attempt, EventDetail } from '../src/pages/events/event-types';
import { admin, fakeApi, renderApp, viewer } from './render-app';

const ID = '00000000-0000-4000-8000-000000000001';
const NO_DELIVERIES = { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 };
const detail: EventDetail = {
  id: ID,
  source: 'github',
  status: 'failed',
  provider_id: null,
  target_url: 'https://target.example/hook',
  attempt_count: 1,
  failure_reason: 'http_500',
  acknowledged: false,
  acknowledged_at: null,
  created_at: '2026-11-23T10:00:00.000Z',
  delivered_at: null,
  delivery_counts: NO_DELIVERIES,
  payload: { action: 'opened' },
  headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request' },
  last_error: 'HTTP 500',
  next_attempt_at: null,
  updated_at: '2026-11-23T10:00:01.000Z',
  path: '',
  query: {},
  ignored_reason: null,
  deliveries: [],
};
const attempts: { attempts: Attempt[] } = {
  attempts: [
    {
      id: 'a1',
      attempt_number: 1,
      kind: 'main',
      hook_id: null,
      destination_id: null,
      target_url: 'https://target.example/hook',
      response_status: 500,
      response_body: 'boom',
      error: null,
      duration_ms: 42,
      started_at: '2026-11-23T10:00:00.500Z',
      finished_at: '2026-11-23T10:00:00.542Z',
    },
  ],
};
const RULE = '00000000-0000-4000-8000-0000000000aa';
const CI = '00000000-0000-4000-8000-0000000000c1';
const ARCHIVE = '00000000-0000-4000-8000-0000000000c2';
const delivery = {
  attempt_count: 1,
  failure_reason: null,
  last_error: null,
  acknowledged: false,
  next_attempt_at: null,
  delivered_at: null,
};
const withDeliveries: EventDetail = {
  ...detail,
  provider_id: RULE,
  delivery_counts: { total: 2, queued: 0, delivered: 1, failed: 1, paused: 0 },
  deliveries: [
    {
      ...delivery,
      id: '00000000-0000-4000-8000-0000000000d1',
      destination_id: CI,
      target_url: 'https://ci.example/hook',
      status: 'failed',
      attempt_count: 2,
      failure_reason: 'http_502',
      last_error: 'HTTP 502',
    },
    {
      ...delivery,
      id: '00000000-0000-4000-8000-0000000000d2',
      destination_id: ARCHIVE,
      target_url: 'https://archive.example/in',
      status: 'delivered',
      delivered_at: '2026-11-23T10:00:02.000Z',
    },
  ],
};
const attemptTo = (destination: string, url: string, n: number, status: number): Attempt => ({
  ...attempts.attempts[0]!,
  id: `${destination}-${n}`,
  attempt_number: n,
  kind: 'destination',
  destination_id: destination,
  target_url: url,
  response_status: status,
  response_body: null,
});
const deliveryAttempts = [
  attemptTo(CI, 'https://ci.example/hook', 1, 502),
  attemptTo(CI, 'https://ci.example/hook', 2, 502),
  attemptTo(ARCHIVE, 'https://archive.example/in', 1, 200),
];
const routes = {
  [`GET /events/${ID}`]: { body: detail },
  [`GET /events/${ID}/attempts`]: { body: attempts },
  [`GET /events/${ID}/body`]: { body: { action: 'opened', raw: true } },
};

describe('event detail page', () => {
  it('shows the stored body pretty-printed, the headers and the attempt timeline', async () => {
    fakeApi({ ...routes, 'GET /api/auth/me': { body: admin } });
    renderApp(`/app/events/${ID}`);
    const payload = await screen.findByTestId('payload');
    await waitFor(() => expect(payload).toHaveTextContent('"raw": true'));
    expect(screen.getByTestId('headers')).toHaveTextContent('x-github-event');
    const timeline = screen.getByTestId('attempts');
    await waitFor(() => expect(timeline).toHaveTextContent('500'));
    expect(timeline).toHaveTextContent('42 ms');
    expect(timeline).toHaveTextContent('boom');
  });

  it('retries, and deletes only after confirmation', async () => {
    const api = fakeApi({
      ...routes,
      'GET /api/auth/me': { body: admin },
      [`POST /events/${ID}/retry`]: { status: 202, body: { id: ID, status: 'queued' } },
      [`DELETE /events/${ID}`]: { status: 204 },
      'GET /events': { body: { events: [], total: 0, page: 1, per_page: 50, pages: 0 } },
    });
    const { router } = renderApp(`/app/events/${ID}`);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Retry' }));
    await waitFor(() =>
      expect(api.calls.some((c) => c.method === 'POST' && c.url.pathname.endsWith('/retry'))).toBe(true),
    );
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/events'));
    expect(api.calls.some((c) => c.method === 'DELETE' && c.url.pathname === `/events/${ID}`)).toBe(true);
  });

  it('shows one row per destination delivery with its own attempts, and retries or acknowledges one alone', async () => {
    const api = fakeApi({
      ...routes,
      'GET /api/auth/me': { body: admin },
      [`GET /events/${ID}`]: { body: withDeliveries },
      [`GET /events/${ID}/attempts`]: { body: { attempts: [...attempts.attempts, ...deliveryAttempts] } },
      [`GET /rules/${RULE}/destinations`]: {
        body: {
          destinations: [
            { id: CI, name: 'ci' },
            { id: ARCHIVE, name: 'archive' },
          ],
        },
      },
      [`POST /events/${ID}/retry`]: { status: 202, body: { id: ID, status: 'queued', destination_id: CI } },
      [`POST /events/${ID}/ack`]: { body: withDeliveries },
    });
    renderApp(`/app/events/${ID}`);
    const table = await screen.findByTestId('deliveries');
    const rows = within(table).getAllByTestId('delivery');
    expect(rows).toHaveLength(2);
    const [ci, archive] = rows as [HTMLElement, HTMLElement];
    // Named after the rule's destinations.
    expect(await within(ci).findByText('ci', { exact: true })).toBeInTheDocument();
    expect(within(archive).getByText('archive', { exact: true })).toBeInTheDocument();
    expect(ci).toHaveTextContent('https://ci.example/hook');
    expect(within(ci).getByText('failed')).toBeInTheDocument();
    expect(ci).toHaveTextContent('http_502');
    expect(ci).toHaveTextContent('HTTP 502');
    await waitFor(() => expect(within(ci).getByTestId('delivery-attempts')).toHaveTextContent('502'));
    expect(within(ci).getByTestId('delivery-attempts')).toHaveTextContent('#2');
    expect(within(archive).getByText('delivered')).toBeInTheDocument();
    expect(within(archive).getByTestId('delivery-attempts')).toHaveTextContent('200');
    expect(within(archive).getByTestId('delivery-attempts')).not.toHaveTextContent('502');
    // The primary's timeline keeps its own attempts only.
    const timeline = screen.getByTestId('attempts');
    await waitFor(() => expect(timeline).toHaveTextContent('500'));
    expect(timeline).not.toHaveTextContent('502');
    expect(timeline).not.toHaveTextContent('ci.example');
    // A delivered delivery can be retried, not acknowledged.
    expect(within(archive).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(within(archive).queryByRole('button', { name: 'Acknowledge' })).toBeNull();

    const user = userEvent.setup();
    await user.click(within(ci).getByRole('button', { name: 'Retry' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST' && c.url.pathname.endsWith('/retry'))?.body).toEqual({
        destination_id: CI,
      }),
    );
    await user.click(within(ci).getByRole('button', { name: 'Acknowledge' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST' && c.url.pathname.endsWith('/ack'))?.body).toEqual({
        destination_id: CI,
      }),
    );
  });

  it('shows no deliveries section for an event without any, and a viewer no delivery action', async () => {
    fakeApi({ ...routes, 'GET /api/auth/me': { body: admin } });
    renderApp(`/app/events/${ID}`);
    await screen.findByTestId('payload');
    expect(screen.queryByTestId('deliveries')).toBeNull();
    cleanup();
    fakeApi({ ...routes, 'GET /api/auth/me': { body: viewer }, [`GET /events/${ID}`]: { body: withDeliveries } });
    renderApp(`/app/events/${ID}`);
    expect(await screen.findAllByTestId('delivery')).toHaveLength(2);
    expect(screen.queryByRole('button', { name: /Retry|Acknowledge|Delete/ })).toBeNull();
  });

  it('shows a viewer no retry, acknowledge or delete', async () => {
    fakeApi({ ...routes, 'GET /api/auth/me': { body: viewer } });
    renderApp(`/app/events/${ID}`);
    await screen.findByTestId('payload');
    expect(screen.queryByRole('button', { name: /Retry|Acknowledge|Delete/ })).toBeNull();
  });

  it('sends to the sign-in, remembering the page, when a request answers 401 (the session expired)', async () => {
    fakeApi({
      ...routes,
      'GET /api/auth/me': { body: admin },
      [`GET /events/${ID}`]: { status: 401, body: { title: 'Unauthorized', status: 401, code: 'unauthorized' } },
    });
    const { router } = renderApp(`/app/events/${ID}`);
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toEqual({ redirect: `/events/${ID}` });
  });
});
