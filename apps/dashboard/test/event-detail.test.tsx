import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from './render-app';

const ID = '00000000-0000-4000-8000-000000000001';
const detail = {
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
  payload: { action: 'opened' },
  headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request' },
  last_error: 'HTTP 500',
  next_attempt_at: null,
  updated_at: '2026-11-23T10:00:01.000Z',
};
const attempts = {
  attempts: [
    {
      id: 'a1',
      attempt_number: 1,
      kind: 'main',
      hook_id: null,
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
