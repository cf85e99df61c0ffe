import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, renderApp } from '../../../test/render-app';
import type { HostedOrganization, OrganizationDetail } from './platform-types';

const operator = {
  mechanism: 'session',
  kind: 'operator',
  operator: { id: 'op1', username: 'root' },
  user: null,
  organization: null,
  role: null,
  scopes: [],
};
const org: HostedOrganization = {
  id: 'o1',
  name: 'Acme',
  slug: 'acme',
  subscriber_name: 'Acme Inc',
  billing_contact_name: 'Bo',
  billing_contact_email: 'bo@acme.com',
  subscription: {
    plan: 'pro',
    status: 'active',
    monthly_event_limit: null,
    current_period_end: null,
    ingest_rate_limit: null,
    api_rate_limit: null,
    retention_days: null,
  },
  created_at: '2026-11-01T00:00:00Z',
};
const overview = {
  organizations: 3,
  organizations_by_subscription: { active: 2, trialing: 1 },
  users: 7,
  events: { queued: 1, delivered: 40, failed: 2 },
  attempts: { main: 43 },
};
const page = (organizations: HostedOrganization[]) => ({ organizations, total: 1, page: 1, per_page: 50, pages: 1 });

describe('platform console', () => {
  it('shows the overview and searches organizations through the API', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: operator },
      'GET /api/platform/overview': { body: overview },
      'GET /api/platform/organizations': (url) => ({
        body: page(url.searchParams.get('search') === 'zzz' ? [] : [org]),
      }),
    });
    renderApp('/app/platform');
    expect(await screen.findByRole('link', { name: 'Acme' })).toHaveAttribute('href', '/app/platform/organizations/o1');
    expect(screen.getByText('Delivered events').nextSibling).toHaveTextContent('40');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Search organizations'), 'zzz');
    expect(await screen.findByText('No organizations match.')).toBeInTheDocument();
    expect(api.calls.some((c) => c.url.searchParams.get('search') === 'zzz')).toBe(true);
  });

  it('creates an organization with its eight fields, showing refused fields under themselves', async () => {
    let attempt = 0;
    const api = fakeApi({
      'GET /api/auth/me': { body: operator },
      'GET /api/platform/overview': { body: overview },
      'GET /api/platform/organizations': { body: page([org]) },
      'POST /api/platform/organizations': () =>
        ++attempt === 1
          ? {
              status: 400,
              body: {
                title: 'Bad Request',
                status: 400,
                code: 'validation_failed',
                errors: [
                  { field: 'slug', message: 'lowercase letters' },
                  { field: 'password', message: 'at least 12 characters' },
                ],
              },
            }
          : {
              status: 201,
              body: { organization: org, admin: { id: 'u9', username: 'boss' }, ingest_urls: ['https://acme.x/'] },
            },
    });
    renderApp('/app/platform');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'New organization' }));
    const dialog = await screen.findByRole('dialog');
    const values: Record<string, string> = {
      'Organization name': 'Acme',
      Slug: 'Acme',
      'Subscriber name': 'Acme Inc',
      'Billing contact name': 'Bo',
      'Billing contact e-mail': 'bo@acme.com',
      'Admin username': 'boss',
      'Admin e-mail': 'boss@acme.com',
      'Admin password': 'short',
    };
    for (const [label, value] of Object.entries(values))
      await user.type(within(dialog).getByLabelText(new RegExp(`^${label}`)), value);
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findAllByText('lowercase letters')).not.toHaveLength(0);
    expect(within(dialog).getByLabelText(/^Slug/)).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByText('at least 12 characters')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/^Admin username/)).not.toHaveAttribute('aria-invalid', 'true');
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'Acme',
      slug: 'Acme',
      subscriber_name: 'Acme Inc',
      billing_contact_name: 'Bo',
      billing_contact_email: 'bo@acme.com',
      username: 'boss',
      email: 'boss@acme.com',
      password: 'short',
    });
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('https://acme.x/')).toBeInTheDocument();
  });

  it('edits the subscription on the organization detail page', async () => {
    const detail: OrganizationDetail = {
      ...org,
      users_by_role: { admin: 1 },
      events: { queued: 0, delivered: 5, failed: 1 },
      domains: [{ domain: 'hooks.acme.com', status: 'active' }],
      ingest_urls: ['https://acme.x/'],
      usage: {
        events_this_period: 6,
        monthly_event_limit: null,
        period_start: '2026-11-01T00:00:00.000Z',
        period_end: '2026-12-01T00:00:00.000Z',
      },
      rate_limits_in_effect: { window_seconds: 60, ingest_rate_limit: null, api_rate_limit: 600 },
      retention_days_in_effect: null,
    };
    const api = fakeApi({
      'GET /api/auth/me': { body: operator },
      'GET /api/platform/organizations/o1': { body: detail },
      'PATCH /api/platform/organizations/o1/subscription': { body: org },
    });
    renderApp('/app/platform/organizations/o1');
    const user = userEvent.setup();
    expect(await screen.findByRole('heading', { name: 'Acme' })).toBeInTheDocument();
    expect(screen.getByText('hooks.acme.com (active)')).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Status'), 'suspended');
    await user.type(screen.getByLabelText(/Monthly event limit/), '1000');
    await user.type(screen.getByLabelText(/API rate limit/), '50');
    await user.click(screen.getByRole('button', { name: 'Save subscription' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({
        plan: 'pro',
        status: 'suspended',
        monthly_event_limit: 1000,
        current_period_end: null,
        ingest_rate_limit: null,
        api_rate_limit: 50,
        retention_days: null,
      }),
    );
  });

  it('shows the platform audit log with the filters of the organization log, on its own tab', async () => {
    const entry = {
      id: 'a1',
      actor_user_id: 'op1',
      actor_email: 'root@operator.invalid',
      action: 'organization.exported',
      resource_type: 'organization',
      resource_id: 'o1',
      metadata: { slug: 'acme' },
      created_at: '2026-11-20T10:00:00.000',
    };
    const api = fakeApi({
      'GET /api/auth/me': { body: operator },
      'GET /api/platform/overview': { body: overview },
      'GET /api/platform/organizations': { body: page([org]) },
      'GET /api/platform/audit': (url) => ({
        body: {
          entries: url.searchParams.get('action') === 'organization.deleted' ? [] : [entry],
          total: url.searchParams.get('action') === 'organization.deleted' ? 0 : 1,
          page: 1,
          per_page: 50,
          pages: 1,
        },
      }),
    });
    renderApp('/app/platform');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: 'Audit log' }));
    expect(screen.getByRole('link', { name: 'Queue view' })).toHaveAttribute('href', '/admin/queues');
    expect(await screen.findByText('organization.exported')).toBeInTheDocument();
    const filters = screen.getByRole('form', { name: 'Audit filters' });
    expect(within(filters).getByLabelText('Action')).toHaveAttribute('placeholder', 'organization.deleted, …');
    await user.type(within(filters).getByLabelText('Action'), 'organization.deleted');
    await user.type(within(filters).getByLabelText('Actor e-mail'), 'root@operator.invalid');
    await user.click(within(filters).getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText('No entries match these filters.')).toBeInTheDocument();
    const asked = api.calls.filter((c) => c.url.pathname === '/api/platform/audit').at(-1)!.url.searchParams;
    expect(Object.fromEntries(asked)).toEqual({
      action: 'organization.deleted',
      actor_email: 'root@operator.invalid',
      page: '1',
      per_page: '50',
    });
    expect(api.calls.some((c) => c.url.pathname === '/api/audit')).toBe(false);
  });
});
