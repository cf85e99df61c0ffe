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
});
