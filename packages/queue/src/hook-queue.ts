import { Queue } from 'bullmq';
import type { RedisConnection } from './redis-connection';
import { JOBS, QUEUES, type HookJobData } from './job-catalog';

// Job id = event, run and hook: enqueuing the same hook twice for one outcome is a no-op. Finished
// jobs are kept for a while so that holds for late duplicates too.
const JOB_OPTIONS = { removeOnComplete: { age: 3_600 }, removeOnFail: { age: 86_400 } } as const;

export function createHookQueue(options: { connection: RedisConnection; prefix: string }) {
  const queue = new Queue<HookJobData>(QUEUES.hooks, { connection: options.connection, prefix: options.prefix });
  // The queue's errors are its connection's, which redis-connection.ts already absorbs; enqueue
  // failures reach the caller as rejected promises.
  queue.on('error', () => {});
  return {
    queue,
    async enqueue(jobs: readonly HookJobData[]): Promise<void> {
      if (jobs.length === 0) return;
      await queue.addBulk(
        jobs.map((data) => ({
          name: JOBS.hook,
          data,
          opts: { ...JOB_OPTIONS, jobId: `${data.eventId}-${data.run}-${data.hookId}` },
        })),
      );
    },
    close: () => queue.close(),
  };
}

export type HookQueue = ReturnType<typeof createHookQueue>;
