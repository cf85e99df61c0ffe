import { Queue } from 'bullmq';
import type { RedisConnection } from './redis-connection';
import { JOBS, QUEUES, type NoticeJobData } from './job-catalog';
import { maintenanceQueuePrefix } from './queue-shards';

export interface NotificationQueueOptions {
  connection: RedisConnection;
  /** QUEUE_PREFIX: the queue's keys are under `{<prefix>:mnt}` (queue-shards.ts). */
  prefix: string;
  /** Tries per notice (the first included) before it is given up. */
  attempts: number;
  /** The first retry's delay; each next one doubles. */
  backoffMs: number;
}

// Job id = notice id: queuing the same notice twice (two workers of one digest slot) sends it once.
// Finished jobs are kept for a day so that holds for late duplicates too.
const KEEP = { removeOnComplete: { age: 86_400 }, removeOnFail: { age: 7 * 86_400 } } as const;

// The scheduled failure digest's jobs carry nothing: the database says what failed.
type NotificationJobData = NoticeJobData | Record<string, never>;

export function createNotificationQueue(options: NotificationQueueOptions) {
  const queue = new Queue<NotificationJobData>(QUEUES.maintenance, {
    connection: options.connection,
    prefix: maintenanceQueuePrefix(options.prefix),
  });
  // The queue's errors are its connection's (redis-connection.ts absorbs them); enqueue failures reject.
  queue.on('error', () => {});
  return {
    queue,
    async enqueue(notice: NoticeJobData): Promise<void> {
      await queue.add(JOBS.notice, notice, {
        ...KEEP,
        jobId: notice.id,
        attempts: options.attempts,
        backoff: { type: 'exponential', delay: options.backoffMs },
      });
    },
    /** One failure-digest job every `everyMs`; every worker upserts the same scheduler id, so Redis holds one. */
    async scheduleDigest(schedulerId: string, everyMs: number): Promise<void> {
      await queue.upsertJobScheduler(
        schedulerId,
        { every: everyMs },
        { name: JOBS.failureDigest, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
      );
    },
    close: () => queue.close(),
  };
}

export type NotificationQueue = ReturnType<typeof createNotificationQueue>;
