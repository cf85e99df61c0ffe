import type { DeliveryRepository, EventSweepRepository, QueuedDeliveryRef, QueuedEventRef } from '@relay/db';
import type { DeliveryQueue } from '@relay/queue';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';

export interface SweeperDeps {
  sweep: EventSweepRepository;
  /** Destination deliveries (routing): swept like events, their jobs on the same queue. */
  deliveries?: Pick<DeliveryRepository, 'findOverdue' | 'findQueuedPage' | 'countQueued'>;
  queue: DeliveryQueue;
  redis: RedisConnection;
  /** Redis key prefix shared with the queue; the epoch marker lives beside the queue's keys. */
  prefix: string;
  graceMs: number;
  logger: Logger;
  pageSize?: number;
  now?: () => number;
}

// Nothing is lost between Postgres and Redis: the sweeper gives every `queued` event and destination delivery
// (routing) a job again.
// - Overdue events (their next attempt is past by more than the grace period) are re-enqueued: the
//   enqueue failed after commit, or a job vanished. Enqueue is idempotent (job id = event id). This
//   runs only when Redis holds fewer pending jobs than Postgres has queued events: during a long
//   backlog every event is overdue but has its job, and re-adding them all would be pure waste.
// - An epoch key lives in the queue's Redis. When it is missing, Redis lost its data (restarted
//   empty), so every queued event is re-enqueued with the delay its next attempt time still asks for.
export function createSweeper(deps: SweeperDeps) {
  const now = deps.now ?? Date.now;
  const pageSize = deps.pageSize ?? 500;
  const epochKey = `${deps.prefix}:relay:epoch`;

  async function enqueuePage(refs: QueuedEventRef[]): Promise<void> {
    const at = now();
    await deps.queue.enqueue(
      refs.map((ref) => ({
        orgId: ref.organizationId,
        eventId: ref.id,
        ruleId: ref.ruleId,
        delayMs: Math.max(0, (ref.nextAttemptAt?.getTime() ?? at) - at),
      })),
    );
  }

  async function enqueueDeliveries(refs: QueuedDeliveryRef[]): Promise<void> {
    const at = now();
    await deps.queue.enqueueDestinations(
      refs.map((ref) => ({
        orgId: ref.organizationId,
        deliveryId: ref.id,
        eventId: ref.eventId,
        destinationId: ref.destinationId,
        delayMs: Math.max(0, (ref.nextAttemptAt?.getTime() ?? at) - at),
      })),
    );
  }

  async function sweepAll<R extends { id: string }>(
    fetch: (afterId?: string) => Promise<R[]>,
    enqueue: (page: R[]) => Promise<void>,
  ): Promise<number> {
    let count = 0;
    let afterId: string | undefined;
    for (;;) {
      const page = await fetch(afterId);
      if (page.length === 0) return count;
      await enqueue(page);
      count += page.length;
      afterId = page[page.length - 1]!.id;
      if (page.length < pageSize) return count;
    }
  }

  return {
    async runOnce(): Promise<{ full: boolean; enqueued: number }> {
      const fresh = (await deps.redis.set(epochKey, String(now()), 'NX')) === 'OK';
      if (fresh) {
        const deliveries = deps.deliveries;
        const enqueued =
          (await sweepAll((afterId) => deps.sweep.findQueuedPage(pageSize, afterId), enqueuePage)) +
          (deliveries
            ? await sweepAll((afterId) => deliveries.findQueuedPage(pageSize, afterId), enqueueDeliveries)
            : 0);
        if (enqueued > 0)
          deps.logger.warn(
            { enqueued },
            'queue state was missing (new or emptied Redis); re-enqueued every queued event',
          );
        return { full: true, enqueued };
      }
      const [queued, queuedDeliveries, pending] = await Promise.all([
        deps.sweep.countQueued(),
        deps.deliveries?.countQueued() ?? 0,
        deps.queue.countPendingJobs(),
      ]);
      if (pending >= queued + queuedDeliveries) return { full: false, enqueued: 0 };
      const dueBefore = new Date(now() - deps.graceMs);
      const deliveries = deps.deliveries;
      const enqueued =
        (await sweepAll((afterId) => deps.sweep.findOverdue(dueBefore, pageSize, afterId), enqueuePage)) +
        (deliveries
          ? await sweepAll((afterId) => deliveries.findOverdue(dueBefore, pageSize, afterId), enqueueDeliveries)
          : 0);
      if (enqueued > 0) deps.logger.info({ enqueued }, 'sweeper re-enqueued overdue events');
      return { full: false, enqueued };
    },
  };
}
