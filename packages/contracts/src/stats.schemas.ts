import { z } from 'zod';
import { dateTimeInput, timestamp } from './common.schemas';

/** Bucket widths a chart may ask for, in seconds. */
export const BUCKETS = { '1m': 60, '5m': 300, '15m': 900, '1h': 3600, '6h': 21_600, '1d': 86_400 } as const;
export type Bucket = keyof typeof BUCKETS;
export const DEFAULT_WINDOW_MS = 24 * 3600_000;
export const MAX_WINDOW_MS = 90 * 24 * 3600_000;
/** `bucket` omitted: the narrowest width giving at most this many buckets. */
export const AUTO_MAX_BUCKETS = 300;
/** `bucket` given: at most this many buckets, else a 400. */
export const MAX_BUCKETS = 1500;

export const statsQuery = z
  .object({
    from: dateTimeInput().optional().describe('Window start (inclusive), ISO 8601. Default: `to` minus 24 hours.'),
    to: dateTimeInput().optional().describe('Window end (exclusive), ISO 8601. Default: now.'),
    bucket: z
      .enum(Object.keys(BUCKETS) as [Bucket, ...Bucket[]])
      .optional()
      .describe(`Width of the series buckets. Default: the narrowest giving at most ${AUTO_MAX_BUCKETS} buckets.`),
  })
  .strict();

const countFields = {
  total: z.number().int(),
  queued: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  paused: z.number().int().describe('Waiting for their rule to be resumed (it is unhealthy).'),
  ignored: z.number().int().describe("Its rule's filter did not match (docs/routing.md)."),
};
export const deliveryStatsSchema = z.object({
  from: timestamp,
  to: timestamp,
  bucket: z.enum(Object.keys(BUCKETS) as [Bucket, ...Bucket[]]),
  bucket_seconds: z.number().int(),
  total: z.number().int().describe('Events created in the window.'),
  by_status: z.object({
    queued: z.number().int(),
    delivered: z.number().int(),
    failed: z.number().int(),
    paused: z.number().int(),
    ignored: z.number().int().describe("Its rule's filter did not match (docs/routing.md)."),
  }),
  needs_attention: z.number().int().describe('Failed and not acknowledged.'),
  success_rate: z
    .number()
    .nullable()
    .describe('delivered / (delivered + failed), 0..1; null when nothing has finished.'),
  latency_ms: z
    .object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() })
    .describe('From ingest to the successful delivery, over delivered events.'),
  by_source: z.array(z.object({ source: z.string(), ...countFields })).describe('The 100 busiest sources.'),
  by_destination: z
    .array(
      z.object({
        destination_id: z.uuid(),
        name: z.string(),
        rule_id: z.uuid(),
        total: z.number().int().describe('Deliveries of events created in the window.'),
        queued: z.number().int(),
        delivered: z.number().int(),
        failed: z.number().int(),
        paused: z.number().int(),
        success_rate: z.number().nullable().describe('delivered / (delivered + failed), 0..1; null if none finished.'),
      }),
    )
    .describe('Destination deliveries (docs/routing.md) per destination, the 100 busiest.'),
  top_failing: z
    .object({
      rules: z
        .array(
          z.object({
            rule_id: z.uuid(),
            name: z.string(),
            source: z.string(),
            target_url: z.string(),
            total: z.number().int().describe("The rule's events created in the window."),
            delivered: z.number().int(),
            failed: z.number().int().describe("Of them, failed at the rule's own target."),
            failure_rate: z.number().describe('failed / (delivered + failed), 0..1, as the success rate counts.'),
          }),
        )
        .describe('The 10 rules with the most failed events, the most first; rules without a failure are left out.'),
      destinations: z
        .array(
          z.object({
            destination_id: z.uuid(),
            name: z.string(),
            rule_id: z.uuid(),
            target_url: z.string(),
            total: z.number().int().describe('Deliveries of events created in the window.'),
            delivered: z.number().int(),
            failed: z.number().int(),
            failure_rate: z.number().describe('failed / (delivered + failed), 0..1, as the success rate counts.'),
          }),
        )
        .describe('The 10 destinations with the most failed deliveries (docs/routing.md), the most first.'),
    })
    .describe(
      'Where failures come from: GET /events?rule_id=…&status=failed and ?destination_id=…&delivery_status=failed list them.',
    ),
  series: z
    .array(z.object({ start: timestamp, ...countFields }))
    .describe('One entry per bucket from `from`, empty buckets included.'),
});

/** `GET /stats/rules` without `bucket`: the narrowest width giving at most this many buckets per rule. */
export const RULE_AUTO_MAX_BUCKETS = 48;

export const ruleStatsQuery = statsQuery
  .extend({
    bucket: statsQuery.shape.bucket.describe(
      `Width of each rule's series buckets. Default: the narrowest giving at most ${RULE_AUTO_MAX_BUCKETS} buckets ` +
        '(hourly over the default 24 hours).',
    ),
    rule_id: z.uuid().optional().describe('This rule alone; omitted: every rule that routed an event in the window.'),
  })
  .strict();

const ruleCountFields = {
  total: z.number().int(),
  queued: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  paused: z.number().int(),
  ignored: z.number().int(),
};
export const ruleStatsSchema = z.object({
  from: timestamp,
  to: timestamp,
  bucket: z.enum(Object.keys(BUCKETS) as [Bucket, ...Bucket[]]),
  bucket_seconds: z.number().int(),
  rules: z
    .array(
      z.object({
        rule_id: z.uuid(),
        ...ruleCountFields,
        series: z
          .array(z.object({ start: timestamp, ...ruleCountFields }))
          .describe('One entry per bucket from `from`, empty buckets included.'),
      }),
    )
    .describe(
      'Per rule, events it routed that were created in the window (a rule without any is left out), the busiest first.',
    ),
});
