import { billingPeriodAt, monthsBefore } from './billing-period';

const at = (iso: string) => new Date(iso);
const period = (now: string, end: string | null) => {
  const p = billingPeriodAt(at(now), end === null ? null : at(end));
  return { start: p.start.toISOString(), end: p.end.toISOString() };
};

describe('billing periods', () => {
  it('is the calendar month in UTC without a current_period_end, its first instant closing the month before', () => {
    expect(period('2026-03-10T12:00:00.000Z', null)).toEqual({
      start: '2026-03-01T00:00:00.000Z',
      end: '2026-04-01T00:00:00.000Z',
    });
    expect(period('2026-04-01T00:00:00.000Z', null).end).toBe('2026-04-01T00:00:00.000Z');
    expect(period('2026-04-01T00:00:00.001Z', null).start).toBe('2026-04-01T00:00:00.000Z');
    expect(period('2026-12-31T23:59:59.999Z', null).end).toBe('2027-01-01T00:00:00.000Z');
  });

  it('is the calendar month before current_period_end while that lies ahead', () => {
    expect(period('2026-03-10T12:00:00.000Z', '2026-03-15T08:00:00.000Z')).toEqual({
      start: '2026-02-15T08:00:00.000Z',
      end: '2026-03-15T08:00:00.000Z',
    });
    // An end months away bills month by month, keeping its day of the month.
    expect(period('2026-02-10T00:00:00.000Z', '2026-03-31T00:00:00.000Z')).toEqual({
      start: '2026-01-31T00:00:00.000Z',
      end: '2026-02-28T00:00:00.000Z',
    });
    // A past end: calendar months again.
    expect(period('2026-03-20T00:00:00.000Z', '2026-03-15T00:00:00.000Z').start).toBe('2026-03-01T00:00:00.000Z');
  });

  it('clamps the day to the shorter month', () => {
    expect(monthsBefore(at('2024-03-31T10:00:00.000Z'), 1).toISOString()).toBe('2024-02-29T10:00:00.000Z');
    expect(monthsBefore(at('2026-01-31T00:00:00.000Z'), 1).toISOString()).toBe('2025-12-31T00:00:00.000Z');
  });
});
