export const WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type OverviewWindow = keyof typeof WINDOWS;

// One bar per bucket, 12 to 30 of them: wide enough to read and to click, and a bucket holds enough events that
// one quiet hour is not drawn as a cliff. The API's own default (the narrowest giving at most 300) is for machines.
export const BUCKET_OF = { '1h': '5m', '24h': '1h', '7d': '6h', '30d': '1d' } as const;
const BUCKET_MS = { '5m': 300_000, '1h': 3_600_000, '6h': 21_600_000, '1d': 86_400_000 } as const;

export interface WindowRange {
  from: string;
  to: string;
  bucket: (typeof BUCKET_OF)[OverviewWindow];
  bucketMs: number;
}

/**
 * The window ending where the bucket `now` falls in ends (in local time), so every bar covers a whole bucket that
 * starts on a round time (the hour, local midnight); the last bar is the bucket in progress.
 */
export function windowRange(window: OverviewWindow, now: number): WindowRange {
  const bucket = BUCKET_OF[window];
  const bucketMs = BUCKET_MS[bucket];
  const offset = new Date(now).getTimezoneOffset() * 60_000;
  const end = Math.ceil((now - offset + 1) / bucketMs) * bucketMs + offset;
  return {
    from: new Date(end - WINDOWS[window]).toISOString(),
    to: new Date(end).toISOString(),
    bucket,
    bucketMs,
  };
}

/** One bucket's span as the events list's `from`/`to`. */
export const bucketSpan = (start: string, bucketMs: number) => ({
  from: start,
  to: new Date(Date.parse(start) + bucketMs).toISOString(),
});

// Short axis labels: the time of day within a day, the date beyond.
export const bucketLabel = (iso: string, window: OverviewWindow) =>
  WINDOWS[window] <= WINDOWS['24h']
    ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : new Date(iso).toLocaleDateString([], {
        month: 'short',
        day: 'numeric',
        hour: window === '7d' ? '2-digit' : undefined,
      });

/** failed / (delivered + failed) of a bucket; null when nothing finished (no point rather than a false 0 %). */
export const failureRate = (c: { delivered: number; failed: number }) =>
  c.delivered + c.failed === 0 ? null : c.failed / (c.delivered + c.failed);

/**
 * Ticks of a count axis from 0: a round step (1, 2, 5 × 10^n, never below 1, since events are whole) and a top at
 * the first tick at or above the largest bar, so bars are drawn to scale against the ticks and not stretched.
 */
export function countTicks(max: number, wanted = 4): number[] {
  if (max <= 0) return [0, 1];
  const raw = Math.max(1, max / wanted);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks = [];
  for (let t = 0; t < max + step; t += step) ticks.push(t);
  return ticks;
}
