import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from '../../test/render-app';

const emptyPage = { events: [], total: 0, page: 1, per_page: 50, pages: 0 };
const stats = {
  total: 0,
  by_status: { queued: 0, delivered: 0, failed: 0, paused: 0, ignored: 0 },
  needs_attention: 0,
  success_rate: null,
  latency_ms: { p50: null, p95: null, p99: null },
  by_source: [],
  top_failing: { rules: [], destinations: [] },
  series: [],
};
const api = (me = admin) =>
  fakeApi({
    'GET /api/auth/me': { body: me },
    'GET /stats': { body: stats },
    'GET /events': { body: emptyPage },
    'GET /events/sources': { body: { sources: [] } },
    'GET /rules': { body: { rules: [], total: 0, page: 1, per_page: 50, pages: 0 } },
  });

describe('keyboard shortcuts', () => {
  it('lists the shortcuts under "?", leaving out pages the user cannot see', async () => {
    api(viewer);
    renderApp('/app/');
    await screen.findByRole('heading', { name: 'Overview' });
    await userEvent.setup().keyboard('?');
    const dialog = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    const list = within(dialog).getByRole('table', { name: 'Keyboard shortcuts' });
    expect(list).toHaveTextContent('gthenoGo to Overview');
    expect(list).toHaveTextContent('gtheneGo to Events');
    expect(list).toHaveTextContent('gthenaGo to Access');
    expect(list).toHaveTextContent('/Search (on the Events page)');
    expect(list).not.toHaveTextContent('Platform');
  });

  it('goes to a page with "g" then its key, and "/" focuses the events search', async () => {
    api();
    const { router } = renderApp('/app/');
    await screen.findByRole('heading', { name: 'Overview' });
    const user = userEvent.setup();
    await user.keyboard('ge');
    await waitFor(() => expect(router.state.location.pathname).toBe('/events'));
    const search = await screen.findByRole('textbox', { name: 'Search' });
    await user.keyboard('/');
    expect(search).toHaveFocus();
    // Typed into the field: text, not shortcuts.
    await user.keyboard('gr?');
    expect(search).toHaveValue('gr?');
    expect(router.state.location.pathname).toBe('/events');
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();
    (search as HTMLInputElement).blur();
    await user.keyboard('gr');
    await waitFor(() => expect(router.state.location.pathname).toBe('/rules'));
  });

  it('takes a page key without "g" before it as no shortcut', async () => {
    api();
    const { router } = renderApp('/app/');
    await screen.findByRole('heading', { name: 'Overview' });
    const user = userEvent.setup();
    await user.keyboard('e');
    await user.keyboard('x');
    await new Promise((r) => setTimeout(r, 50));
    expect(router.state.location.pathname).toBe('/');
  });
});
