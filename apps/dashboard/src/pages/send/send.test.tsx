import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from '../../../test/render-app';

const RULE_ID = '0190a0a0-0000-7000-8000-000000000001';
const EVENT_ID = '0190a0a0-0000-7000-8000-0000000000e1';
const rule = { id: RULE_ID, source: 'stripe', target_url: 'https://example.com/stripe', active: true };
const sent = { id: EVENT_ID, status: 'queued', source: 'stripe', target_url: rule.target_url, provider_id: RULE_ID };

describe('send page', () => {
  it('sends through a rule and links to the resulting event', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule, { ...rule, id: 'x', source: 'off', active: false }] } },
      'POST /api/send': { status: 202, body: sent },
    });
    renderApp('/app/send');
    const user = userEvent.setup();
    const picker = await screen.findByLabelText(/Rule/);
    await screen.findByRole('option', { name: /stripe/ });
    // Inactive rules cannot send: they are not offered.
    expect(screen.queryByRole('option', { name: /off/ })).not.toBeInTheDocument();
    await user.selectOptions(picker, RULE_ID);
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const link = await screen.findByRole('link', { name: EVENT_ID });
    expect(link).toHaveAttribute('href', `/app/events/${EVENT_ID}`);
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      provider_id: RULE_ID,
      body: { hello: 'world' },
    });
  });

  it('sends in manual mode, and reports a body that is not JSON before sending anything', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [] } },
      'POST /api/send': { status: 202, body: { ...sent, provider_id: null } },
    });
    renderApp('/app/send');
    const user = userEvent.setup();
    await user.click(await screen.findByText('Manual'));
    await user.type(screen.getByLabelText(/Source/), 'github');
    const body = screen.getByLabelText(/Body/);
    await user.clear(body);
    await user.type(body, 'not json');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText(/not valid JSON/i)).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    await user.clear(body);
    await user.type(body, '[[1]');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ source: 'github', target_url: '', body: [1] }),
    );
  });

  it('shows a viewer no send form', async () => {
    const api = fakeApi({ 'GET /api/auth/me': { body: viewer } });
    renderApp('/app/send');
    expect(await screen.findByText('Only admins send webhooks through the relay.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Send' })).not.toBeInTheDocument();
    expect(api.calls.some((c) => c.url.pathname === '/rules')).toBe(false);
  });
});
