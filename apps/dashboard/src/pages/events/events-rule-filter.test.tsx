import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';

const RULE = '00000000-0000-4000-8000-0000000000a1';
const emptyPage = { events: [], total: 0, page: 1, per_page: 50, pages: 0 };

describe('events list: one rule', () => {
  it("asks for a rule's events when the URL names one (the overview's links), and drops the filter on remove", async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /events': { body: emptyPage },
      'GET /events/sources': { body: { sources: [] } },
    });
    renderApp(`/app/events?rule_id=${RULE}&status=failed`);
    const pill = await screen.findByText('rule 00000000');
    const listCalls = () => api.calls.filter((c) => c.url.pathname === '/events');
    await waitFor(() => expect(listCalls()[0]?.url.searchParams.get('rule_id')).toBe(RULE));
    expect(listCalls()[0]?.url.searchParams.get('status')).toBe('failed');
    await userEvent.setup().click(pill.parentElement!.querySelector('button')!);
    await waitFor(() => expect(listCalls().at(-1)?.url.searchParams.has('rule_id')).toBe(false));
  });
});
