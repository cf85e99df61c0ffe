import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOBS, QUEUES, type DeliverJobData, type DeliverJobRequest } from './job-catalog';

export interface DeliveryQueueOptions {
  connection: Redis;
  prefix: string;
}

// Job id = event id, so enqueuing an event that already has a job is a no-op. Finished jobs are
// removed so a later re-run of the same event can enqueue it again.
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export function createDeliveryQueue(options: DeliveryQueueOptions) {
  const queue = new Queue<DeliverJobData>(QUEUES.delivery, { connection: options.connection, prefix: options.prefix });
  // The queue's errors are its connection's, which redis-connection.ts already absorbs; enqueue
  // failures reach the caller as rejected promises.
  queue.on('error', () => {});
  return {
    queue,
    async enqueue(requests: readonly DeliverJobRequest[]): Promise<void> {
      if (requests.length === 0) return;
      await queue.addBulk(
        requests.map(({ orgId, eventId, delayMs }) => ({
          name: JOBS.deliver,
          data: { orgId, eventId },
          opts: { ...JOB_OPTIONS, jobId: eventId, delay: Math.max(0, Math.round(delayMs ?? 0)) },
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
