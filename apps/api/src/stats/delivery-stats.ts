import { AppError, type OrgId } from '@relay/core';
import type { StatsRepository } from '@relay/db';
import type { z } from 'zod';
import {
  AUTO_MAX_BUCKETS,
  BUCKETS,
  DEFAULT_WINDOW_MS,
  MAX_BUCKETS,
  MAX_WINDOW_MS,
  type Bucket,
  type statsQuery,
  type statsResponse,
} from '../routes/stats.contract';

const invalid = (field: string, message: string) =>
  new AppError('validation_failed', 'The request is not valid.', { errors: [{ field, message }] });

/** Resolves the window and bucket of a `/stats` query; bad combinations are 400s naming the field. */
export function statsWindow(query: z.output<typeof statsQuery>, now: Date) {
  const to = query.to ? new Date(query.to) : now;
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_WINDOW_MS);
  const span = to.getTime() - from.getTime();
  if (span <= 0) throw invalid('from', 'must be before to');
  if (span > MAX_WINDOW_MS) throw invalid('from', 'the window is at most 90 days');
  const count = (b: Bucket) => Math.ceil(span / 1000 / BUCKETS[b]);
  const bucket = query.bucket ?? (Object.keys(BUCKETS) as Bucket[]).find((b) => count(b) <= AUTO_MAX_BUCKETS) ?? '1d';
  if (count(bucket) > MAX_BUCKETS)
    throw invalid(
      'bucket',
      `gives ${count(bucket)} buckets, at most ${MAX_BUCKETS}: choose a wider bucket or a shorter window`,
    );
  return { from, to, bucket, bucketSeconds: BUCKETS[bucket] };
}

/** `GET /stats`: what happened to the organization's events created in a window. */
export async function deliveryStats(
  stats: StatsRepository,
  orgId: OrgId,
  query: z.output<typeof statsQuery>,
  now: Date,
): Promise<z.output<typeof statsResponse>> {
  const window = statsWindow(query, now);
  const result = await stats.summarize(orgId, window);
  const { total, queued, delivered, failed, needsAttention } = result.byStatus;
  return {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    bucket: window.bucket,
    bucket_seconds: window.bucketSeconds,
    total,
    by_status: { queued, delivered, failed },
    needs_attention: needsAttention,
    success_rate: delivered + failed === 0 ? null : delivered / (delivered + failed),
    latency_ms: result.latencyMs,
    by_source: result.bySource,
    series: result.series.map(({ start, ...counts }) => ({ start: start.toISOString(), ...counts })),
  };
}
