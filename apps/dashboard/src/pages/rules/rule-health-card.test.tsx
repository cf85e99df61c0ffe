import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';
import { rule, RULE_ID } from './rule-fixtures';

const unhealthy = {
  ...rule,
  health: {
    status: 'unhealthy',
    reason: 'gone',
    since: '2026-11-01T10:00:00.000Z',
    failing_since: null,
    unhealthy_after_seconds: null,
  },
};
const healthy = { ...rule, health: { ...rule.health } };

describe('rule detail: endpoint health', () => {
  it('shows why and since when a rule is unhealthy, and resumes it', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: unhealthy },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
      [`POST /rules/${RULE_ID}/resume`]: { body: { rule: healthy, resumed_events: 3 } },
      'GET /events': (url) =>
        url.searchParams.get('status') === 'paused' && url.searchParams.get('rule_id') === RULE_ID
          ? { body: { events: [], total: 3, page: 1, per_page: 1, pages: 3, total_exact: true } }
          : { body: { events: [], total: 0, page: 1, per_page: 10, pages: 0, total_exact: true } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const card = await screen.findByLabelText('Endpoint health');
    expect(within(card).getByText('unhealthy')).toBeInTheDocument();
    // The page's own badge says so too: never a green "active" for an unhealthy rule.
    expect(screen.queryByText('active')).not.toBeInTheDocument();
    expect(screen.getAllByText('unhealthy')).toHaveLength(2);
    expect(card).toHaveTextContent('The target answered 410 Gone.');
    expect(card).toHaveTextContent(`Unhealthy since ${new Date('2026-11-01T10:00:00.000Z').toLocaleString()}`);
    // The card offers resume with what it would deliver: the rule's paused events (GET /events' total).
    const button = await within(card).findByRole('button', { name: 'Resume and deliver 3 paused events' });
    expect(card).toHaveTextContent('Waiting now: 3 paused events.');
    const user = userEvent.setup();
    await user.click(button);
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST')?.url.pathname).toBe(`/rules/${RULE_ID}/resume`),
    );
    expect(await screen.findByText('Resumed: 3 paused events queued again.')).toBeInTheDocument();
  });

  it('shows a healthy rule without a Resume button', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      [`GET /rules/${RULE_ID}`]: { body: healthy },
      [`GET /rules/${RULE_ID}/hooks`]: { body: { hooks: [] } },
    });
    renderApp(`/app/rules/${RULE_ID}`);
    const card = await screen.findByLabelText('Endpoint health');
    expect(within(card).getByText('healthy')).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: /Resume/ })).toBeNull();
  });
});
