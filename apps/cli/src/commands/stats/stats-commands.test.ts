import { describe, expect, it } from 'vitest';
import { colorsFor } from '../../output/colors';
import { statsWindow } from './stats-commands';
import { latency, percent, sourcesTable, statsText, type DeliveryStats } from './stats-format';

const NOW = Date.parse('2025-03-10T12:00:00.000Z');
const plain = colorsFor({ isTty: false, noColor: true, forceColor: false });

describe('statsWindow', () => {
  it('reaches --window back from now, or from --to', () => {
    expect(statsWindow({}, NOW)).toEqual({});
    expect(statsWindow({ window: '7d' }, NOW)).toEqual({ from: '2025-03-03T12:00:00.000Z' });
    expect(statsWindow({ window: '1h', to: '2025-03-01T00:00:00Z' }, NOW)).toEqual({
      from: '2025-02-28T23:00:00.000Z',
      to: '2025-03-01T00:00:00.000Z',
    });
    expect(statsWindow({ from: '2h' }, NOW)).toEqual({ from: '2025-03-10T10:00:00.000Z' });
  });
  it('refuses a window that is no duration, or a window with --from', () => {
    expect(() => statsWindow({ window: 'week' }, NOW)).toThrow(/--window/);
    expect(() => statsWindow({ window: '1h', from: '2h' }, NOW)).toThrow(/not both/);
  });
});

const oneFailed: DeliveryStats = {
  from: '2025-03-09T12:00:00.000Z',
  to: '2025-03-10T12:00:00.000Z',
  bucket: '5m',
  bucket_seconds: 300,
  total: 1,
  by_status: { queued: 0, delivered: 0, failed: 1, paused: 0, ignored: 0 },
  needs_attention: 1,
  success_rate: 0,
  latency_ms: { p50: null, p95: null, p99: null },
  by_source: [],
  by_destination: [],
  top_failing: { rules: [], destinations: [] },
  series: [],
};

describe('stats text', () => {
  it('shows counts, rate, percentiles and the sources', () => {
    const stats: DeliveryStats = {
      from: '2025-03-09T12:00:00.000Z',
      to: '2025-03-10T12:00:00.000Z',
      bucket: '5m',
      bucket_seconds: 300,
      total: 12,
      by_status: { queued: 1, delivered: 6, failed: 3, paused: 2, ignored: 4 },
      needs_attention: 2,
      success_rate: 2 / 3,
      latency_ms: { p50: 120, p95: 950.4, p99: 2500 },
      by_source: [{ source: 'github', total: 12, queued: 1, delivered: 6, failed: 3, paused: 2, ignored: 4 }],
      by_destination: [
        {
          destination_id: '0193a1b2-0000-7000-8000-000000000001',
          name: 'archive',
          rule_id: '0192f0c4-0000-7000-8000-000000000001',
          total: 12,
          queued: 0,
          delivered: 9,
          failed: 3,
          paused: 0,
          success_rate: 0.75,
        },
      ],
      top_failing: { rules: [], destinations: [] },
      series: [],
    };
    const text = statsText(stats, plain);
    expect(text).toMatch(
      /DESTINATION\s+RULE\s+DELIVERIES\s+DELIVERED\s+FAILED\s+QUEUED\s+PAUSED\s+SUCCESS\narchive\s+0192f0c4-\S+\s+12\s+9\s+3\s+0\s+0\s+75.0%/,
    );
    expect(statsText(oneFailed, plain)).not.toContain('DESTINATION');
    expect(text).toContain('success rate:  66.7%');
    expect(text).toContain('failed:        3 (2 need attention)');
    expect(text).toContain('p50 120 ms, p95 950 ms, p99 2.5 s');
    expect(text).toContain('paused:        2');
    expect(text).toContain('ignored:       4');
    expect(text).toMatch(
      /SOURCE\s+EVENTS\s+DELIVERED\s+FAILED\s+QUEUED\s+PAUSED\s+IGNORED\ngithub\s+12\s+6\s+3\s+1\s+2\s+4/,
    );
  });
  it('says "-" where nothing finished', () => {
    expect(percent(null)).toBe('-');
    expect(latency(null)).toBe('-');
    expect(statsText({ ...oneFailed, needs_attention: 1 }, plain)).toContain('failed:        1 (1 needs attention)');
    expect(statsText({ ...oneFailed, needs_attention: 0 }, plain)).toMatch(/failed: {8}1\n/);
    expect(sourcesTable([{ source: 'a', count: 3 }])).toBe('SOURCE  EVENTS\na            3');
  });
});
