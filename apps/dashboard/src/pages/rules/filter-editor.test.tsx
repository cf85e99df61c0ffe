import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';
import { rule, RULE_ID } from './rule-fixtures';
import type { Rule } from './rule-types';

// The rule filter's editor (issue 29) in the rule form, and the filter on the rule page.
const filtered: Rule = { ...rule, filter: { body: { amount: { $gte: 100 } } } };

async function openFilter(dialog: HTMLElement) {
  await userEvent.setup().click(within(dialog).getByRole('button', { name: /Filter/ }));
}

async function paste(input: HTMLElement, text: string) {
  const user = userEvent.setup();
  await user.click(input);
  await user.paste(text);
}

async function editRule(stored: Rule, patch: { status?: number; body?: unknown } = { body: stored }) {
  const api = fakeApi({
    'GET /api/auth/me': { body: admin },
    'GET /rules': { body: { rules: [stored] } },
    [`PATCH /rules/${RULE_ID}`]: patch,
  });
  renderApp('/app/rules');
  await userEvent.setup().click(await screen.findByRole('button', { name: 'Edit' }));
  const dialog = await screen.findByRole('dialog');
  await openFilter(dialog);
  return { api, dialog };
}

describe('rule filter editor', () => {
  it('creates a rule with a JSON filter (with none, the body has no filter: rule-options.test)', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [] } },
      'POST /rules': { status: 201, body: { ...rule, id: 'new' } },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'New rule' }));
    const dialog = await screen.findByRole('dialog');
    await paste(within(dialog).getByLabelText(/Source/), 'shop');
    await paste(within(dialog).getByLabelText(/Target URL/), 'https://example.com/shop');
    await openFilter(dialog);
    await paste(within(dialog).getByLabelText('Filter JSON'), '{"body": {"total": {"$gt": 100}}}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      source: 'shop',
      filter: { body: { total: { $gt: 100 } } },
    });
  });

  it('reopens a stored filter as JSON and sends none when it did not change', async () => {
    const { api, dialog } = await editRule(filtered);
    const user = userEvent.setup();
    // Stored JSON reopens as indented JSON: saving with no change sends no filter.
    expect(within(dialog).getByLabelText('Filter JSON')).toHaveValue(JSON.stringify(filtered.filter, null, 2));
    await user.click(within(dialog).getByLabelText(/Description/));
    await user.paste('note');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls.filter((c) => c.method === 'PATCH')).toHaveLength(1));
    expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ description: 'note' });
  });

  it('writes a CEL expression as {"cel": …} and an emptied editor as null', async () => {
    const { api, dialog } = await editRule(filtered);
    const user = userEvent.setup();
    await user.selectOptions(within(dialog).getByLabelText('Filter language'), 'cel');
    const cel = within(dialog).getByLabelText('CEL expression');
    await user.clear(cel);
    await paste(cel, 'body.amount >= 100 && headers["x-env"] == "prod"');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({
        filter: { cel: 'body.amount >= 100 && headers["x-env"] == "prod"' },
      }),
    );

    const second = await editRule(filtered);
    await user.clear(within(second.dialog).getByLabelText('Filter JSON'));
    await user.click(within(second.dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(second.api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ filter: null }));
  });

  it("shows the API's 400 on the filter field, naming the bad part", async () => {
    const { dialog } = await editRule(rule, {
      status: 400,
      body: {
        title: 'Bad Request',
        status: 400,
        code: 'validation_failed',
        errors: [{ field: 'filter.body.amount.$gtt', message: 'Unknown operator $gtt' }],
      },
    });
    await paste(within(dialog).getByLabelText('Filter JSON'), '{"body": {"amount": {"$gtt": 1}}}');
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Save' }));
    const field = within(dialog).getByLabelText('Filter JSON');
    await waitFor(() => expect(field).toHaveAttribute('aria-invalid', 'true'));
    // The message sits under the field (the alert at the top lists it too).
    const describedBy = field.getAttribute('aria-describedby')!.split(' ');
    const messages = describedBy.map((id) => document.getElementById(id)?.textContent);
    expect(messages).toContain('filter.body.amount.$gtt: Unknown operator $gtt');
    expect(within(dialog).getByRole('button', { name: /Filter/ })).toHaveTextContent('error');
  });

  it('says when the JSON does not parse and sends nothing', async () => {
    const { api, dialog } = await editRule(rule);
    await paste(within(dialog).getByLabelText('Filter JSON'), '{"body": ');
    expect(within(dialog).getByText(/^Not JSON: /)).toBeVisible();
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(api.calls.some((c) => c.method === 'PATCH')).toBe(false);
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('tries the filter as it is typed on the last 50 webhooks (debounced) and says how many it would match', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [rule] } },
      [`POST /rules/${RULE_ID}/dry-run`]: { body: { matched: 12, not_matched: 38, results: [] } },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog');
    await openFilter(dialog);
    await user.type(within(dialog).getByLabelText('Filter JSON'), '{{"body": {{"amount": 1}}');
    expect(await within(dialog).findByText('Would have matched 12 of the last 50 webhooks.')).toBeVisible();
    const runs = api.calls.filter((c) => c.method === 'POST' && c.url.pathname.endsWith('/dry-run'));
    // Typed key by key, but tried once the typing paused (text that was not JSON yet is never sent).
    expect(runs.map((c) => c.body)).toEqual([{ filter: { body: { amount: 1 } } }]);
  });

  it('shows the filter read-only on the rule page', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: { ...rule, filter: { cel: 'body.type == "push"' } } },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const card = await screen.findByLabelText('Rule options');
    expect(within(card).getByText('CEL: body.type == "push"')).toBeInTheDocument();
  });
});
