import { describe, expect, it } from 'vitest';
import type { CliError } from '../../errors';
import { durationMs, filterOf, isEmptyFilter, timeBound } from './events-filters';

const NOW = Date.parse('2025-03-10T12:00:00.000Z');

describe('timeBound', () => {
  it('turns a duration into that long before now', () => {
    expect(timeBound('1h', NOW)).toBe('2025-03-10T11:00:00.000Z');
    expect(timeBound('2d', NOW)).toBe('2025-03-08T12:00:00.000Z');
    expect(timeBound('90s', NOW)).toBe('2025-03-10T11:58:30.000Z');
    expect(timeBound('1w', NOW)).toBe('2025-03-03T12:00:00.000Z');
    expect(timeBound('now', NOW)).toBe('2025-03-10T12:00:00.000Z');
  });
  it('converts dates to UTC ISO 8601 with a zone, as the API requires', () => {
    expect(timeBound('2025-01-31T10:00:00+02:00', NOW)).toBe('2025-01-31T08:00:00.000Z');
    expect(timeBound('2025-01-31', NOW)).toBe('2025-01-31T00:00:00.000Z');
  });
  it('refuses what is neither, as a usage error (exit 2)', () => {
    expect(() => timeBound('yesterday', NOW)).toThrow(/neither a date/);
    try {
      timeBound('1 fortnight', NOW);
    } catch (error) {
      expect((error as CliError).exitCode).toBe(2);
    }
    expect.assertions(2);
  });
  it('reads durations only with a unit', () => {
    expect(durationMs('15m')).toBe(900_000);
    expect(durationMs('15')).toBeUndefined();
  });
});

const RULE = '0196a7c4-1f5e-7c3a-9b2d-4e8f6a1b2c3d';

describe('filterOf', () => {
  it('keeps only the given filters, in the API names', () => {
    expect(filterOf({}, NOW)).toEqual({});
    expect(isEmptyFilter(filterOf({}, NOW))).toBe(true);
    expect(
      filterOf(
        {
          search: 'x',
          status: 'failed',
          source: 'gh',
          rule: RULE,
          from: '1h',
          to: '2025-03-10T11:30:00Z',
          needsAttention: true,
        },
        NOW,
      ),
    ).toEqual({
      search: 'x',
      status: 'failed',
      source: 'gh',
      rule_id: RULE,
      from: '2025-03-10T11:00:00.000Z',
      to: '2025-03-10T11:30:00.000Z',
      needs_attention: 'true',
    });
  });
});
