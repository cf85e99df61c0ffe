import { AppError, type Principal } from '@relay/core';
import {
  AUTO_MAX_BUCKETS,
  BUCKETS,
  DEFAULT_WINDOW_MS,
  MAX_BUCKETS,
  MAX_WINDOW_MS,
  RULE_AUTO_MAX_BUCKETS,
  type Bucket,
  type ruleStatsQuery,
  type statsQuery,
} from '@relay/contracts';
import type { ReadRepositories } from '@relay/db';
import type { z } from 'zod';
import { ruleStatsView, statsView } from './stats.views';

export interface StatsServiceDeps {
  /** The read side (a read replica's, when one is set): stats are history that may trail the primary. */
  repositories: Pick<ReadRepositories, 'stats'>;
  now?: () => Date;
}

type StatsQuery = z.output<typeof statsQuery>;
type RuleStatsQuery = z.output<typeof ruleStatsQuery>;

const invalid = (field: string, message: string) =>
  new AppError('validation_failed', 'The request is not valid.', { errors: [{ field, message }] });

/** Resolves the window and bucket of a `/stats` query; bad combinations are 400s naming the field. */
export function statsWindow(query: StatsQuery, now: Date, autoMaxBuckets = AUTO_MAX_BUCKETS) {
  const to = query.to ? new Date(query.to) : now;
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_WINDOW_MS);
  const span = to.getTime() - from.getTime();
  if (span <= 0) throw invalid('from', 'must be before to');
  if (span > MAX_WINDOW_MS) throw invalid('from', 'the window is at most 90 days');
  const count = (b: Bucket) => Math.ceil(span / 1000 / BUCKETS[b]);
  const bucket = query.bucket ?? (Object.keys(BUCKETS) as Bucket[]).find((b) => count(b) <= autoMaxBuckets) ?? '1d';
  if (count(bucket) > MAX_BUCKETS)
    throw invalid(
      'bucket',
      `gives ${count(bucket)} buckets, at most ${MAX_BUCKETS}: choose a wider bucket or a shorter window`,
    );
  return { from, to, bucket, bucketSeconds: BUCKETS[bucket] };
}

// Delivery statistics: what happened to the organization's events created in a window.
export function createStatsService(deps: StatsServiceDeps) {
  const now = deps.now ?? (() => new Date());
  return {
    async summary(principal: Principal, query: StatsQuery) {
      const window = statsWindow(query, now());
      return statsView(window, await deps.repositories.stats.summarize(principal.orgId, window));
    },

    /** Per rule, a series short enough for a chart in each row of the rules list (hourly over 24 hours). */
    async byRule(principal: Principal, query: RuleStatsQuery) {
      const { rule_id: ruleId, ...rest } = query;
      const window = statsWindow(rest, now(), RULE_AUTO_MAX_BUCKETS);
      return ruleStatsView(window, await deps.repositories.stats.summarizeRules(principal.orgId, window, ruleId));
    },
  };
}
