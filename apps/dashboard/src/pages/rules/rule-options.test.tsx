import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';
import { rule, RULE_ID } from './rule-fixtures';
import type { Rule } from './rule-types';

// The rule options (issue 18) in the rule form and on the rule page.
const configured: Rule = {
  ...rule,
  outbound_headers: { forward: ['authorization'], set: { 'x-team': 'payments' }, remove: ['cookie'] },
  // Stored JSON comes back in the database's key order: the form must not take that for a change.
  dedup: { window_seconds: 7_200, preset: 'github' },
  duplicate_count: 12,
  verification: { preset: 'hmac', header: 'x-signature', prefix: 'sha256=' },
  has_verification_secret: true,
  signature_failures: { count: 3, last_at: '2026-11-20T10:00:00Z' },
  health: { ...rule.health, unhealthy_after_seconds: 172_800 },
  ordering: { json_pointer: '/customer' },
  delivery_policy: { timeout_seconds: 10, max_attempts: 4 },
  rate_limit: { limit: 5, period: 'second' },
  // Halved after a 429, one in flight, three waiting, held by a Retry-After far in the future.
  pacing_state: {
    effective_limit: 2.5,
    period: 'second',
    in_flight: 1,
    waiting: 3,
    held_until: '2999-01-01T00:00:00Z',
  },
};

async function openSection(dialog: HTMLElement, name: RegExp) {
  await userEvent.setup().click(within(dialog).getByRole('button', { name }));
}

/** Pastes into an input: typing key by key re-renders the whole form each time (slow on a loaded machine). */
async function fill(input: HTMLElement, text: string) {
  const user = userEvent.setup();
  await user.click(input);
  await user.paste(text);
}

describe('rule options', () => {
  it('creates a rule with every option, sending the verification secret only as typed', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [] } },
      'POST /rules': { status: 201, body: { ...rule, id: 'new', source: 'github' } },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'New rule' }));
    const dialog = await screen.findByRole('dialog');
    // Collapsed by default: the options' inputs are not shown until their section is opened.
    expect(within(dialog).getByLabelText('Deduplicate by')).not.toBeVisible();
    await fill(within(dialog).getByLabelText(/Source/), 'github');
    await fill(within(dialog).getByLabelText(/Target URL/), 'https://example.com/gh');

    await openSection(dialog, /Deduplication/);
    await user.selectOptions(within(dialog).getByLabelText('Deduplicate by'), 'preset');
    await user.selectOptions(within(dialog).getByLabelText('Dedup preset'), 'shopify');
    await user.clear(within(dialog).getByLabelText(/Dedup window/));
    await fill(within(dialog).getByLabelText(/Dedup window/), '48');

    await openSection(dialog, /Inbound verification/);
    await user.selectOptions(within(dialog).getByLabelText('Verify signatures with'), 'stripe');
    expect(within(dialog).getByText("Not set: the sender's signing secret")).toBeInTheDocument();
    await fill(within(dialog).getByLabelText(/Timestamp tolerance/), '600');
    await fill(within(dialog).getByLabelText(/Verification secret/), 'whsec_test');

    await openSection(dialog, /Endpoint health threshold/);
    await fill(within(dialog).getByLabelText(/Unhealthy after/), '3');
    await user.selectOptions(within(dialog).getByLabelText('Unit'), 'days');

    await openSection(dialog, /Ordering/);
    await user.selectOptions(within(dialog).getByLabelText('Order deliveries by'), 'json_pointer');
    await fill(within(dialog).getByLabelText(/Ordering JSON pointer/), '/customer');

    await openSection(dialog, /Delivery policy/);
    await fill(within(dialog).getByLabelText('Max attempts'), '5');
    await fill(within(dialog).getByLabelText(/Backoff cap/), '600');

    await openSection(dialog, /Outbound headers/);
    await user.click(within(dialog).getByRole('button', { name: 'Add header' }));
    await fill(within(dialog).getByLabelText('Header name 1'), 'X-Team');
    await fill(within(dialog).getByLabelText('Header value 1'), 'payments');
    await fill(within(dialog).getByLabelText(/Remove inbound headers/), 'cookie, X-Debug');

    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      source: 'github',
      target_url: 'https://example.com/gh',
      description: null,
      active: true,
      dedup: { preset: 'shopify', window_seconds: 172_800 },
      verification: { preset: 'stripe', tolerance_seconds: 600 },
      verification_secret: 'whsec_test',
      unhealthy_after_seconds: 259_200,
      ordering: { json_pointer: '/customer' },
      delivery_policy: { backoff_cap_seconds: 600, max_attempts: 5 },
      outbound_headers: { forward: [], set: { 'x-team': 'payments' }, remove: ['cookie', 'x-debug'] },
    });
  });

  it('edits the options sending only what changed; each can be turned off (null)', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [configured] } },
      [`PATCH /rules/${RULE_ID}`]: { body: configured },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog');
    await openSection(dialog, /Deduplication/);
    expect(within(dialog).getByLabelText(/Dedup window/)).toHaveValue('2');
    await user.selectOptions(within(dialog).getByLabelText('Deduplicate by'), 'off');
    await openSection(dialog, /Inbound verification/);
    expect(within(dialog).getByLabelText(/Verification secret/)).toHaveValue('');
    expect(within(dialog).getByText('A verification secret is set; type a new one to replace it')).toBeVisible();
    await openSection(dialog, /Delivery policy/);
    await user.clear(within(dialog).getByLabelText('Max attempts'));
    await user.clear(within(dialog).getByLabelText(/Timeout/));
    await openSection(dialog, /Outbound headers/);
    await user.click(within(dialog).getByRole('button', { name: 'Remove header 1' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({
        dedup: null,
        delivery_policy: null,
        // The forwarded headers, not edited here, are kept.
        outbound_headers: { forward: ['authorization'], set: {}, remove: ['cookie'] },
      }),
    );
  });

  it('opens the section of a refused option and shows the message under its field', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule] } },
      [`PATCH /rules/${RULE_ID}`]: {
        status: 400,
        body: {
          title: 'Bad Request',
          status: 400,
          code: 'validation_failed',
          errors: [{ field: 'delivery_policy.max_attempts', message: 'Too big: at most 50' }],
        },
      },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog');
    await openSection(dialog, /Delivery policy/);
    await user.type(within(dialog).getByLabelText('Max attempts'), '50');
    await openSection(dialog, /Delivery policy/);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Too big: at most 50')).toBeVisible();
    expect(within(dialog).getByLabelText('Max attempts')).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByRole('button', { name: /Delivery policy/ })).toHaveTextContent('error');
  });

  it('shows the options on the rule page and rotates the verification secret', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: configured },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`POST /rules/${RULE_ID}/verification-secret/rotate`]: {
        body: { ...configured, previous_verification_secret_expires_at: '2026-11-26T00:00:00Z' },
      },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const card = await screen.findByLabelText('Rule options');
    for (const text of [
      'github preset, window 2 h',
      '12',
      'HMAC sha256 hex in x-signature after "sha256="',
      'set',
      'JSON pointer /customer',
      '4 attempts, timeout 10 s',
      '2 d',
      'x-team: payments',
      'cookie',
      '5 / second',
    ])
      expect(within(card).getByText(text)).toBeInTheDocument();
    expect(within(card).getByText(/^3, last /)).toBeInTheDocument();
    expect(
      within(card).getByText(/^2\.5 \/ second in force, 1 in flight, 3 waiting, held until .+ \(Retry-After\)$/),
    ).toBeInTheDocument();

    const user = userEvent.setup();
    const form = screen.getByRole('form', { name: 'Rotate verification secret' });
    await user.type(within(form).getByLabelText(/New verification secret/), 'the-next-secret');
    await user.clear(within(form).getByLabelText(/still accepted for/));
    await user.type(within(form).getByLabelText(/still accepted for/), '1');
    await user.click(within(form).getByRole('button', { name: 'Rotate verification secret' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
        verification_secret: 'the-next-secret',
        previous_secret_valid_for_seconds: 3600,
      }),
    );
  });
});
