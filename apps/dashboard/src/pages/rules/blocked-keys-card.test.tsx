import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';
import { rule, RULE_ID } from './rule-fixtures';

const HEAD = '0190a0a0-0000-7000-8000-0000000000aa';

describe('rule detail: blocked keys of an ordered rule', () => {
  it('lists each blocked key with its failing event, attempts, age and waiting events', async () => {
    const since = new Date(Date.now() - 5 * 60_000).toISOString();
    fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: { ...rule, ordering: { header: 'x-customer' } } },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`GET /rules/${RULE_ID}/ordering`]: {
        body: {
          blocked_keys: [
            { key: 'cus_42', event_id: HEAD, status: 'queued', attempts: 4, blocked_since: since, waiting: 7 },
            { key: '', event_id: HEAD, status: 'paused', attempts: 1, blocked_since: since, waiting: 0 },
          ],
        },
      },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const card = await screen.findByLabelText('Blocked keys');
    const rows = await within(card).findAllByRole('row');
    expect(rows[1]).toHaveTextContent(/cus_42\s*0190a0a0\s*4\s*5m\s*7/);
    expect(within(rows[1]!).getByRole('link', { name: '0190a0a0' })).toHaveAttribute('href', `/app/events/${HEAD}`);
    expect(rows[2]).toHaveTextContent(/\(whole source\)\s*0190a0a0 \(paused\)\s*1/);
  });

  it("gives up on a queued head after confirmation (the event's acknowledge), not on a paused one", async () => {
    const since = new Date().toISOString();
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: { ...rule, ordering: {} } },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`GET /rules/${RULE_ID}/ordering`]: {
        body: {
          blocked_keys: [
            { key: 'a', event_id: HEAD, status: 'queued', attempts: 2, blocked_since: since, waiting: 1 },
            { key: 'b', event_id: HEAD, status: 'paused', attempts: 1, blocked_since: since, waiting: 0 },
          ],
        },
      },
      [`POST /events/${HEAD}/ack`]: { body: { id: HEAD, status: 'failed', failure_reason: 'acknowledged' } },
    });
    const user = userEvent.setup();
    renderApp(`/app/rules/${RULE_ID}`);
    const card = await screen.findByLabelText('Blocked keys');
    const rows = await within(card).findAllByRole('row');
    expect(within(rows[2]!).queryByRole('button', { name: 'Give up' })).toBeNull();
    await user.click(within(rows[1]!).getByRole('button', { name: 'Give up' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Give up' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'POST')?.url.pathname).toBe(`/events/${HEAD}/ack`));
  });

  it('says every key flows when none is blocked', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: { ...rule, ordering: {} } },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`GET /rules/${RULE_ID}/ordering`]: { body: { blocked_keys: [] } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const card = await screen.findByLabelText('Blocked keys');
    expect(await within(card).findByText(/No blocked keys/)).toBeInTheDocument();
  });

  it('shows no blocked keys card for a rule without ordering', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: rule },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    await screen.findByLabelText('Endpoint health');
    expect(screen.queryByLabelText('Blocked keys')).toBeNull();
    expect(api.calls.some((c) => c.url.pathname.endsWith('/ordering'))).toBe(false);
  });
});
