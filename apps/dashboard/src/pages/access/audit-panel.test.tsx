import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, renderApp, viewer } from '../../../test/render-app';

const entry = (id: string, action: string, metadata: Record<string, unknown>) => ({
  id,
  actor_user_id: 'u1',
  actor_email: 'alice@example.com',
  action,
  resource_type: 'rule',
  resource_id: '00000000-0000-7000-8000-0000000000r1',
  metadata,
  created_at: '2026-11-01T00:00:00',
});
const entries = [
  entry('a1', 'rule.updated', { changed: ['target_url', 'active'], name: 'orders' }),
  entry('a2', 'rule.created', {}),
];

async function openAudit() {
  const api = fakeApi({
    'GET /api/auth/me': { body: viewer },
    'GET /api/auth/tokens': { body: { tokens: [] } },
    'GET /api/audit': (url) => {
      const action = url.searchParams.get('action');
      const matching = action ? entries.filter((e) => action.split(',').includes(e.action)) : entries;
      return { body: { entries: matching, total: matching.length, page: 1, per_page: 50, pages: 1 } };
    },
  });
  renderApp('/app/access');
  const user = userEvent.setup();
  await user.click(await screen.findByRole('tab', { name: 'Audit log' }));
  await screen.findByText('rule.updated');
  const lastQuery = () => api.calls.filter((c) => c.url.pathname === '/api/audit').at(-1)!.url.searchParams;
  return { user, lastQuery };
}

describe('audit panel', () => {
  it('sends the filters together on Filter, shows the total matching, and clears them', async () => {
    const { user, lastQuery } = await openAudit();
    expect(screen.getByTestId('audit-total')).toHaveTextContent('2 entries');
    const form = screen.getByRole('form', { name: 'Audit filters' });
    await user.type(within(form).getByLabelText('Action'), 'rule.created, rule.deleted');
    await user.type(within(form).getByLabelText('Actor e-mail'), 'alice@example.com');
    await user.type(within(form).getByLabelText('Resource type'), 'rule');
    await user.type(within(form).getByLabelText('From'), '2026-11-01T10:00');
    await user.click(within(form).getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText('1 entry matches')).toBeInTheDocument();
    expect(screen.queryByText('rule.updated')).not.toBeInTheDocument();
    const q = lastQuery();
    expect(q.get('action')).toBe('rule.created,rule.deleted');
    expect(q.get('actor_email')).toBe('alice@example.com');
    expect(q.get('resource_type')).toBe('rule');
    expect(q.get('from')).toBe(new Date('2026-11-01T10:00').toISOString());
    expect(q.get('page')).toBe('1');
    expect(q.has('resource_id')).toBe(false);

    await user.click(within(form).getByRole('button', { name: 'Clear' }));
    expect(await screen.findByText('rule.updated')).toBeInTheDocument();
    expect(lastQuery().has('action')).toBe(false);
  });

  it("opens an entry's metadata as indented JSON, and closes it again", async () => {
    const { user } = await openAudit();
    expect(screen.getByText('changed, name')).toBeInTheDocument();
    // An entry without metadata has nothing to open.
    expect(screen.queryByRole('button', { name: 'Show metadata of rule.created' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show metadata of rule.updated' }));
    const json = await screen.findByText(/"changed": \[/);
    expect(json.textContent).toBe(JSON.stringify(entries[0]!.metadata, null, 2));
    await user.click(screen.getByRole('button', { name: 'Hide metadata of rule.updated' }));
    expect(screen.queryByText(/"changed": \[/)).not.toBeInTheDocument();
  });
});
