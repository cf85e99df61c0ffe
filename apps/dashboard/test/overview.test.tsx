import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from './render-app';

const stats = {
  from: '2026-11-22T10:00:00.000Z',
  to: '2026-11-23T10:00:00.000Z',
  bucket: '1h',
  bucket_seconds: 3600,
  total: 40,
  by_status: { queued: 2, delivered: 30, failed: 8 },
  needs_attention: 3,
  success_rate: 30 / 38,
  latency_ms: { p50: 12, p95: 80.4, p99: 250 },
  by_source: [{ source: 'github', total: 40, queued: 2, delivered: 30, failed: 8 }],
  top_failing: { rules: [], destinations: [] },
  series: [{ start: '2026-11-22T10:00:00.000Z', total: 40, queued: 2, delivered: 30, failed: 8 }],
};

describe('overview page', () => {
  it('shows success rate, latency percentiles and the events that need attention', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /stats': { body: stats },
      'GET /events': {
        body: {
          events: [
            {
              id: '00000000-0000-4000-8000-000000000009',
              source: 'stripe',
              status: 'failed',
              provider_id: null,
              target_url: null,
              attempt_count: 3,
              failure_reason: 'http_500',
              acknowledged: false,
              acknowledged_at: null,
              created_at: '2026-11-23T09:00:00.000Z',
              delivered_at: null,
            },
          ],
          total: 3,
          page: 1,
          per_page: 10,
          pages: 1,
        },
      },
    });
    // The window ends at the end of the 6-hour bucket the page asks in: bracketed by the clock before and after.
    const before = Date.now();
    renderApp('/app/?window=7d');
    expect(await screen.findByText('78.9 %')).toBeInTheDocument();
    expect(screen.getByText('12 ms')).toBeInTheDocument();
    expect(screen.getByText('80 ms')).toBeInTheDocument();
    expect(screen.getByText('250 ms')).toBeInTheDocument();
    expect(screen.getByText('Needs attention (3)')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'stripe' })).toBeInTheDocument();
    const statsCall = api.calls.find((c) => c.url.pathname === '/stats')!;
    const to = Date.parse(statsCall.url.searchParams.get('to')!);
    expect(Date.parse(statsCall.url.searchParams.get('from')!)).toBe(to - 7 * 86_400_000);
    expect(statsCall.url.searchParams.get('bucket')).toBe('6h');
    expect(to).toBeGreaterThan(before);
    expect(to).toBeLessThanOrEqual(Date.now() + 6 * 3_600_000);
    await waitFor(() =>
      expect(api.calls.find((c) => c.url.pathname === '/events')?.url.searchParams.get('needs_attention')).toBe('true'),
    );
  });

  it('sends a platform operator to the platform console', async () => {
    fakeApi({
      'GET /api/auth/me': {
        body: { mechanism: 'session', kind: 'operator', operator: { id: 'p', username: 'root' }, scopes: [] },
      },
    });
    const { router } = renderApp('/app/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/platform'));
  });
});
