import { Queue } from 'bullmq';
import type { RedisConnection } from './redis-connection';
import {
  JOBS,
  QUEUES,
  type DeliverJobData,
  type DeliverJobRequest,
  type DestinationJobData,
  type DestinationJobRequest,
} from './job-catalog';

export interface DeliveryQueueOptions {
  connection: RedisConnection;
  prefix: string;
}

// Job id = event id, so enqueuing an event that already has a job is a no-op. Finished jobs are
// removed so a later re-run of the same event can enqueue it again.
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

/** A destination delivery's job id: its own id space beside the events' (BullMQ ids may not hold `:`). */
export const destinationJobId = (deliveryId: string) => `dest-${deliveryId}`;

export function createDeliveryQueue(options: DeliveryQueueOptions) {
  const queue = new Queue<DeliverJobData | DestinationJobData>(QUEUES.delivery, {
    connection: options.connection,
    prefix: options.prefix,
  });
  // The queue's errors are its connection's, which redis-connection.ts already absorbs; enqueue
  // failures reach the caller as rejected promises.
  queue.on('error', () => {});
  return {
    queue,
    async enqueue(requests: readonly DeliverJobRequest[]): Promise<void> {
      if (requests.length === 0) return;
      await queue.addBulk(
        requests.map(({ orgId, eventId, delayMs, trace }) => ({
          name: JOBS.deliver,
          data: trace ? { orgId, eventId, trace } : { orgId, eventId },
          opts: { ...JOB_OPTIONS, jobId: eventId, delay: Math.max(0, Math.round(delayMs ?? 0)) },
        })),
      );
    },
    /** Destination deliveries' jobs (routing): idempotent like events' (job id = the delivery's). */
    async enqueueDestinations(requests: readonly DestinationJobRequest[]): Promise<void> {
      if (requests.length === 0) return;
      await queue.addBulk(
        requests.map(({ orgId, deliveryId, delayMs, trace }) => ({
          name: JOBS.deliverDestination,
          data: trace ? { orgId, deliveryId, trace } : { orgId, deliveryId },
          opts: { ...JOB_OPTIONS, jobId: destinationJobId(deliveryId), delay: Math.max(0, Math.round(delayMs ?? 0)) },
        })),
      );
    },
    /** Jobs that will still run: waiting, delayed, active (a job per queued event, when nothing is lost). */
    async countPendingJobs(): Promise<number> {
      const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      return Object.values(counts).reduce((sum, n) => sum + n, 0);
    },
    close: () => queue.close(),
  };
}

export type DeliveryQueue = ReturnType<typeof createDeliveryQueue>;
