import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from '../../../test/render-app';
import { rule, RULE_ID } from './rule-fixtures';

describe('rules page', () => {
  it('lists rules and creates one, showing a refused field under that field', async () => {
    let attempt = 0;
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule] } },
      'POST /rules': () =>
        ++attempt === 1
          ? {
              status: 400,
              body: {
                title: 'Bad Request',
                status: 400,
                code: 'validation_failed',
                detail: 'The request is not valid.',
                errors: [{ field: 'source', message: '1-64 letters, digits' }],
              },
            }
          : { status: 201, body: { ...rule, id: 'new', source: 'github' } },
    });
    renderApp('/app/rules');
    expect(await screen.findByRole('link', { name: 'stripe-live' })).toBeInTheDocument();
    expect(screen.getByText('own secret')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'New rule' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText(/Source/), 'git hub');
    await user.type(within(dialog).getByLabelText(/Target URL/), 'https://example.com/gh');
    await user.type(within(dialog).getByLabelText(/Signing secret/), 'a-secret-of-16-chars');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    // The message sits on the field: Mantine links it as the input's description of the error.
    expect(await within(dialog).findByText('1-64 letters, digits')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/Source/)).toHaveAttribute('aria-invalid', 'true');
    await user.clear(within(dialog).getByLabelText(/Source/));
    await user.type(within(dialog).getByLabelText(/Source/), 'github');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const posts = api.calls.filter((c) => c.method === 'POST');
    expect(posts.at(-1)?.body).toEqual({
      source: 'github',
      target_url: 'https://example.com/gh',
      description: null,
      active: true,
      signing_secret: 'a-secret-of-16-chars',
    });
    // The list is read again after the change.
    await waitFor(() =>
      expect(api.calls.filter((c) => c.method === 'GET' && c.url.pathname === '/rules')).toHaveLength(2),
    );
  });

  it('says who signs: "default secret" when DEFAULT_SIGNING_SECRET signs a rule without its own, else unsigned', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': {
        body: {
          rules: [
            { ...rule, id: 'r-default', name: 'by-default', has_signing_secret: false, signing: 'default' },
            { ...rule, id: 'r-none', name: 'not-signed', has_signing_secret: false, signing: 'none' },
          ],
        },
      },
    });
    renderApp('/app/rules');
    const row = (name: string) => screen.getByRole('link', { name }).closest('tr')!;
    expect(await screen.findByRole('link', { name: 'by-default' })).toBeInTheDocument();
    expect(within(row('by-default')).getByText('default secret')).toBeInTheDocument();
    expect(within(row('not-signed')).getByText('unsigned')).toBeInTheDocument();
  });

  it("shows each rule's health, its last-24-hour counts and traffic chart, and the ingest URL to copy", async () => {
    const unhealthy = {
      ...rule,
      id: 'r-sick',
      name: 'sick',
      source: 'github',
      health: { ...rule.health, status: 'unhealthy' as const, reason: 'gone' as const, since: '2026-01-01T00:00:00Z' },
    };
    const counts = { total: 12, queued: 0, delivered: 9, failed: 3, paused: 0, ignored: 0 };
    const zero = { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0, ignored: 0 };
    // 24 hourly buckets, traffic in two of them.
    const series = Array.from({ length: 24 }, (_, i) => ({
      start: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
      ...(i === 3
        ? { ...zero, total: 4, delivered: 4 }
        : i === 20
          ? { ...zero, total: 8, delivered: 5, failed: 3 }
          : zero),
    }));
    fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule, unhealthy] } },
      'GET /stats/rules': (url) => {
        // One call for the whole list, hourly: never one per rule.
        expect(url.searchParams.get('rule_id')).toBeNull();
        expect(url.searchParams.get('bucket')).toBe('1h');
        return { body: { bucket: '1h', bucket_seconds: 3600, rules: [{ rule_id: 'r-sick', ...counts, series }] } };
      },
      'GET /config/endpoint': {
        body: { base_url: 'https://relay.example.com', source_url_template: 'https://relay.example.com/{source}' },
      },
    });
    renderApp('/app/rules');
    const row = (name: string) => screen.getByRole('link', { name }).closest('tr')!;
    expect(await screen.findByRole('link', { name: 'sick' })).toBeInTheDocument();
    // An unhealthy rule is a red "unhealthy" with its reason, never the green "active".
    expect(within(row('sick')).getByText('unhealthy')).toBeInTheDocument();
    expect(within(row('sick')).getByText(/target answered 410 Gone/)).toBeInTheDocument();
    expect(within(row('sick')).queryByText('active')).not.toBeInTheDocument();
    expect(within(row('stripe-live')).getByText('active')).toBeInTheDocument();
    expect(await within(row('sick')).findByText('9 delivered')).toBeInTheDocument();
    expect(within(row('sick')).getByText('3 failed')).toBeInTheDocument();
    // The traffic chart: a bar per bucket with events, delivered and failed stacked; its totals named.
    const chart = within(row('sick')).getByRole('img', { name: 'Traffic: 9 delivered, 3 failed, 12 events' });
    expect(chart.querySelectorAll('g[data-bucket]')).toHaveLength(2);
    expect(chart.querySelector('g[data-bucket="2026-01-01T20:00:00.000Z"] title')).toHaveTextContent(
      /5 delivered, 3 failed, 0 other/,
    );
    // A rule without traffic in the window has no counts and says so instead of an empty chart.
    expect(within(row('stripe-live')).queryByText(/delivered/)).not.toBeInTheDocument();
    expect(within(row('stripe-live')).getByText('no events')).toBeInTheDocument();
    expect(await within(row('sick')).findByText('https://relay.example.com/github')).toBeInTheDocument();
    expect(within(row('sick')).getByRole('button', { name: 'Copy https://relay.example.com/github' })).toBeVisible();
    expect(within(row('stripe-live')).getByText(`https://relay.example.com/${rule.source}`)).toBeInTheDocument();
  });

  it('deactivates and deletes a rule, deleting only after confirmation', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule] } },
      [`PATCH /rules/${RULE_ID}`]: { body: { ...rule, active: false } },
      [`DELETE /rules/${RULE_ID}`]: { status: 204 },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Deactivate' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ active: false }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Delete the rule stripe-live and its hooks?');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'DELETE')).toBe(true));
  });

  it('edits a rule sending only what changed, and never shows the stored secret', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule] } },
      [`PATCH /rules/${RULE_ID}`]: { body: { ...rule, target_url: 'https://example.com/v2' } },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByLabelText(/Signing secret/)).toHaveValue('');
    expect(within(dialog).getByText('A secret is set; type a new one to replace it')).toBeInTheDocument();
    const target = within(dialog).getByLabelText(/Target URL/);
    await user.clear(target);
    await user.type(target, 'https://example.com/v2');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ target_url: 'https://example.com/v2' }),
    );
  });

  it('renames a rule, showing a name taken by another rule on the field', async () => {
    let attempts = 0;
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule] } },
      [`PATCH /rules/${RULE_ID}`]: () =>
        ++attempts === 1
          ? {
              status: 409,
              body: {
                type: 'about:blank',
                title: 'Conflict',
                status: 409,
                code: 'rule_name_taken',
                detail: 'Another rule of this organization has that name.',
              },
            }
          : { body: { ...rule, name: 'stripe-eu' } },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit rule stripe-live' });
    const name = within(dialog).getByLabelText(/Name/);
    await user.clear(name);
    await user.type(name, 'stripe-us');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText(/Another rule of this organization has that name/)).toBeInTheDocument();
    await user.clear(name);
    await user.type(name, 'stripe-eu');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls.filter((c) => c.method === 'PATCH').map((c) => c.body)).toEqual([
      { name: 'stripe-us' },
      { name: 'stripe-eu' },
    ]);
  });

  it('shows a viewer no write controls', async () => {
    fakeApi({ 'GET /api/auth/me': { body: viewer }, 'GET /rules': { body: { rules: [rule] } } });
    renderApp('/app/rules');
    expect(await screen.findByRole('link', { name: 'stripe-live' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New rule' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Edit' })).not.toBeInTheDocument();
  });
});
