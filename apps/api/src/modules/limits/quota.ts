import { AppError, type OrgId } from '@relay/core';
import type { AuditRepository, OrganizationRepository } from '@relay/db';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import { billingPeriodAt, type BillingPeriod } from './billing-period';

export interface QuotaDeps {
  redis: RedisConnection;
  prefix: string;
  organizations: Pick<OrganizationRepository, 'eventsCreatedBetween'>;
  audit: Pick<AuditRepository, 'record'>;
  logger: Logger;
  /** The clock: injected so tests can cross a period boundary. */
  now?: () => Date;
}

/** A webhook counted against the quota; `release` gives the count back when it was not stored after all. */
export interface Admission {
  release(): void;
}

// One round trip: refuse without counting once the period's count has reached the limit (the first refusal of the
// period also sets a marker, SET NX, so exactly one process audits it), else count it. A period Redis does not know
// yet answers -1 and is seeded from the database first. Replies: {1, count} counted, {0, count, first} refused.
const ADMIT = `
local count = redis.call('GET', KEYS[1])
if not count then return {-1, 0, 0} end
if tonumber(count) >= tonumber(ARGV[1]) then
  local first = redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2])
  return {0, tonumber(count), first and 1 or 0}
end
return {1, redis.call('INCR', KEYS[1]), 0}`;

// Counters outlive their period by an hour: api processes whose clocks run a little behind still find them.
const GRACE_MS = 3_600_000;

/**
 * The monthly event quota (organizations.monthly_event_limit), per billing period, counted in Redis: one key per
 * organization and period, so no database round trip per webhook. Exact across api processes (the count and the
 * check are one script); see docs/operations.md for the tolerance at period boundaries.
 */
export function createQuota(deps: QuotaDeps) {
  const now = deps.now ?? (() => new Date());
  // The key is one hash tag: ADMIT touches it and `<key>:exceeded`, which must share a Redis Cluster slot.
  const keyOf = (orgId: OrgId, period: BillingPeriod) => `{${deps.prefix}:quota:${orgId}:${period.end.getTime()}}`;
  const seeding = new Map<string, Promise<void>>();

  // The first webhook of a period (or the first after a limit was set) starts the count from the events the
  // database holds for the period; concurrent first webhooks of one process share the query, and SET NX lets
  // the first process's seed win.
  function seed(orgId: OrgId, key: string, period: BillingPeriod, ttlMs: number): Promise<void> {
    let running = seeding.get(key);
    if (!running) {
      running = deps.organizations
        .eventsCreatedBetween(orgId, period.start, period.end)
        .then(async (stored) => void (await deps.redis.set(key, String(stored), 'PX', ttlMs, 'NX')))
        .finally(() => seeding.delete(key));
      seeding.set(key, running);
    }
    return running;
  }

  function auditCrossing(orgId: OrgId, limit: number, period: BillingPeriod): void {
    deps.audit
      .record(orgId, {
        actorUserId: null,
        actorEmail: null,
        action: 'organization.quota_exceeded',
        resourceType: 'organization',
        resourceId: orgId,
        metadata: {
          monthly_event_limit: limit,
          period_start: period.start.toISOString(),
          period_end: period.end.toISOString(),
        },
      })
      .catch((err: unknown) => deps.logger.warn({ err, orgId }, 'quota: could not audit the crossing'));
  }

  return {
    /**
     * Counts one webhook against the organization's quota, or throws 429 `quota_exceeded` (with the period end and
     * Retry-After) when the period's quota is used up. Redis unreachable: the webhook passes uncounted.
     */
    async admit(orgId: OrgId, limit: number, currentPeriodEnd: Date | null): Promise<Admission | undefined> {
      const at = now();
      const period = billingPeriodAt(at, currentPeriodEnd);
      const key = keyOf(orgId, period);
      const ttlMs = period.end.getTime() - at.getTime() + GRACE_MS;
      let reply: [number, number, number];
      try {
        const run = async () => (await deps.redis.eval(ADMIT, 2, key, `${key}:exceeded`, limit, ttlMs)) as typeof reply;
        reply = await run();
        if (reply[0] === -1) {
          await seed(orgId, key, period, ttlMs);
          reply = await run();
        }
      } catch (err) {
        deps.logger.warn({ err, orgId }, 'quota: Redis not reachable; the webhook is accepted uncounted');
        return undefined;
      }
      if (reply[0] === 0) {
        if (reply[2] === 1) auditCrossing(orgId, limit, period);
        const retryAfter = Math.max(1, Math.ceil((period.end.getTime() - at.getTime()) / 1000));
        throw new AppError('quota_exceeded', `The quota of ${limit} events for this period is used up.`, {
          monthly_event_limit: limit,
          period_start: period.start.toISOString(),
          period_end: period.end.toISOString(),
          retry_after_seconds: retryAfter,
        });
      }
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          deps.redis.decr(key).catch(() => {});
        },
      };
    },

    /** The organization's usage in its current period: the quota counter when Redis has one, else the database's count. */
    async usage(orgId: OrgId, limits: { monthlyEventLimit: number | null; currentPeriodEnd: Date | null }) {
      const period = billingPeriodAt(now(), limits.currentPeriodEnd);
      // Without a limit nothing is counted in Redis (a counter left from an earlier limit would be stale).
      const counted =
        limits.monthlyEventLimit === null ? null : await deps.redis.get(keyOf(orgId, period)).catch(() => null);
      const events =
        counted !== null
          ? Number(counted)
          : await deps.organizations.eventsCreatedBetween(orgId, period.start, period.end);
      return {
        events_this_period: events,
        monthly_event_limit: limits.monthlyEventLimit,
        period_start: period.start.toISOString(),
        period_end: period.end.toISOString(),
      };
    },
  };
}

export type Quota = ReturnType<typeof createQuota>;
