import { eventSummaryOf } from './event-views';

// A list of up to 100 summaries must stay small: each carries only a glimpse of its last error.
const summary = (lastError: string | null) =>
  eventSummaryOf(
    {
      id: 'e1',
      source: 'stripe',
      status: 'failed',
      provider_id: null,
      target_url: 'https://billing.example/hooks',
      attempt_count: 3,
      failure_reason: 'http_status',
      last_error: lastError,
      acknowledged: false,
      acknowledged_at: null,
      delivered_at: null,
      delivery_counts: { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 },
      created_at: '2026-11-26T10:00:00.000Z',
    },
    (path) => `https://relay.example/app${path}`,
  );

describe('eventSummaryOf', () => {
  it("keeps a short last error whole and cuts a long one (an upstream's HTML page) to its first 200 characters", () => {
    expect(summary('HTTP 502: bad gateway').last_error).toBe('HTTP 502: bad gateway');
    const page = `HTTP 502: <html>${'upstream exploded '.repeat(100)}</html>`;
    expect(summary(page).last_error).toBe(page.slice(0, 200));
  });

  it('says null when the event has no error', () => {
    expect(summary(null)).toMatchObject({ last_error: null, link: 'https://relay.example/app/events/e1' });
  });
});
