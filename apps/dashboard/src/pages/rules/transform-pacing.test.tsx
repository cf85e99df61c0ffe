import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';
import type { Destination } from './destination-types';
import { destination, rule, RULE_ID } from './rule-fixtures';
import type { Rule } from './rule-types';
import { transformPacingChange, transformPacingDraftOf, transformPacingProblems } from './transform-pacing-draft';

// Transform and pacing (issue 30 items 4 and 6) in the rule form, the destination form and on the rule page.
// CodeMirror needs a real layout (tests/browser/transform-pacing.test.ts drives it in chromium): here the lazily
// loaded editor is a textarea with the same props, so these tests are about what the sections send and refuse.
vi.mock('./code-editor', () => ({
  CodeEditor: ({ value, onChange, label }: { value: string; onChange: (v: string) => void; label: string }) => (
    <textarea aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)} />
  ),
}));

const CODE =
  "addHandler('transform', (request) => {\n  request.body = { text: request.body.type };\n  return request;\n});";
const EVENT_ID = '0190a0a0-0000-7000-8000-0000000000e1';
const transformed: Rule = {
  ...rule,
  has_transform: true,
  transform: CODE,
  forward_path_query: true,
  rate_limit: { limit: 5, period: 'second', burst: 10 },
  max_concurrency: 2,
};
/** As GET /rules lists it: the code left out. */
const { transform: _code, ...listed } = transformed;
const stored = {
  id: EVENT_ID,
  source: 'stripe',
  status: 'delivered',
  provider_id: RULE_ID,
  created_at: '2026-11-20T10:00:00Z',
};
const storedEvent = {
  ...stored,
  payload: { type: 'invoice.paid', amount: 100 },
  headers: { 'content-type': 'application/json', authorization: 'Bearer [masked]' },
  path: '/acct',
  query: { live: 'true' },
};

async function fill(input: HTMLElement, text: string) {
  const user = userEvent.setup();
  await user.click(input);
  await user.paste(text);
}

async function editRule(r: Rule, routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi({
    'GET /api/auth/me': { body: admin },
    'GET /rules': { body: { rules: [r] } },
    [`GET /rules/${RULE_ID}`]: { body: transformed },
    ...routes,
  });
  renderApp('/app/rules');
  await userEvent.setup().click(await screen.findByRole('button', { name: 'Edit' }));
  return { api, dialog: await screen.findByRole('dialog', { name: `Edit rule ${r.name}` }) };
}

const open = (dialog: HTMLElement, name: RegExp) =>
  userEvent.setup().click(within(dialog).getByRole('button', { name }));

describe('transform and pacing drafts', () => {
  it('send only what is set on a create, and what changed on an update (null turns one off)', () => {
    const draft = { ...transformPacingDraftOf(), transformText: CODE, rateLimit: 30, ratePeriod: 'minute' as const };
    expect(transformPacingChange(draft)).toEqual({ transform: CODE, rate_limit: { limit: 30, period: 'minute' } });
    expect(transformPacingChange(transformPacingDraftOf(transformed), transformed)).toEqual({});
    const off = { ...transformPacingDraftOf(transformed), transformText: '  ', rateLimit: '', maxConcurrency: '' };
    expect(transformPacingChange(off, transformed)).toEqual({
      transform: null,
      rate_limit: null,
      max_concurrency: null,
    });
    // A list's item has no code: an empty editor then is not taken for "removed".
    expect(transformPacingChange(transformPacingDraftOf(listed), listed)).toEqual({});
  });

  it('name what the API would refuse, with the bounds of the typed client', () => {
    const draft = transformPacingDraftOf();
    expect(transformPacingProblems({ ...draft, rateLimit: 0, maxConcurrency: 1_001 })).toEqual({
      'rate_limit.limit': 'A whole number, at least 1',
      max_concurrency: 'At most 1,000',
    });
    expect(transformPacingProblems({ ...draft, rateBurst: 3 })).toEqual({
      'rate_limit.limit': 'A burst needs a limit',
    });
    expect(transformPacingProblems({ ...draft, rateLimit: 100_000, rateBurst: 100_001 })).toEqual({
      'rate_limit.burst': 'At most 100,000',
    });
    expect(transformPacingProblems({ ...draft, transformText: 'x'.repeat(256 * 1024 + 1) }).transform).toBe(
      'At most 256 KB: this is 262145 bytes',
    );
  });
});

describe('rule form: transform and pacing', () => {
  it('creates a rule with a transform, forwarded path and query, a rate limit and a concurrency', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /rules': { body: { rules: [] } },
      'POST /rules': { status: 201, body: { ...transformed, id: 'new' } },
    });
    renderApp('/app/rules');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'New rule' }));
    const dialog = await screen.findByRole('dialog');
    await fill(within(dialog).getByLabelText(/Source/), 'stripe');
    await fill(within(dialog).getByLabelText(/Target URL/), 'https://example.com/in');
    await open(dialog, /Transform/);
    await user.click(within(dialog).getByRole('button', { name: 'Insert example' }));
    const editor = await within(dialog).findByLabelText('Transform code');
    expect((editor as HTMLTextAreaElement).value).toContain("addHandler('transform'");
    await user.clear(editor);
    await fill(editor, CODE);
    await user.click(within(dialog).getByLabelText(/Forward path and query/));
    // A new rule has no webhooks to test on.
    expect(within(dialog).getByText(/Once the rule is saved/)).toBeVisible();
    await open(dialog, /Pacing/);
    await fill(within(dialog).getByLabelText(/Rate limit/), '30');
    await user.selectOptions(within(dialog).getByLabelText(/Per/), 'minute');
    await fill(within(dialog).getByLabelText(/Burst/), '60');
    await fill(within(dialog).getByLabelText(/Max concurrency/), '4');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      source: 'stripe',
      transform: CODE,
      forward_path_query: true,
      rate_limit: { limit: 30, period: 'minute', burst: 60 },
      max_concurrency: 4,
    });
  });

  it("loads a listed rule's code before editing; removing the transform and the pacing sends null", async () => {
    const { api, dialog } = await editRule(listed, { [`PATCH /rules/${RULE_ID}`]: { body: rule } });
    expect(api.calls.some((c) => c.method === 'GET' && c.url.pathname === `/rules/${RULE_ID}`)).toBe(true);
    expect(within(dialog).getByRole('button', { name: /Transform/ })).toHaveTextContent('on');
    expect(within(dialog).getByRole('button', { name: /Pacing/ })).toHaveTextContent('on');
    await open(dialog, /Transform/);
    expect(await within(dialog).findByLabelText('Transform code')).toHaveValue(CODE);
    const user = userEvent.setup();
    await user.click(within(dialog).getByRole('button', { name: 'Remove transform' }));
    await open(dialog, /Pacing/);
    expect(within(dialog).getByLabelText(/Burst/)).toHaveValue('10');
    await user.clear(within(dialog).getByLabelText(/Rate limit/));
    await user.clear(within(dialog).getByLabelText(/Burst/));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ transform: null, rate_limit: null }),
    );
  });

  it('sends nothing while a pacing value is out of bounds, and shows why in its section', async () => {
    const { api, dialog } = await editRule(rule);
    await open(dialog, /Pacing/);
    await fill(within(dialog).getByLabelText(/Max concurrency/), '5000');
    expect(within(dialog).getByText('At most 1,000')).toBeVisible();
    expect(within(dialog).getByRole('button', { name: /Pacing/ })).toHaveTextContent('error');
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(api.calls.some((c) => c.method === 'PATCH')).toBe(false);
  });

  it('opens the transform section on a refused transform and shows the line of its syntax error', async () => {
    const { dialog } = await editRule(rule, {
      [`PATCH /rules/${RULE_ID}`]: {
        status: 400,
        body: {
          title: 'Bad Request',
          status: 400,
          code: 'validation_failed',
          errors: [{ field: 'transform', message: 'line 2: SyntaxError: unexpected token' }],
        },
      },
    });
    await open(dialog, /Transform/);
    await fill(await within(dialog).findByLabelText('Transform code'), "addHandler('transform', (r) => {\n  r..x\n});");
    await open(dialog, /Transform/);
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('line 2: SyntaxError: unexpected token')).toBeVisible();
    expect(within(dialog).getByRole('button', { name: /Transform/ })).toHaveTextContent('error');
  });

  it('tests the typed code on a recent webhook: input beside output, or the error with its line, and the logs', async () => {
    let answer: unknown = {
      ok: true,
      request: { body: { text: 'invoice.paid' }, headers: { 'x-kind': 'chat' }, path: '/acct', query: {} },
      logs: 'hello from the transform\n',
    };
    const { api, dialog } = await editRule(transformed, {
      'GET /events': { body: { events: [stored], total: 1, page: 1, per_page: 20, pages: 1 } },
      [`GET /events/${EVENT_ID}`]: { body: storedEvent },
      [`POST /rules/${RULE_ID}/transform-test`]: () => ({ body: answer }),
    });
    await open(dialog, /Transform/);
    const user = userEvent.setup();
    const run = await within(dialog).findByRole('button', { name: 'Run test' });
    await waitFor(() => expect(run).toBeEnabled());
    await user.click(run);
    const output = await within(dialog).findByTestId('output-body');
    expect(JSON.parse(output.textContent ?? '')).toEqual({ text: 'invoice.paid' });
    expect(JSON.parse(within(dialog).getByTestId('input-body').textContent ?? '')).toEqual(storedEvent.payload);
    expect(within(dialog).getByLabelText('Transform logs')).toHaveTextContent('hello from the transform');
    const call = api.calls.find((c) => c.url.pathname.endsWith('/transform-test'));
    expect(call?.body).toEqual({ transform: CODE, event_id: EVENT_ID });
    expect(
      api.calls.find((c) => c.method === 'GET' && c.url.pathname === '/events')?.url.searchParams.get('source'),
    ).toBe('stripe');

    answer = { ok: false, error: { message: 'TypeError: not a function', line: 2, cause: 'error' }, logs: '' };
    await user.click(run);
    expect(await within(dialog).findByLabelText('Transform error')).toHaveTextContent(
      'Line 2: TypeError: not a function (error)',
    );
    expect(within(dialog).queryByTestId('output-body')).toBeNull();
    expect(within(dialog).getByLabelText('Transform logs')).toHaveTextContent('(no console output)');
  });
});

describe('rule page: transform and pacing', () => {
  const pacedDestination: Destination = {
    ...destination,
    has_transform: true,
    rate_limit: { limit: 100, period: 'minute' },
  };
  const other: Destination = { ...destination, id: '0190a0a0-0000-7000-8000-000000000009', name: 'plain' };

  function page(routes: Parameters<typeof fakeApi>[0] = {}) {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: transformed },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`GET /rules/${RULE_ID}/destinations`]: { body: { destinations: [pacedDestination, other] } },
      [`GET /rules/${RULE_ID}/destinations/${destination.id}`]: { body: { ...pacedDestination, transform: CODE } },
      'GET /stats': { body: { by_destination: [] } },
      'GET /events': { body: { events: [stored], total: 1, page: 1, per_page: 20, pages: 1 } },
      [`GET /events/${EVENT_ID}`]: { body: storedEvent },
      ...routes,
    });
    renderApp(`/app/rules/${RULE_ID}`);
    return api;
  }

  it("shows the rule's and each destination's transform and pacing", async () => {
    page();
    const card = await screen.findByLabelText('Rule options');
    expect(within(card).getByText('set; forwards its path and query')).toBeInTheDocument();
    expect(within(card).getByText('5 / second (burst 10), 2 at once')).toBeInTheDocument();
    expect(screen.getByText('paced: 5 / second (burst 10), 2 at once')).toBeInTheDocument();
    const table = await screen.findByTestId('destinations');
    const paced = within(table).getByText('archive').closest('tr')!;
    expect(within(paced).getByText('transform')).toBeInTheDocument();
    expect(within(paced).getByText('paced: 100 / minute')).toBeInTheDocument();
    expect(within(table).getByText('plain').closest('tr')).toHaveTextContent('—');
  });

  it("edits the rule from its page, the editor opening on the page's saved code", async () => {
    const api = page();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Edit rule' }));
    // Edited in place: the form is on the page, not in a dialog.
    const dialog = await screen.findByRole('form', { name: `Edit rule ${rule.name}` });
    await open(dialog, /Transform/);
    expect(await within(dialog).findByLabelText('Transform code')).toHaveValue(CODE);
    expect(within(dialog).getByLabelText(/Forward path and query/)).toBeChecked();
    // The page's rule carries the code: no second GET of the rule.
    expect(api.calls.filter((c) => c.method === 'GET' && c.url.pathname === `/rules/${RULE_ID}`)).toHaveLength(1);
  });

  it("edits a destination's transform and pacing, its test run as that destination", async () => {
    const api = page({
      [`POST /rules/${RULE_ID}/transform-test`]: {
        body: { ok: true, request: { body: {}, headers: {}, path: '', query: {} }, logs: '' },
      },
      [`PATCH /rules/${RULE_ID}/destinations/${destination.id}`]: { body: pacedDestination },
    });
    const user = userEvent.setup();
    const row = (await screen.findByTestId('destinations')).querySelector('tr:has(td)')!;
    await user.click(within(row as HTMLElement).getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit destination archive' });
    await open(dialog, /Transform/);
    expect(await within(dialog).findByLabelText('Transform code')).toHaveValue(CODE);
    const run = within(dialog).getByRole('button', { name: 'Run test' });
    await waitFor(() => expect(run).toBeEnabled());
    await user.click(run);
    await within(dialog).findByTestId('output-body');
    expect(api.calls.find((c) => c.url.pathname.endsWith('/transform-test'))?.body).toEqual({
      transform: CODE,
      event_id: EVENT_ID,
      destination_id: destination.id,
    });
    await open(dialog, /Pacing/);
    await fill(within(dialog).getByLabelText(/Max concurrency/), '3');
    await user.click(within(dialog).getByLabelText(/Forward path and query/));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({
        max_concurrency: 3,
        forward_path_query: true,
      }),
    );
  });
});
