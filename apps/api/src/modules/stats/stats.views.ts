import type { Bucket, deliveryStatsSchema, ruleStatsSchema } from '@relay/contracts';
import type { RuleSeries, StatsResult } from '@relay/db';
import type { z } from 'zod';

export interface ResolvedWindow {
  from: Date;
  to: Date;
  bucket: Bucket;
  bucketSeconds: number;
}

// A failing entry has a failure, so the rate is never 0 / 0.
const failureRate = (c: { delivered: number; failed: number }) => c.failed / (c.delivered + c.failed);

/** The statistics of a window as `GET /stats` shows them. */
export function statsView(window: ResolvedWindow, result: StatsResult): z.output<typeof deliveryStatsSchema> {
  const { total, queued, delivered, failed, paused, ignored, needsAttention } = result.byStatus;
  return {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    bucket: window.bucket,
    bucket_seconds: window.bucketSeconds,
    total,
    by_status: { queued, delivered, failed, paused, ignored },
    needs_attention: needsAttention,
    success_rate: delivered + failed === 0 ? null : delivered / (delivered + failed),
    latency_ms: result.latencyMs,
    by_source: result.bySource,
    by_destination: result.byDestination.map((d) => ({
      destination_id: d.destinationId,
      name: d.name,
      rule_id: d.ruleId,
      total: d.total,
      queued: d.queued,
      delivered: d.delivered,
      failed: d.failed,
      paused: d.paused,
      success_rate: d.delivered + d.failed === 0 ? null : d.delivered / (d.delivered + d.failed),
    })),
    top_failing: {
      rules: result.failingRules.map((r) => ({
        rule_id: r.ruleId,
        name: r.name,
        source: r.source,
        target_url: r.targetUrl,
        total: r.total,
        delivered: r.delivered,
        failed: r.failed,
        failure_rate: failureRate(r),
      })),
      destinations: result.failingDestinations.map((d) => ({
        destination_id: d.destinationId,
        name: d.name,
        rule_id: d.ruleId,
        target_url: d.targetUrl,
        total: d.total,
        delivered: d.delivered,
        failed: d.failed,
        failure_rate: failureRate(d),
      })),
    },
    series: result.series.map(({ start, ...counts }) => ({ start: start.toISOString(), ...counts })),
  };
}

/** Per rule, its events of a window as `GET /stats/rules` shows them. */
export function ruleStatsView(window: ResolvedWindow, rules: RuleSeries[]): z.output<typeof ruleStatsSchema> {
  return {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    bucket: window.bucket,
    bucket_seconds: window.bucketSeconds,
    rules: rules.map(({ ruleId, series, ...counts }) => ({
      rule_id: ruleId,
      ...counts,
      series: series.map(({ start, ...bucket }) => ({ start: start.toISOString(), ...bucket })),
    })),
  };
}
