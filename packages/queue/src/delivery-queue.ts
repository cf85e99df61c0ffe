import type { RedisConnection } from './redis-connection';
import {
  JOBS,
  QUEUES,
  type DeliverJobData,
  type DeliverJobRequest,
  type DestinationJobData,
  type DestinationJobRequest,
} from './job-catalog';
import { createShardedQueues, deliveryQueuePrefix } from './queue-shards';

export interface DeliveryQueueOptions {
  connection: RedisConnection;
  /** QUEUE_PREFIX: each shard's keys are under `{<prefix>:dlv:<shard>}` (queue-shards.ts). */
  prefix: string;
  /** REDIS_QUEUE_SHARDS (default 1): an event's shard is its rule's, a destination delivery's its destination's. */
  shards?: number;
}

// Job id = event id, so enqueuing an event that already has a job is a no-op. Finished jobs are
// removed so a later re-run of the same event can enqueue it again.
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

/** A destination delivery's job id: its own id space beside the events' (BullMQ ids may not hold `:`). */
export const destinationJobId = (deliveryId: string) => `dest-${deliveryId}`;

const delayOf = (delayMs: number | undefined) => Math.max(0, Math.round(delayMs ?? 0));

export function createDeliveryQueue(options: DeliveryQueueOptions) {
  const sharded = createShardedQueues<DeliverJobData | DestinationJobData>(QUEUES.delivery, {
    connection: options.connection,
    shards: options.shards,
    prefixOf: (shard) => deliveryQueuePrefix(options.prefix, shard),
  });
  return {
    /** Every shard's queue, by shard number (queue views, metrics, tests). */
    queues: sharded.queues,
    /** The queue that holds the jobs of a rule's events (null: no rule) or of a destination's deliveries. */
    queueOf: sharded.queueOf,
    async enqueue(requests: readonly DeliverJobRequest[]): Promise<void> {
      if (requests.length === 0) return;
      await Promise.all(
        sharded
          .byShard(requests, (r) => r.ruleId)
          .map(([queue, group]) =>
            queue.addBulk(
              group.map(({ orgId, eventId, delayMs, trace }) => ({
                name: JOBS.deliver,
                data: trace ? { orgId, eventId, trace } : { orgId, eventId },
                opts: { ...JOB_OPTIONS, jobId: eventId, delay: delayOf(delayMs) },
              })),
            ),
          ),
      );
    },
    /** Destination deliveries' jobs (routing): idempotent like events' (job id = the delivery's). */
    async enqueueDestinations(requests: readonly DestinationJobRequest[]): Promise<void> {
      if (requests.length === 0) return;
      await Promise.all(
        sharded
          .byShard(requests, (r) => r.destinationId)
          .map(([queue, group]) =>
            queue.addBulk(
              group.map(({ orgId, deliveryId, eventId, delayMs, trace }) => ({
                name: JOBS.deliverDestination,
                data: { orgId, deliveryId, ...(eventId ? { eventId } : {}), ...(trace ? { trace } : {}) },
                opts: { ...JOB_OPTIONS, jobId: destinationJobId(deliveryId), delay: delayOf(delayMs) },
              })),
            ),
          ),
      );
    },
    /**
     * Jobs that will still run, over every shard of the current count: waiting, delayed, active (a job per queued
     * event, when nothing is lost). Jobs left in shards past the count are not counted, so the sweeper gives their
     * events jobs in their current shard once they are overdue (docs/operations.md "Queue shards").
     */
    async countPendingJobs(): Promise<number> {
      const counts = await Promise.all(
        sharded.queues.map((queue) => queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized')),
      );
      return counts.flatMap((c) => Object.values(c)).reduce((sum, n) => sum + n, 0);
    },
    close: sharded.close,
  };
}

export type DeliveryQueue = ReturnType<typeof createDeliveryQueue>;
