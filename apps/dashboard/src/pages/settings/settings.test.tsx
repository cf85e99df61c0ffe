import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from '../../../test/render-app';

const endpoint = {
  base_url: 'https://relay.example.com',
  ingest_url: 'https://acme.hooks.example.com/',
  source_url_template: 'https://acme.hooks.example.com/{source}',
  reserved_sources: ['api', 'app'],
  organization: { id: 'o1', slug: 'acme' },
  ingest_urls: ['https://acme.hooks.example.com/', 'https://hooks.acme.com/'],
};
const target = { target_url: null, effective_target_url: 'https://install.example.com', effective_from: 'install' };
const routes = {
  'GET /config/endpoint': { body: endpoint },
  'GET /config/default-target': { body: target },
  'GET /api/organization': { body: { id: 'o1', slug: 'acme', name: 'Acme Inc' } },
  'GET /api/organization/notifications': { body: { url: null, has_secret: false } },
};

describe('settings page', () => {
  it('shows the ingest URLs with copy buttons, the default target in effect and the organization', async () => {
    fakeApi({ 'GET /api/auth/me': { body: viewer }, ...routes });
    renderApp('/app/settings');
    expect(await screen.findByText('https://acme.hooks.example.com/{source}')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy ingest URL' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy https://hooks.acme.com/' })).toBeInTheDocument();
    expect(
      await screen.findByText(/In effect: https:\/\/install.example.com \(the install default\)/),
    ).toBeInTheDocument();
    expect(await screen.findByText('Name: Acme Inc')).toBeInTheDocument();
    // A viewer reads the default target but cannot change it.
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    // Notifications are organization management: not shown to a viewer.
    expect(screen.queryByText('Notifications')).not.toBeInTheDocument();
  });

  it('lets an admin set the default target, showing a refused URL under the field', async () => {
    let attempt = 0;
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      ...routes,
      'POST /config/default-target': () => {
        attempt += 1;
        if (attempt === 1)
          return {
            status: 422,
            body: { title: 'Target refused', status: 422, code: 'target_url_rejected', detail: 'private network' },
          };
        const { target_url } = api.calls.at(-1)?.body as { target_url: string };
        return { body: { target_url, effective_target_url: target_url, effective_from: 'organization' } };
      },
    });
    renderApp('/app/settings');
    const user = userEvent.setup();
    const input = await screen.findByLabelText('Organization default target');
    await user.type(input, 'http://10.0.0.1/');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(input).toHaveAttribute('aria-invalid', 'true'));
    expect(screen.getAllByText('private network').length).toBeGreaterThan(0);
    await user.clear(input);
    await user.type(input, 'https://example.com/hooks');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/In effect: https:\/\/example.com\/hooks/)).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'POST').at(-1)?.body).toEqual({
      target_url: 'https://example.com/hooks',
    });
  });

  it('lets an admin set the notification URL with a write-only secret, and turn notices off', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      ...routes,
      'PUT /api/organization/notifications': () => {
        const body = api.calls.at(-1)?.body as { url: string | null; secret?: string };
        if (body.url?.startsWith('http://10.')) {
          return {
            status: 422,
            body: { title: 'Target refused', status: 422, code: 'target_url_rejected', detail: 'private network' },
          };
        }
        return { body: { url: body.url, has_secret: body.url !== null && body.secret !== undefined } };
      },
    });
    renderApp('/app/settings');
    const user = userEvent.setup();
    const input = await screen.findByLabelText('Notification URL');
    expect(await screen.findByText('No notification URL: no notices.')).toBeInTheDocument();
    await user.type(input, 'http://10.0.0.1/');
    await user.click(screen.getByRole('button', { name: 'Save notifications' }));
    await waitFor(() => expect(input).toHaveAttribute('aria-invalid', 'true'));
    await user.clear(input);
    await user.type(input, 'https://ops.example.com/n');
    await user.type(screen.getByLabelText('New signing secret'), 'a-notice-secret-0123');
    await user.click(screen.getByRole('button', { name: 'Save notifications' }));
    expect(
      await screen.findByText('Notices go to https://ops.example.com/n (signed with its own secret)'),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('New signing secret')).toHaveValue('');
    const puts = () => api.calls.filter((c) => c.method === 'PUT');
    expect(puts().at(-1)?.body).toEqual({ url: 'https://ops.example.com/n', secret: 'a-notice-secret-0123' });
    await user.click(screen.getByRole('button', { name: 'Turn off' }));
    expect(await screen.findByText('No notification URL: no notices.')).toBeInTheDocument();
    expect(puts().at(-1)?.body).toEqual({ url: null });
  });
});

describe('settings page: configuration as code', () => {
  it('offers an admin the export and shows the last apply', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      ...routes,
      'GET /api/audit': {
        body: {
          entries: [
            {
              id: 'a1',
              actor_user_id: 'u1',
              actor_email: 'ci@example.com',
              action: 'config.applied',
              resource_type: 'organization',
              resource_id: 'o1',
              metadata: { summary: { create: 2, update: 1, delete: 0 }, prune: false, changes: [] },
              created_at: '2026-11-26T10:00:00.000Z',
            },
          ],
          page: 1,
          per_page: 1,
          total: 1,
          pages: 1,
        },
      },
      'GET /api/config/export': { body: { version: 1, rules: [] } },
    });
    renderApp('/app/settings');
    // When, as the rest of the dashboard writes it (relative, the timestamp in the <time> element).
    const last = await screen.findByLabelText('last apply');
    expect(last).toHaveTextContent(/^Last apply: .+ ago by ci@example.com: 2 created, 1 changed, 0 deleted$/);
    expect(last.querySelector('time')).toHaveAttribute('datetime', '2026-11-26T10:00:00.000Z');
    URL.createObjectURL = () => 'blob:relay';
    URL.revokeObjectURL = () => undefined;
    await userEvent.click(screen.getByRole('button', { name: 'Export configuration' }));
    await waitFor(() => expect(api.calls.some((c) => c.url.pathname === '/api/config/export')).toBe(true));
  });
});
