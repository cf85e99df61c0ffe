/** A billing period: events created after `start` and up to `end` count against the monthly quota. */
export interface BillingPeriod {
  start: Date;
  end: Date;
}

/** The same instant `months` calendar months earlier, the day clamped to the shorter month (Mar 31 → Feb 28/29). */
export function monthsBefore(at: Date, months: number): Date {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(at.getUTCDate(), lastDay);
  return new Date(
    Date.UTC(year, month, day, at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds(), at.getUTCMilliseconds()),
  );
}

// The period an organization is billed for at `now`, always (start, end] so every instant has exactly one:
// - while its current_period_end (set by operators) lies ahead: (end - 1 calendar month, end], where `end` is
//   current_period_end or, when that is more than a month away, the monthly step before it that is the first
//   to lie ahead (a period end set three months out still bills month by month);
// - otherwise the calendar month in UTC: a period end operators forget to move on falls back to calendar
//   months instead of counting forever.
export function billingPeriodAt(now: Date, currentPeriodEnd: Date | null): BillingPeriod {
  const at = now.getTime();
  if (currentPeriodEnd && currentPeriodEnd.getTime() > at) {
    let months = 0;
    // Stepping from the original end each time keeps its day of the month (Mar 31 → Feb 29 → Jan 31).
    while (monthsBefore(currentPeriodEnd, months + 1).getTime() >= at) months++;
    return { start: monthsBefore(currentPeriodEnd, months + 1), end: monthsBefore(currentPeriodEnd, months) };
  }
  // The first instant of a month closes the month before it: (start, end] like operator periods.
  const inMonth = new Date(at - 1);
  const start = new Date(Date.UTC(inMonth.getUTCFullYear(), inMonth.getUTCMonth(), 1));
  return { start, end: new Date(Date.UTC(inMonth.getUTCFullYear(), inMonth.getUTCMonth() + 1, 1)) };
}
