import type { EventStatus, OrgId } from '@relay/core';
import type pg from 'pg';

export interface StatsWindow {
  from: Date;
  to: Date;
  bucketSeconds: number;
}

type StatusCounts = Record<EventStatus, number>;

export interface StatsResult {
  byStatus: StatusCounts & { total: number; needsAttention: number };
  bySource: (StatusCounts & { source: string; total: number })[];
  latencyMs: { p50: number | null; p95: number | null; p99: number | null };
  series: (StatusCounts & { start: Date; total: number })[];
  byDestination: DestinationCounts[];
  /** Rules and destinations with failures in the window, the most failures first. */
  failingRules: FailingRule[];
  failingDestinations: FailingDestination[];
}

/** A rule's events of the window: how many failed (at its own target) of how many. */
export interface FailingRule {
  ruleId: string;
  name: string;
  source: string;
  targetUrl: string;
  total: number;
  delivered: number;
  failed: number;
}

/** A destination's deliveries of the window's events: how many failed of how many. */
export interface FailingDestination {
  destinationId: string;
  name: string;
  ruleId: string;
  targetUrl: string;
  total: number;
  delivered: number;
  failed: number;
}

/** One destination's deliveries of events created in the window (routing). */
export interface DestinationCounts {
  destinationId: string;
  name: string;
  ruleId: string;
  total: number;
  queued: number;
  delivered: number;
  failed: number;
  paused: number;
}

// Counts per status as SQL select items, shared by the three groupings.
const COUNTS = `count(*)::int AS total,
  count(*) FILTER (WHERE status = 'queued')::int AS queued,
  count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
  count(*) FILTER (WHERE status = 'failed')::int AS failed,
  count(*) FILTER (WHERE status = 'paused')::int AS paused,
  count(*) FILTER (WHERE status = 'ignored')::int AS ignored`;

// created_at holds UTC without a zone; the bounds are converted the same way.
const FROM = "($2::timestamptz AT TIME ZONE 'UTC')";
const TO = "($3::timestamptz AT TIME ZONE 'UTC')";
const WINDOW = `organization_id = $1 AND created_at >= ${FROM} AND created_at < ${TO}`;

/** How many sources `bySource` lists (the busiest first), and destinations `byDestination`. */
export const STATS_SOURCE_LIMIT = 100;

// Deliveries of the window's events (not deliveries made in the window: a retry does not move a delivery to
// another window), per destination, over the events' (organization_id, created_at) index and the deliveries'
// (event_id, destination_id) one. Both tables are scoped to the organization.
const BY_DESTINATION = `
SELECT v.destination_id AS "destinationId", d.name, d.provider_id AS "ruleId", count(*)::int AS total,
  count(*) FILTER (WHERE v.status = 'queued')::int AS queued,
  count(*) FILTER (WHERE v.status = 'delivered')::int AS delivered,
  count(*) FILTER (WHERE v.status = 'failed')::int AS failed,
  count(*) FILTER (WHERE v.status = 'paused')::int AS paused
FROM events e
JOIN deliveries v ON v.event_id = e.id AND v.organization_id = $1
JOIN destinations d ON d.id = v.destination_id AND d.organization_id = $1
WHERE e.organization_id = $1 AND e.created_at >= ${FROM} AND e.created_at < ${TO}
GROUP BY v.destination_id, d.name, d.provider_id
ORDER BY total DESC, d.name, v.destination_id LIMIT ${STATS_SOURCE_LIMIT}`;

/** How many rules and destinations the failing lists name. */
export const STATS_FAILING_LIMIT = 10;

// The rules whose events failed most, over the same (organization_id, created_at) index; a rule without a failure
// in the window is not "failing" and is left out (HAVING).
const FAILING_RULES = `
SELECT e.provider_id AS "ruleId", r.name, r.source, r.target_url AS "targetUrl", count(*)::int AS total,
  count(*) FILTER (WHERE e.status = 'delivered')::int AS delivered,
  count(*) FILTER (WHERE e.status = 'failed')::int AS failed
FROM events e JOIN providers r ON r.id = e.provider_id AND r.organization_id = $1
WHERE e.organization_id = $1 AND e.created_at >= ${FROM} AND e.created_at < ${TO}
GROUP BY e.provider_id, r.name, r.source, r.target_url
HAVING count(*) FILTER (WHERE e.status = 'failed') > 0
ORDER BY failed DESC, total DESC, r.name LIMIT ${STATS_FAILING_LIMIT}`;

const FAILING_DESTINATIONS = `
SELECT v.destination_id AS "destinationId", d.name, d.provider_id AS "ruleId", d.target_url AS "targetUrl",
  count(*)::int AS total, count(*) FILTER (WHERE v.status = 'delivered')::int AS delivered,
  count(*) FILTER (WHERE v.status = 'failed')::int AS failed
FROM events e
JOIN deliveries v ON v.event_id = e.id AND v.organization_id = $1
JOIN destinations d ON d.id = v.destination_id AND d.organization_id = $1
WHERE e.organization_id = $1 AND e.created_at >= ${FROM} AND e.created_at < ${TO}
GROUP BY v.destination_id, d.name, d.provider_id, d.target_url
HAVING count(*) FILTER (WHERE v.status = 'failed') > 0
ORDER BY failed DESC, total DESC, d.name LIMIT ${STATS_FAILING_LIMIT}`;

/** One rule's events created in the window, in total and per bucket (every bucket, empty ones as zeros). */
export interface RuleSeries extends StatusCounts {
  ruleId: string;
  total: number;
  series: (StatusCounts & { start: Date; total: number })[];
}

/** How many rules `summarizeRules` lists (the busiest first). */
export const STATS_RULE_LIMIT = 1000;

// Per rule and bucket, in one statement for the whole rules list: over the (organization_id, created_at) index,
// or the (organization_id, provider_id, created_at) one when a single rule is asked for.
const BY_RULE = (oneRule: boolean) => `
SELECT provider_id AS "ruleId", date_bin(make_interval(secs => $4::int), created_at, ${FROM}) AS start, ${COUNTS}
FROM events WHERE ${WINDOW} AND provider_id IS NOT NULL ${oneRule ? 'AND provider_id = $5::uuid' : ''}
GROUP BY 1, 2`;

const zeroCounts = (): StatusCounts & { total: number } => ({
  total: 0,
  queued: 0,
  delivered: 0,
  failed: 0,
  paused: 0,
  ignored: 0,
});
const KEYS = ['total', 'queued', 'delivered', 'failed', 'paused', 'ignored'] as const;

/** Rows of (rule, bucket) as one entry per rule with every bucket of the window, the busiest rule first. */
function ruleSeriesOf(rows: (StatusCounts & { ruleId: string; start: Date; total: number })[], window: StatsWindow) {
  const step = window.bucketSeconds * 1000;
  const starts: number[] = [];
  for (let t = window.from.getTime(); t < window.to.getTime(); t += step) starts.push(t);
  const byRule = new Map<string, RuleSeries>();
  for (const row of rows) {
    let rule = byRule.get(row.ruleId);
    if (!rule) {
      rule = {
        ruleId: row.ruleId,
        ...zeroCounts(),
        series: starts.map((t) => ({ start: new Date(t), ...zeroCounts() })),
      };
      byRule.set(row.ruleId, rule);
    }
    const bucket = rule.series[Math.floor((row.start.getTime() - window.from.getTime()) / step)];
    for (const key of KEYS) {
      rule[key] += row[key];
      if (bucket) bucket[key] += row[key];
    }
  }
  return [...byRule.values()]
    .sort((a, b) => b.total - a.total || a.ruleId.localeCompare(b.ruleId))
    .slice(0, STATS_RULE_LIMIT);
}

// Aggregates over events created in a window, for one organization. The window is bounded by the
// caller (the API caps it), and every statement uses the (organization_id, created_at) index.
export function createStatsRepository(pool: pg.Pool) {
  return {
    async summarize(orgId: OrgId, window: StatsWindow): Promise<StatsResult> {
      const params = [orgId, window.from.toISOString(), window.to.toISOString()];
      const [totals, sources, series, destinations, failingRules, failingDestinations] = await Promise.all([
        pool.query<
          StatusCounts & {
            total: number;
            needsAttention: number;
            p50: number | null;
            p95: number | null;
            p99: number | null;
          }
        >(
          `SELECT c.*, p.l[1] AS p50, p.l[2] AS p95, p.l[3] AS p99
           FROM (SELECT ${COUNTS},
                   count(*) FILTER (WHERE status = 'failed' AND acknowledged_at IS NULL)::int AS "needsAttention"
                 FROM events WHERE ${WINDOW}) AS c,
                (SELECT percentile_cont(ARRAY[0.5, 0.95, 0.99])
                   WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - created_at) * 1000) AS l
                 FROM events WHERE ${WINDOW} AND status = 'delivered') AS p`,
          params,
        ),
        pool.query<StatusCounts & { source: string; total: number }>(
          `SELECT source, ${COUNTS} FROM events WHERE ${WINDOW}
           GROUP BY source ORDER BY total DESC, source LIMIT ${STATS_SOURCE_LIMIT}`,
          params,
        ),
        pool.query<StatusCounts & { start: Date; total: number }>(
          `WITH buckets AS (
             SELECT generate_series(${FROM}, ${TO} - interval '1 microsecond', make_interval(secs => $4::int)) AS start
           ), counted AS (
             SELECT date_bin(make_interval(secs => $4::int), created_at, ${FROM}) AS start, ${COUNTS}
             FROM events WHERE ${WINDOW} GROUP BY 1
           )
           SELECT b.start, coalesce(c.total, 0) AS total, coalesce(c.queued, 0) AS queued,
             coalesce(c.delivered, 0) AS delivered, coalesce(c.failed, 0) AS failed,
             coalesce(c.paused, 0) AS paused, coalesce(c.ignored, 0) AS ignored
           FROM buckets b LEFT JOIN counted c USING (start) ORDER BY b.start`,
          [...params, window.bucketSeconds],
        ),
        pool.query<DestinationCounts>(BY_DESTINATION, params),
        pool.query<FailingRule>(FAILING_RULES, params),
        pool.query<FailingDestination>(FAILING_DESTINATIONS, params),
      ]);
      // Aggregates without GROUP BY always give one row.
      const row = totals.rows[0]!;
      const ms = (v: number | null) => (v === null ? null : Math.round(Number(v)));
      return {
        byStatus: {
          total: row.total,
          queued: row.queued,
          delivered: row.delivered,
          failed: row.failed,
          paused: row.paused,
          ignored: row.ignored,
          needsAttention: row.needsAttention,
        },
        bySource: sources.rows,
        latencyMs: { p50: ms(row.p50), p95: ms(row.p95), p99: ms(row.p99) },
        series: series.rows,
        byDestination: destinations.rows,
        failingRules: failingRules.rows,
        failingDestinations: failingDestinations.rows,
      };
    },

    /** Per rule (or the one `ruleId`), its events created in the window, in total and per bucket. */
    async summarizeRules(orgId: OrgId, window: StatsWindow, ruleId?: string): Promise<RuleSeries[]> {
      const params: unknown[] = [orgId, window.from.toISOString(), window.to.toISOString(), window.bucketSeconds];
      if (ruleId) params.push(ruleId);
      const rows = await pool.query<StatusCounts & { ruleId: string; start: Date; total: number }>(
        BY_RULE(ruleId !== undefined),
        params,
      );
      return ruleSeriesOf(rows.rows, window);
    },
  };
}

export type StatsRepository = ReturnType<typeof createStatsRepository>;
