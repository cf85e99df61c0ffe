import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp } from '../../../test/render-app';
import { countTicks, windowRange } from './overview-window';

const RULE = '00000000-0000-4000-8000-0000000000a1';
const DEST = '00000000-0000-4000-8000-0000000000d1';
const counts = (c: Partial<Record<'queued' | 'delivered' | 'failed' | 'paused' | 'ignored', number>>) => {
  const full = { queued: 0, delivered: 0, failed: 0, paused: 0, ignored: 0, ...c };
  return { ...full, total: Object.values(full).reduce((a, b) => a + b, 0) };
};
const stats = {
  from: '2026-11-22T10:00:00.000Z',
  to: '2026-11-23T10:00:00.000Z',
  bucket: '1h',
  bucket_seconds: 3600,
  total: 12,
  by_status: { queued: 1, delivered: 6, failed: 4, paused: 0, ignored: 1 },
  needs_attention: 4,
  success_rate: 0.6,
  latency_ms: { p50: 12, p95: 80, p99: 250 },
  by_source: [{ source: 'github', ...counts({ queued: 1, delivered: 6, failed: 4, ignored: 1 }) }],
  top_failing: {
    rules: [
      {
        rule_id: RULE,
        name: 'github',
        source: 'github',
        target_url: 'https://ci.example/',
        total: 9,
        delivered: 6,
        failed: 3,
        failure_rate: 1 / 3,
      },
    ],
    destinations: [
      {
        destination_id: DEST,
        name: 'crm',
        rule_id: RULE,
        target_url: 'https://crm.example/',
        total: 5,
        delivered: 1,
        failed: 4,
        failure_rate: 0.8,
      },
    ],
  },
  series: [
    { start: '2026-11-23T07:00:00.000Z', ...counts({ delivered: 4, failed: 1 }) },
    { start: '2026-11-23T08:00:00.000Z', ...counts({ ignored: 1 }) },
    { start: '2026-11-23T09:00:00.000Z', ...counts({ delivered: 2, failed: 3, queued: 1 }) },
  ],
};

const search = (link: Element) => new URL(link.getAttribute('href')!, 'http://localhost').searchParams;

describe('overview chart and failing lists', () => {
  it('stacks one bar per bucket by status, each segment a link to its events, and draws the failure rate', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /stats': { body: stats },
      'GET /events': { body: { events: [], total: 0, page: 1, per_page: 10, pages: 0 } },
    });
    renderApp('/app/?window=24h');
    const chart = await screen.findByTestId('status-chart');
    const buckets = within(chart).getAllByTestId('bucket');
    expect(buckets).toHaveLength(3);
    const segments = (bucket: HTMLElement): Record<string, number> =>
      Object.fromEntries(
        [...bucket.querySelectorAll('a[data-status]')].map((a): [string, number] => [
          a.getAttribute('data-status')!,
          Number(a.getAttribute('data-count')),
        ]),
      );
    expect(segments(buckets[0]!)).toEqual({ delivered: 4, failed: 1 });
    expect(segments(buckets[1]!)).toEqual({ ignored: 1 });
    expect(segments(buckets[2]!)).toEqual({ delivered: 2, failed: 3, queued: 1 });
    const failed = buckets[2]!.querySelector('a[data-status=failed]')!;
    expect(Object.fromEntries(search(failed))).toEqual({
      status: 'failed',
      from: '2026-11-23T09:00:00.000Z',
      to: '2026-11-23T10:00:00.000Z',
    });
    // A bucket with nothing finished has no rate: two points (20 %, 60 %), and the line is broken between them.
    const points = within(chart).getAllByTestId('failure-rate-point');
    expect(points.map((p) => Number(p.getAttribute('data-rate')))).toEqual([0.2, 0.6]);
    expect(within(chart).getByTestId('failure-rate-line').getAttribute('d')).toMatch(/^M[\d.,]+ M[\d.,]+$/);
  });

  it('links the top failing rule and target to exactly their failed events in the window', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /stats': { body: stats },
      'GET /events': { body: { events: [], total: 0, page: 1, per_page: 10, pages: 0 } },
    });
    renderApp('/app/?window=24h');
    const rules = await screen.findByRole('table', { name: 'Top failing rules' });
    const statsCall = api.calls.find((c) => c.url.pathname === '/stats')!;
    const window = { from: statsCall.url.searchParams.get('from'), to: statsCall.url.searchParams.get('to') };
    const ruleLink = within(rules).getByRole('link', { name: '3 failed events of github' });
    expect(Object.fromEntries(search(ruleLink))).toEqual({ rule_id: RULE, status: 'failed', ...window });
    const targets = screen.getByRole('table', { name: 'Top failing targets' });
    const rows = within(targets).getAllByRole('row').slice(1);
    // The destination failed more often than the rule's own target: it comes first.
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringContaining('crm.example'),
      expect.stringContaining('ci.example'),
    ]);
    const destLink = within(targets).getByRole('link', { name: '4 failed to destination crm' });
    expect(Object.fromEntries(search(destLink))).toEqual({
      destination_id: DEST,
      delivery_status: 'failed',
      ...window,
    });
    const total = screen.getByRole('link', { name: '12 events in the window' });
    expect(Object.fromEntries(search(total))).toEqual(window);
  });
});

describe('overview window', () => {
  it('ends at the end of the bucket in progress and spans the window in whole buckets', () => {
    const now = Date.parse('2026-11-23T09:20:00.000Z');
    const r = windowRange('24h', now);
    expect(r.bucket).toBe('1h');
    expect(Date.parse(r.to) - Date.parse(r.from)).toBe(86_400_000);
    expect(Date.parse(r.to)).toBeGreaterThan(now);
    expect(Date.parse(r.to) - now).toBeLessThanOrEqual(3_600_000);
    expect(new Date(r.to).getMinutes()).toBe(0);
    expect(windowRange('30d', now).bucket).toBe('1d');
    expect(new Date(windowRange('30d', now).to).getHours()).toBe(0);
  });

  it('scales the count axis from 0 in whole round steps up to the first tick above the largest bar', () => {
    expect(countTicks(2)).toEqual([0, 1, 2]);
    expect(countTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(100)).toEqual([0, 50, 100]);
    expect(countTicks(0)).toEqual([0, 1]);
  });
});
