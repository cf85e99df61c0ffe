import { Text } from '@mantine/core';
import { useSyncExternalStore } from 'react';

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

/** How often the shared clock ticks: "3 seconds ago" has to move on every second. */
export const TICK_MS = 1_000;

// One clock for every relative time on the page, not a timer per row: it runs while something shows a relative
// time, and each subscriber re-renders only when its own text changes (useSyncExternalStore compares snapshots).
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;
let now = Date.now();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === undefined) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

// While the clock is stopped (nothing subscribed yet), a first render reads a fresh time, at most a tick old.
function currentNow(): number {
  if (timer === undefined && Date.now() - now >= TICK_MS) now = Date.now();
  return now;
}

/** `relativeTime(iso)` that moves on with the shared clock. */
export function useRelativeTime(iso: string): string {
  return useSyncExternalStore(subscribe, () => relativeTime(iso, currentNow()));
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
  return <Ticking iso={iso} />;
}

function Ticking({ iso }: { iso: string }) {
  const text = useRelativeTime(iso);
  // The absolute time is written on first hover: formatting 200 locale dates up front costs the page's first render.
  return (
    <time
      dateTime={iso}
      onPointerEnter={(e) => {
        e.currentTarget.title ||= new Date(iso).toLocaleString();
      }}
    >
      {text}
    </time>
  );
}
