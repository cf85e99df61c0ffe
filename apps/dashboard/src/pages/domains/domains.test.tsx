import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from '../../../test/render-app';
import type { Domain } from './domain-types';

const domain: Domain = {
  id: 'd1',
  domain: 'hooks.acme.com',
  status: 'pending',
  verification_token: 'tok123',
  records: [
    { type: 'CNAME', name: 'hooks.acme.com', value: 'acme.ingest.example.com' },
    { type: 'TXT', name: '_relay-challenge.hooks.acme.com', value: 'relay-verification=tok123' },
  ],
  created_at: '2026-11-01T00:00:00Z',
  verified_at: null,
  last_checked_at: null,
  last_check_error: null,
};

describe('domains page', () => {
  it('adds a domain and shows the exact records to create, each with a copy button', async () => {
    let domains: Domain[] = [];
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/domains': () => ({ body: { domains } }),
      'POST /api/domains': () => {
        domains = [domain];
        return { status: 201, body: domain };
      },
    });
    renderApp('/app/domains');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/Domain/), 'hooks.acme.com');
    await user.click(screen.getByRole('button', { name: 'Add domain' }));
    expect(await screen.findByText('relay-verification=tok123')).toBeInTheDocument();
    expect(screen.getByText('acme.ingest.example.com')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy CNAME value' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy TXT name' })).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ domain: 'hooks.acme.com' });
  });

  it('shows which record a failed verification found missing or wrong', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/domains': { body: { domains: [domain] } },
      'POST /api/domains/d1/verify': {
        status: 422,
        body: {
          title: 'Unprocessable Content',
          status: 422,
          code: 'domain_verification_failed',
          detail: 'The TXT record is missing.',
          checks: {
            cname: { ok: true, name: 'hooks.acme.com', expected: 'acme.ingest.example.com', found: [], problem: null },
            txt: {
              ok: false,
              name: '_relay',
              expected: 'relay-verification=tok123',
              found: ['other'],
              problem: 'no match',
            },
          },
        },
      },
    });
    renderApp('/app/domains');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('TXT missing or wrong')).toBeInTheDocument();
    expect(screen.getByText('ok')).toBeInTheDocument();
    expect(screen.getByText('Found: other')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('The TXT record is missing.');
  });

  it('removes a domain only after confirmation, and shows a viewer no controls nor a refusal', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/domains': { body: { domains: [domain] } },
      'DELETE /api/domains/d1': { status: 204 },
    });
    const view = renderApp('/app/domains');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Remove' }));
    const dialog = await screen.findByRole('dialog');
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'DELETE')).toBe(true));
    view.unmount();

    // The API refuses a viewer the list (organization management): the page says who manages domains instead.
    const viewerApi = fakeApi({ 'GET /api/auth/me': { body: viewer } });
    renderApp('/app/domains');
    expect(await screen.findByText(/managed by the organization's admins/)).toBeInTheDocument();
    expect(viewerApi.calls.some((c) => c.url.pathname === '/api/domains')).toBe(false);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add domain' })).not.toBeInTheDocument();
  });
});
