import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';
import { hook, rule, RULE_ID } from './rule-fixtures';

describe('rule detail page', () => {
  it('lists hooks and attaches one with a trigger', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: rule },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [hook] } },
      [`POST /rules/${RULE_ID}/hooks`]: { status: 201, body: { ...hook, id: 'h2', trigger: 'provider_succeeded' } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    expect(await screen.findByRole('heading', { name: 'stripe-live' })).toBeInTheDocument();
    expect(screen.getByText('alert-on-failure')).toBeInTheDocument();
    expect(await screen.findByText('https://example.com/alert')).toBeInTheDocument();
    const user = userEvent.setup();
    const form = screen.getByRole('form', { name: 'New hook' });
    await user.type(within(form).getByLabelText(/Hook name/), 'notify-ok');
    await user.type(within(form).getByLabelText(/Hook target URL/), 'https://example.com/ok');
    await user.selectOptions(within(form).getByLabelText('Trigger'), 'provider_succeeded');
    await user.click(within(form).getByRole('button', { name: 'Add hook' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
        name: 'notify-ok',
        target_url: 'https://example.com/ok',
        trigger: 'provider_succeeded',
        description: null,
      }),
    );
  });

  it('says "Signing: default secret" for a rule DEFAULT_SIGNING_SECRET signs', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: { ...rule, has_signing_secret: false, signing: 'default' } },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    expect(await screen.findByText('Signing: default secret')).toBeInTheDocument();
  });

  it('deletes a hook after confirmation', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: rule },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [hook] } },
      [`DELETE /rules/${RULE_ID}/hooks/${hook.id}`]: { status: 204 },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Delete the hook alert-on-failure (to https://example.com/alert)?');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'DELETE')?.url.pathname).toBe(`/rules/${RULE_ID}/hooks/${hook.id}`),
    );
  });

  it('rotates the signing secret with a window for the old one', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: rule },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`POST /rules/${RULE_ID}/secret/rotate`]: {
        body: { ...rule, previous_secret_expires_at: '2026-11-02T00:00:00Z' },
      },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Rotate signing secret' });
    await user.type(within(form).getByLabelText(/New signing secret/), 'another-secret-16+');
    await user.clear(within(form).getByLabelText(/keeps signing for/));
    await user.type(within(form).getByLabelText(/keeps signing for/), '2');
    await user.click(within(form).getByRole('button', { name: 'Rotate' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
        signing_secret: 'another-secret-16+',
        previous_secret_valid_for_seconds: 7200,
      }),
    );
  });

  it('is edited in place: the fields replace the details, a refused field shows under it, Save sends the change', async () => {
    let attempts = 0;
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: rule },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`PATCH /rules/${RULE_ID}`]: () =>
        ++attempts === 1
          ? {
              status: 400,
              body: {
                title: 'Bad Request',
                status: 400,
                code: 'validation_failed',
                detail: 'The request is not valid.',
                errors: [{ field: 'target_url', message: 'must be an https URL' }],
              },
            }
          : { body: { ...rule, target_url: 'https://example.com/v2' } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit rule' }));
    const form = screen.getByRole('form', { name: 'Edit rule stripe-live' });
    // On the page itself, not in a dialog; the read-only details and options give way to the fields.
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.queryByText(`Target: ${rule.target_url}`)).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Edit rule' })).not.toBeInTheDocument();
    const target = within(form).getByLabelText(/Target URL/);
    await user.clear(target);
    await user.type(target, 'http://example.com/v2');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText('must be an https URL')).toBeInTheDocument();
    expect(target).toHaveAttribute('aria-invalid', 'true');
    await user.clear(target);
    await user.type(target, 'https://example.com/v2');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Edit rule stripe-live' })).not.toBeInTheDocument());
    expect(api.calls.filter((c) => c.method === 'PATCH').map((c) => c.body)).toEqual([
      { target_url: 'http://example.com/v2' },
      { target_url: 'https://example.com/v2' },
    ]);
    expect(screen.getByRole('button', { name: 'Edit rule' })).toBeInTheDocument();
  });

  it('cancels an edit in place without sending anything', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: rule },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit rule' }));
    const form = screen.getByRole('form', { name: 'Edit rule stripe-live' });
    await user.type(within(form).getByLabelText(/Description/), 'never sent');
    await user.click(within(form).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('form', { name: 'Edit rule stripe-live' })).not.toBeInTheDocument();
    expect(screen.getByText(`Target: ${rule.target_url}`)).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'PATCH')).toBe(false);
  });

  it("shows the rule's traffic chart and its recent events, linking to each and to the filtered list", async () => {
    const ev = (n: number, status: string, reason: string | null = null) => ({
      id: `e${n}000000-0000-4000-8000-000000000000`,
      source: rule.source,
      status,
      provider_id: RULE_ID,
      target_url: rule.target_url,
      attempt_count: 1,
      failure_reason: reason,
      acknowledged: false,
      acknowledged_at: null,
      created_at: new Date(Date.now() - n * 60_000).toISOString(),
      delivered_at: null,
      delivery_counts: { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 },
    });
    const zero = { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0, ignored: 0 };
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: rule },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      'GET /events': {
        body: { events: [ev(1, 'failed', 'http_500'), ev(2, 'delivered')], total: 42, page: 1, per_page: 10, pages: 5 },
      },
      'GET /stats/rules': {
        body: {
          bucket: '1h',
          bucket_seconds: 3600,
          rules: [
            {
              rule_id: RULE_ID,
              ...zero,
              total: 7,
              delivered: 6,
              failed: 1,
              series: [
                { start: '2026-01-01T00:00:00.000Z', ...zero },
                { start: '2026-01-01T01:00:00.000Z', ...zero, total: 7, delivered: 6, failed: 1 },
              ],
            },
          ],
        },
      },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const traffic = await screen.findByRole('region', { name: 'Traffic' });
    expect(await within(traffic).findByRole('img', { name: 'Traffic: 6 delivered, 1 failed, 7 events' })).toBeVisible();
    expect(within(traffic).getByText('6 delivered')).toBeInTheDocument();
    expect(api.calls.find((c) => c.url.pathname === '/stats/rules')?.url.searchParams.get('rule_id')).toBe(RULE_ID);

    const recent = screen.getByRole('region', { name: 'Recent events' });
    const first = await within(recent).findByRole('link', { name: `Event ${ev(1, 'failed').id}` });
    expect(first).toHaveTextContent('…000000000000');
    expect(first).toHaveAttribute('href', `/app/events/${ev(1, 'failed').id}`);
    expect(within(recent).getAllByRole('row')).toHaveLength(3);
    expect(within(recent).getByText('http_500')).toBeInTheDocument();
    expect(within(recent).getByRole('link', { name: 'All 42 events of this rule' })).toHaveAttribute(
      'href',
      `/app/events?rule_id=${RULE_ID}`,
    );
    const list = api.calls.find((c) => c.url.pathname === '/events')!.url.searchParams;
    expect([list.get('rule_id'), list.get('per_page')]).toEqual([RULE_ID, '10']);
  });
});
