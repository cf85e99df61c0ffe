import type { NotificationRepository } from '@relay/db';
import type { NoticeJobData } from '@relay/queue';
import type { Logger } from 'pino';

/** Events a digest lists; `count` says how many failed in all. */
export const DIGEST_MAX_EVENTS = 50;

// Failures are stamped with their transaction's start time (now()): one that began just before a digest's
// end may commit after the digest read. Ending the digest this long before its slot leaves them to the next.
export const DIGEST_SETTLE_MS = 30_000;

export interface FailureDigestDeps {
  notifications: Pick<NotificationRepository, 'digestOrganizations' | 'failedBetween' | 'advanceDigest'>;
  enqueue: (notice: NoticeJobData) => Promise<void>;
  /** NOTIFICATION_DIGEST_INTERVAL_SECONDS in ms: a digest ends at the start of its slot. */
  intervalMs: number;
  logger: Logger;
}

export interface DigestTotals {
  organizations: number;
  notices: number;
}

/**
 * The `events.failed` digest: for each organization with a notification URL, the events that failed
 * since its last digest (organizations.failure_digest_until). A digest ends at its slot's start (less
 * the settle time), so every run of one slot, on any worker, builds the same notice with the same id
 * (one job), and the mark moves only from where that run found it, after the notice is queued: a crash
 * in between sends the failures again next slot rather than never.
 */
export function createFailureDigest(deps: FailureDigestDeps) {
  return {
    async runOnce(at: Date = new Date()): Promise<DigestTotals> {
      const slotStart = Math.floor(at.getTime() / deps.intervalMs) * deps.intervalMs;
      const until = new Date(slotStart - DIGEST_SETTLE_MS);
      const totals: DigestTotals = { organizations: 0, notices: 0 };
      for (const org of await deps.notifications.digestOrganizations()) {
        totals.organizations++;
        const since = org.digestUntil;
        // No mark (notices turned on outside the API): the digest starts here.
        if (since === null) {
          await deps.notifications.advanceDigest(org.id, null, until);
          continue;
        }
        if (until.getTime() <= since.getTime()) continue;
        const failed = await deps.notifications.failedBetween(org.id, since, until, DIGEST_MAX_EVENTS);
        if (failed.count > 0) {
          await deps.enqueue({
            orgId: org.id,
            id: `digest-${org.id}-${since.getTime()}-${until.getTime()}`,
            type: 'events.failed',
            at: until.toISOString(),
            data: {
              count: failed.count,
              since: since.toISOString(),
              until: until.toISOString(),
              events: failed.events.map((e) => ({
                id: e.id,
                source: e.source,
                failure_reason: e.failureReason,
                last_error: e.lastError,
              })),
            },
          });
          totals.notices++;
        }
        await deps.notifications.advanceDigest(org.id, since, until);
      }
      if (totals.notices > 0) deps.logger.info(totals, 'failure digests queued');
      return totals;
    },
  };
}
