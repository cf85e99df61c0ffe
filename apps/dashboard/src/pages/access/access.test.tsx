import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from '../../../test/render-app';

const user1 = {
  id: 'u1',
  username: 'alice',
  email: 'alice@example.com',
  role: 'admin',
  created_at: '2026-11-01T00:00:00Z',
};
const key = {
  id: 'k1',
  name: 'ci',
  prefix: 'rk_abc',
  scopes: ['events:read'],
  expires_at: null,
  last_used_at: null,
  created_at: '2026-11-01T00:00:00Z',
};
const entry = (n: number) => ({
  id: `a${n}`,
  actor_user_id: 'u1',
  actor_email: 'alice@example.com',
  action: `rule.update.${n}`,
  resource_type: 'rule',
  resource_id: 'r1',
  metadata: { fields: ['active'] },
  created_at: '2026-11-01T00:00:00',
});

describe('access page', () => {
  it('creates an API key with picked scopes and shows its token once with a copy button', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/users': { body: { users: [user1] } },
      'GET /api/api-keys': { body: { api_keys: [key] } },
      'POST /api/api-keys': { status: 201, body: { ...key, id: 'k2', name: 'deploy', token: 'rk_secret_once' } },
    });
    renderApp('/app/access');
    const user = userEvent.setup();
    expect(await screen.findByText('alice@example.com')).toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: 'API keys' }));
    expect(await screen.findByText('rk_abc')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New API key' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText(/Name/), 'deploy');
    await user.click(within(dialog).getByLabelText('webhooks:send'));
    await user.click(within(dialog).getByLabelText('rules:read'));
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('rk_secret_once')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Copy token' })).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'deploy',
      scopes: ['webhooks:send', 'rules:read'],
    });
    // Once closed, the secret is gone for good.
    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText('rk_secret_once')).not.toBeInTheDocument());
  });

  it('changes a role', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/users': { body: { users: [user1, { ...user1, id: 'u2', username: 'bob', role: 'viewer' }] } },
      'PATCH /api/users/u2/role': { body: { ...user1, id: 'u2', username: 'bob', role: 'admin' } },
    });
    renderApp('/app/access');
    const user = userEvent.setup();
    await user.selectOptions(await screen.findByLabelText('Role of bob'), 'admin');
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ role: 'admin' }));
  });

  it('shows a viewer only tokens and the audit log, paged through the API envelope', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: viewer },
      'GET /api/auth/tokens': { body: { tokens: [] } },
      'GET /api/audit': (url) => {
        const page = Number(url.searchParams.get('page'));
        return { body: { entries: [entry(page)], total: 51, page, per_page: 50, pages: 2 } };
      },
    });
    renderApp('/app/access');
    const user = userEvent.setup();
    expect(await screen.findByRole('tab', { name: 'Personal tokens' })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Users' })).not.toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'API keys' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: 'Audit log' }));
    expect(await screen.findByText('rule.update.1')).toBeInTheDocument();
    // Metadata reads as its keys until opened, then as indented JSON.
    expect(screen.getByText('fields')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '2' }));
    expect(await screen.findByText('rule.update.2')).toBeInTheDocument();
    expect(
      api.calls
        .filter((c) => c.url.pathname === '/api/audit')
        .at(-1)
        ?.url.searchParams.get('per_page'),
    ).toBe('50');
    expect(api.calls.some((c) => c.url.pathname === '/api/users')).toBe(false);
  });
});
