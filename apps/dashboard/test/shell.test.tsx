import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, anonymous, fakeApi, renderApp, viewer } from './render-app';

const emptyPage = { events: [], total: 0, page: 1, per_page: 50, pages: 0 };
const stats = {
  total: 0,
  by_status: { queued: 0, delivered: 0, failed: 0 },
  needs_attention: 0,
  success_rate: null,
  latency_ms: { p50: null, p95: null, p99: null },
  by_source: [],
  top_failing: { rules: [], destinations: [] },
  series: [],
};

describe('app shell', () => {
  it('shows the navigation bar with the signed-in user and a colour-scheme toggle', async () => {
    fakeApi({ 'GET /api/auth/me': { body: admin }, 'GET /stats': { body: stats }, 'GET /events': { body: emptyPage } });
    renderApp('/app/');
    expect(await screen.findByRole('heading', { name: 'Overview' })).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    for (const label of ['Overview', 'Events', 'Rules', 'Send', 'Domains', 'Access', 'Settings'])
      expect(nav).toHaveTextContent(label);
    expect(nav).not.toHaveTextContent('Platform');
    expect(screen.getByTestId('who')).toHaveTextContent('alice (admin)');
    expect(screen.getByRole('button', { name: /Switch to (dark|light) mode/ })).toBeInTheDocument();
  });

  it('toggles between light and dark, starting from the OS preference', async () => {
    fakeApi({ 'GET /api/auth/me': { body: admin }, 'GET /stats': { body: stats }, 'GET /events': { body: emptyPage } });
    renderApp('/app/');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Switch to dark mode' }));
    expect(document.documentElement).toHaveAttribute('data-mantine-color-scheme', 'dark');
    await user.click(screen.getByRole('button', { name: 'Switch to light mode' }));
    expect(document.documentElement).toHaveAttribute('data-mantine-color-scheme', 'light');
  });

  it('hides admin-only entries from a viewer', async () => {
    fakeApi({
      'GET /api/auth/me': { body: viewer },
      'GET /stats': { body: stats },
      'GET /events': { body: emptyPage },
    });
    renderApp('/app/');
    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    expect(nav).toHaveTextContent('Events');
    expect(nav).not.toHaveTextContent('Send');
  });

  it('sends an anonymous visitor to the sign-in and back to the asked page afterwards', async () => {
    let me = anonymous;
    const api = fakeApi({
      'GET /api/auth/me': () => ({ body: me }),
      'POST /api/auth/login': () => {
        me = admin;
        return { body: { mechanism: 'session', user: admin.user } };
      },
      'GET /events': { body: emptyPage },
      'GET /events/sources': { body: { sources: [] } },
      'GET /config/endpoint': { body: { base_url: 'http://x', ingest_url: 'http://x/webhook/acme' } },
    });
    const { router } = renderApp('/app/events?status=failed');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/Username/), 'alice');
    await user.type(screen.getByLabelText(/Password/), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'Events' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/events');
    expect(router.state.location.search).toMatchObject({ status: 'failed' });
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ username: 'alice', password: 'secret' });
  });

  it('shows a failed sign-in as the problem document', async () => {
    fakeApi({
      'GET /api/auth/me': { body: anonymous },
      'POST /api/auth/login': {
        status: 401,
        body: { title: 'Unauthorized', status: 401, detail: 'Wrong username or password.', code: 'unauthorized' },
      },
    });
    renderApp('/app/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/Username/), 'alice');
    await user.type(screen.getByLabelText(/Password/), 'nope');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Unauthorized');
    expect(alert).toHaveTextContent('Wrong username or password.');
  });

  it('lands an operator in the platform console after sign-in', async () => {
    let me = anonymous;
    fakeApi({
      'GET /api/auth/me': () => ({ body: me }),
      'POST /api/auth/login': () => {
        me = { ...anonymous, mechanism: 'session', kind: 'operator', operator: { id: 'p1', username: 'root' } };
        return { body: { mechanism: 'session', kind: 'operator' } };
      },
    });
    const { router } = renderApp('/app/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/Username/), 'root');
    await user.type(screen.getByLabelText(/Password/), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/platform'));
  });

  it('signs out to the sign-in page', async () => {
    let me = admin;
    const api = fakeApi({
      'GET /api/auth/me': () => ({ body: me }),
      'POST /api/auth/logout': () => {
        me = anonymous;
        return { status: 204 };
      },
      'GET /stats': { body: stats },
      'GET /events': { body: emptyPage },
    });
    const { router } = renderApp('/app/');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(api.calls.some((c) => c.method === 'POST' && c.url.pathname === '/api/auth/logout')).toBe(true);
  });
});
