import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, renderApp, type FakeAnswer } from '../../../test/render-app';
import type { OrganizationDetail } from './platform-types';

const operator = {
  mechanism: 'session',
  kind: 'operator',
  operator: { id: 'op1', username: 'root' },
  user: null,
  organization: null,
  role: null,
  scopes: [],
};
const detail: OrganizationDetail = {
  id: 'o1',
  name: 'Acme',
  slug: 'acme',
  subscriber_name: 'Acme Inc',
  billing_contact_name: 'Bo',
  billing_contact_email: 'bo@acme.com',
  subscription: {
    plan: 'pro',
    status: 'active',
    monthly_event_limit: 1000,
    current_period_end: null,
    ingest_rate_limit: 50,
    api_rate_limit: null,
    retention_days: 30,
  },
  created_at: '2026-11-01T00:00:00Z',
  users_by_role: { admin: 1 },
  events: { queued: 0, delivered: 800, failed: 50 },
  domains: [
    { domain: 'hooks.acme.com', status: 'active' },
    { domain: 'new.acme.com', status: 'pending' },
  ],
  ingest_urls: ['https://acme.x/'],
  usage: {
    events_this_period: 850,
    monthly_event_limit: 1000,
    period_start: '2026-11-01T00:00:00.000Z',
    period_end: '2026-12-01T00:00:00.000Z',
  },
  rate_limits_in_effect: { window_seconds: 60, ingest_rate_limit: 50, api_rate_limit: 600 },
  retention_days_in_effect: 30,
};
const emptyAudit = { entries: [], total: 0, page: 1, per_page: 50, pages: 0 };
const conflict = (code: string): FakeAnswer => ({
  status: 409,
  body: { title: 'Conflict', status: 409, code, detail: 'raw API sentence' },
});

function renderDetail(organization: OrganizationDetail, onDelete?: () => FakeAnswer) {
  const api = fakeApi({
    'GET /api/auth/me': { body: operator },
    'GET /api/platform/organizations/o1': { body: organization },
    'GET /api/platform/audit': { body: emptyAudit },
    'GET /api/platform/overview': {
      body: { organizations: 0, organizations_by_subscription: {}, users: 0, events: detail.events, attempts: {} },
    },
    'GET /api/platform/organizations': { body: { organizations: [], total: 0, page: 1, per_page: 50, pages: 0 } },
    ...(onDelete ? { 'DELETE /api/platform/organizations/o1': onDelete } : {}),
  });
  const view = renderApp('/app/platform/organizations/o1');
  return { api, ...view };
}

describe('platform organization detail', () => {
  it('shows usage against the quota as a bar, and the limits in effect with where they come from', async () => {
    renderDetail(detail);
    expect(await screen.findByTestId('usage-summary')).toHaveTextContent('850 of 1,000 events (85%)');
    const bar = screen.getByRole('progressbar', { name: 'Events this period against the monthly quota' });
    expect(bar).toHaveAttribute('aria-valuenow', '85');
    const limits = screen.getByRole('table', { name: 'Limits' });
    expect(within(limits).getByRole('row', { name: /Ingest rate limit/ })).toHaveTextContent('50 per minuteown');
    expect(within(limits).getByRole('row', { name: /API rate limit/ })).toHaveTextContent(
      '600 per minuteinstall-wide setting',
    );
    expect(within(limits).getByRole('row', { name: /Retention/ })).toHaveTextContent('30 daysown');
  });

  it("names the install's retention when the organization has none, and says when events are kept forever", async () => {
    const installs = { ...detail, subscription: { ...detail.subscription, retention_days: null } };
    const { unmount } = renderDetail({ ...installs, retention_days_in_effect: 14 });
    const limits = await screen.findByRole('table', { name: 'Limits' });
    expect(within(limits).getByRole('row', { name: /Retention/ })).toHaveTextContent('14 daysinstall-wide setting');
    unmount();
    renderDetail({ ...installs, retention_days_in_effect: null });
    const forever = await screen.findByRole('table', { name: 'Limits' });
    expect(within(forever).getByRole('row', { name: /Retention/ })).toHaveTextContent('kept forever');
  });

  it('says when there is no quota, and when the quota is reached', async () => {
    const unlimited = { ...detail, usage: { ...detail.usage, monthly_event_limit: null } };
    const { unmount } = renderDetail(unlimited);
    expect(await screen.findByTestId('usage-summary')).toHaveTextContent('850 events (no quota)');
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    unmount();
    renderDetail({ ...detail, usage: { ...detail.usage, events_this_period: 1200 } });
    expect(await screen.findByText(/Quota reached: new webhooks are refused/)).toBeInTheDocument();
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  });

  it('links the export as a download, the queue view, and lists its platform audit entries', async () => {
    const { api } = renderDetail(detail);
    const exported = await screen.findByRole('link', { name: 'Export events' });
    expect(exported).toHaveAttribute('href', '/api/platform/organizations/o1/export');
    expect(exported).toHaveAttribute('download', 'organization-acme.ndjson');
    expect(screen.getByRole('link', { name: 'queue view' })).toHaveAttribute('href', '/admin/queues');
    await waitFor(() =>
      expect(
        api.calls.some(
          (c) => c.url.pathname === '/api/platform/audit' && c.url.searchParams.get('resource_id') === 'o1',
        ),
      ).toBe(true),
    );
  });

  it('deletes only once the slug is typed, then goes back to the console', async () => {
    const { api, router } = renderDetail(detail, () => ({ status: 204 }));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete organization' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Acme' });
    const confirm = within(dialog).getByRole('button', { name: 'Delete' });
    expect(confirm).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Type the slug acme to confirm'), 'Acme');
    expect(confirm).toBeDisabled();
    await user.clear(within(dialog).getByLabelText('Type the slug acme to confirm'));
    await user.type(within(dialog).getByLabelText('Type the slug acme to confirm'), 'acme');
    expect(confirm).toBeEnabled();
    await user.click(confirm);
    await waitFor(() => expect(router.state.location.pathname).toBe('/platform'));
    expect(api.calls.filter((c) => c.method === 'DELETE')).toHaveLength(1);
  });

  it('explains a refused deletion by its reason, naming the active domains', async () => {
    renderDetail(detail, () => conflict('organization_has_domains'));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete organization' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Acme' });
    await user.type(within(dialog).getByLabelText('Type the slug acme to confirm'), 'acme');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('Not deleted: it still has an active custom domain');
    expect(alert).toHaveTextContent("Its admin removes the domain on the organization's Domains page");
    expect(alert).toHaveTextContent('Active: hooks.acme.com');
    expect(alert).not.toHaveTextContent('new.acme.com');
  });

  it('explains that the default organization cannot be deleted', async () => {
    renderDetail(detail, () => conflict('organization_is_default'));
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete organization' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Acme' });
    await user.type(within(dialog).getByLabelText('Type the slug acme to confirm'), 'acme');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent("Not deleted: it is the install's default organization");
    expect(alert).toHaveTextContent('Suspend or cancel its subscription');
    expect(alert).not.toHaveTextContent('{');
  });
});
