import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer, type FakeAnswer } from '../../../test/render-app';
import type { Destination, DestinationStats } from './destination-types';
import { destination, rule, RULE_ID } from './rule-fixtures';

// The rule page's destinations (issue 29 item 7): list with health and counts, add/edit with the rule's option
// sections and filter editor (dry run by destination), resume, delete.
const unhealthy: Destination = {
  ...destination,
  id: '0190a0a0-0000-7000-8000-000000000004',
  name: 'ci',
  target_url: 'https://ci.example.com/hook',
  filter: { body: { ref: 'refs/heads/main' } },
  has_signing_secret: true,
  health: {
    status: 'unhealthy',
    reason: 'gone',
    since: '2026-11-01T10:00:00.000Z',
    failing_since: null,
    unhealthy_after_seconds: 7_200,
  },
};
const counts = (d: Destination, c: Partial<DestinationStats>): DestinationStats => ({
  destination_id: d.id,
  name: d.name,
  rule_id: RULE_ID,
  total: 0,
  queued: 0,
  delivered: 0,
  failed: 0,
  paused: 0,
  success_rate: null,
  ...c,
});
const stats = {
  by_destination: [
    counts(destination, { total: 12, delivered: 12, success_rate: 1 }),
    counts(unhealthy, { total: 5, delivered: 2, failed: 1, paused: 2 }),
  ],
};
const DESTINATIONS = `/rules/${RULE_ID}/destinations`;
const dryRun = (c: { url: URL; method: string }) => c.method === 'POST' && c.url.pathname.endsWith('/dry-run');

function page(routes: Record<string, FakeAnswer> = {}, me = admin) {
  const api = fakeApi({
    'GET /api/auth/me': { body: me },
    [`GET /rules/${RULE_ID}`]: { body: rule },
    [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
    [`GET ${DESTINATIONS}`]: { body: { destinations: [destination, unhealthy] } },
    'GET /stats': { body: stats },
    ...routes,
  });
  renderApp(`/app/rules/${RULE_ID}`);
  return api;
}

const rowOf = async (name: string) => {
  const table = await screen.findByTestId('destinations');
  return within(table).getByText(name).closest('tr')!;
};

describe('rule page: destinations', () => {
  it('lists each destination with its target, status, health, filter and 24 h delivery counts', async () => {
    page();
    const archive = await rowOf('archive');
    expect(archive).toHaveTextContent('https://archive.example.com/in');
    expect(within(archive).getByText('active')).toBeInTheDocument();
    expect(within(archive).getByText('healthy')).toBeInTheDocument();
    expect(within(archive).getByText('every webhook')).toBeInTheDocument();
    await waitFor(() => expect(archive).toHaveTextContent('12'));
    const ci = await rowOf('ci');
    expect(within(ci).getByText('unhealthy')).toBeInTheDocument();
    expect(ci).toHaveTextContent('its target answered 410 Gone');
    expect(within(ci).getByText('{"body":{"ref":"refs/heads/main"}}')).toBeInTheDocument();
    // Failed deliveries link to the events with a failed delivery to this destination.
    const link = await within(ci).findByRole('link', { name: '5 · 1 failed · 2 paused' });
    expect(link).toHaveAttribute('href', expect.stringContaining(`destination_id=${unhealthy.id}`));
    expect(link).toHaveAttribute('href', expect.stringContaining('delivery_status=failed'));
  });

  it("shows a paced destination's pacing state, read one by one (the list does not carry it)", async () => {
    const paced: Destination = { ...unhealthy, rate_limit: { limit: 2, period: 'minute' } };
    const api = page({
      [`GET ${DESTINATIONS}`]: { body: { destinations: [destination, paced] } },
      [`GET ${DESTINATIONS}/${paced.id}`]: {
        body: {
          ...paced,
          pacing_state: { effective_limit: 1, period: 'minute', in_flight: 0, waiting: 4, held_until: null },
        },
      },
    });
    const ci = await rowOf('ci');
    expect(await within(ci).findByText('now: 1 / minute in force, 0 in flight, 4 waiting')).toBeInTheDocument();
    // An unpaced destination is not read.
    expect(within(await rowOf('archive')).queryByText(/^now:/)).toBeNull();
    expect(api.calls.some((c) => c.url.pathname === `${DESTINATIONS}/${destination.id}`)).toBe(false);
  });

  it('resumes an unhealthy destination', async () => {
    const api = page({
      [`POST ${DESTINATIONS}/${unhealthy.id}/resume`]: {
        body: { destination: { ...unhealthy, health: destination.health }, resumed_deliveries: 2 },
      },
    });
    const ci = await rowOf('ci');
    expect(within(await rowOf('archive')).queryByRole('button', { name: 'Resume' })).toBeNull();
    await userEvent.setup().click(within(ci).getByRole('button', { name: 'Resume' }));
    expect(await screen.findByText('ci resumed: 2 paused deliveries queued.')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST' && c.url.pathname.endsWith('/resume'))).toBe(true);
  });

  it('adds a destination with a filter, tried as typed on the rule webhooks, and a write-only secret', async () => {
    const api = page({
      [`POST ${DESTINATIONS}`]: { status: 201, body: { ...destination, id: 'new' } },
      [`POST /rules/${RULE_ID}/dry-run`]: { body: { matched: 12, not_matched: 38, results: [] } },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Add destination' }));
    const dialog = await screen.findByRole('dialog', { name: 'New destination of stripe-live' });
    await user.type(within(dialog).getByLabelText(/Target URL/), 'https://billing.example.com/in');
    await user.type(within(dialog).getByLabelText(/Signing secret/), 'destination-secret-1');
    await user.click(within(dialog).getByRole('button', { name: /Filter/ }));
    await user.type(within(dialog).getByLabelText('Filter JSON'), '{{"body": {{"type": "invoice.paid"}}');
    expect(await within(dialog).findByText('Would have matched 12 of the last 50 webhooks.')).toBeVisible();
    // A new destination has no id yet: its rule's webhooks are tried with the typed filter alone.
    expect(api.calls.filter(dryRun).map((c) => c.body)).toEqual([{ filter: { body: { type: 'invoice.paid' } } }]);
    await user.click(within(dialog).getByRole('button', { name: /Delivery policy/ }));
    await user.type(within(dialog).getByLabelText('Max attempts'), '3');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // No name typed: the API names it after the target's host.
    expect(api.calls.find((c) => c.method === 'POST' && c.url.pathname === DESTINATIONS)?.body).toEqual({
      target_url: 'https://billing.example.com/in',
      active: true,
      signing_secret: 'destination-secret-1',
      filter: { body: { type: 'invoice.paid' } },
      delivery_policy: { max_attempts: 3 },
    });
  });

  it('edits a destination sending only what changed; its dry run names the destination; a taken name shows on the field', async () => {
    const api = page({
      [`PATCH ${DESTINATIONS}/${unhealthy.id}`]: {
        status: 409,
        body: { title: 'Conflict', status: 409, code: 'destination_name_taken', detail: 'That name is taken.' },
      },
      [`POST /rules/${RULE_ID}/dry-run`]: { body: { matched: 3, not_matched: 47, results: [] } },
    });
    const user = userEvent.setup();
    await user.click(within(await rowOf('ci')).getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit destination ci' });
    // The stored options reopen as they are (2 hours), the secret only as "set".
    await user.click(within(dialog).getByRole('button', { name: /Endpoint health threshold/ }));
    expect(within(dialog).getByLabelText('Unhealthy after')).toHaveValue('2');
    expect(within(dialog).getByLabelText(/Signing secret/)).toHaveValue('');
    await user.click(within(dialog).getByRole('button', { name: /Filter/ }));
    const filter = within(dialog).getByLabelText('Filter JSON');
    expect(filter).toHaveValue(JSON.stringify(unhealthy.filter, null, 2));
    await user.selectOptions(within(dialog).getByLabelText('Filter language'), 'cel');
    const cel = within(dialog).getByLabelText('CEL expression');
    await user.clear(cel);
    await user.click(cel);
    await user.paste('body.ref == "refs/heads/main"');
    expect(await within(dialog).findByText('Would have matched 3 of the last 50 webhooks.')).toBeVisible();
    expect(api.calls.filter(dryRun).at(-1)?.body).toEqual({
      filter: { cel: 'body.ref == "refs/heads/main"' },
      destination_id: unhealthy.id,
    });
    const name = within(dialog).getByLabelText(/Name/);
    await user.clear(name);
    await user.type(name, 'archive');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(within(dialog).getByLabelText(/Name/)).toHaveAttribute('aria-invalid', 'true'));
    expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({
      name: 'archive',
      filter: { cel: 'body.ref == "refs/heads/main"' },
    });
  });

  it('deletes a destination only after confirmation', async () => {
    const api = page({ [`DELETE ${DESTINATIONS}/${destination.id}`]: { status: 204 } });
    const user = userEvent.setup();
    await user.click(within(await rowOf('archive')).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Delete the destination archive (to https://archive.example.com/in)');
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'DELETE')?.url.pathname).toBe(`${DESTINATIONS}/${destination.id}`),
    );
  });

  it('shows a viewer the destinations with no button to change them', async () => {
    page({}, { ...viewer, scopes: ['events:read', 'rules:read'] });
    const ci = await rowOf('ci');
    expect(within(ci).getByText('unhealthy')).toBeInTheDocument();
    const section = screen.getByRole('region', { name: 'Destinations' });
    expect(within(section).queryByRole('button')).toBeNull();
  });
});
