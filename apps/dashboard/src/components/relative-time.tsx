import { Text } from '@mantine/core';

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];
const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "3 minutes ago" relative to `now`. */
export function relativeTime(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of units)
    if (Math.abs(diff) >= ms || unit === 'second') return format.format(Math.round(diff / ms), unit);
  return iso;
}

/**
 * A relative time with the absolute timestamp on hover (the native `title`, and in the `datetime` attribute). Not a
 * Mantine Tooltip: the events page shows 200 of these, and a floating tooltip per row cost most of its render time.
 */
export function RelativeTime({ iso }: { iso: string | null }) {
  if (!iso)
    return (
      <Text span c="dimmed">
        —
      </Text>
    );
  const absolute = new Date(iso).toLocaleString();
  return (
    <time dateTime={iso} title={absolute}>
      {relativeTime(iso)}
    </time>
  );
}
