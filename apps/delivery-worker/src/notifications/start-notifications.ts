import type { TargetPolicy } from '@relay/core';
import { createNotificationRepository, type Database } from '@relay/db';
import { createNotificationQueue, type NoticeJobData } from '@relay/queue';
import type { Job } from 'bullmq';
import type { RedisConnection } from '@relay/queue';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
import type { Sender } from '../sender';
import { createFailureDigest, type DigestTotals } from './failure-digest';
import { createNoticeProcessor } from './notice.processor';
import type { Notifier } from './notifier';
import { createQueueNotifier } from './queue-notifier';

/** The job scheduler's id: every worker upserts the same one, so Redis holds one digest schedule. */
export const DIGEST_SCHEDULER_ID = 'failure-digest';

export interface NotificationsHandle {
  notify: Notifier;
  /** One digest run now (the scheduled job's handler); `at` stands in for the clock. */
  digestNow(at?: Date): Promise<DigestTotals>;
  /** Sends one notice job of the maintenance queue (its handler in maintenance-worker.ts). */
  sendNotice(job: Job<NoticeJobData>): Promise<unknown>;
  /** Resolves once the schedule's registration attempt settled. */
  registered(): Promise<void>;
  close(): Promise<void>;
}

export interface NotificationsDeps {
  db: Database;
  /** A producer connection (fails fast while Redis is down): the queue and the scheduler upsert. */
  producer: RedisConnection;
  sender: Sender;
  targetPolicy: TargetPolicy;
  logger: Logger;
}

// Notices to organizations' notification URLs: jobs of the `maintenance` queue, sent with retries,
// and the failure digest, a BullMQ job scheduler on the same queue (one job per slot across workers,
// upserted again on every reconnect, as retention-scheduler.ts does).
export function startNotifications(config: WorkerConfig, deps: NotificationsDeps): NotificationsHandle {
  const notifications = createNotificationRepository(deps.db.pool);
  const queue = createNotificationQueue({
    connection: deps.producer,
    prefix: config.QUEUE_PREFIX,
    attempts: config.NOTIFICATION_MAX_ATTEMPTS,
    backoffMs: config.NOTIFICATION_BACKOFF_MS,
  });
  const digest = createFailureDigest({
    notifications,
    enqueue: (notice) => queue.enqueue(notice),
    intervalMs: config.NOTIFICATION_DIGEST_INTERVAL_SECONDS * 1_000,
    logger: deps.logger,
  });
  const sendNotice = createNoticeProcessor({
    notifications,
    sender: deps.sender,
    targetPolicy: deps.targetPolicy,
    defaultSecret: config.DEFAULT_SIGNING_SECRET,
    keys: config.SECRET_ENCRYPTION_KEYS,
    logger: deps.logger,
  });

  let upserting: Promise<void> = Promise.resolve();
  const upsert = () => {
    upserting = queue
      .scheduleDigest(DIGEST_SCHEDULER_ID, config.NOTIFICATION_DIGEST_INTERVAL_SECONDS * 1_000)
      .catch((err: unknown) =>
        deps.logger.warn({ err }, 'failure digest schedule not registered; trying again when Redis reconnects'),
      );
    return upserting;
  };
  const onReady = () => void upsert();
  if (deps.producer.status === 'ready') onReady();
  deps.producer.on('ready', onReady);

  return {
    notify: createQueueNotifier(queue),
    digestNow: (at) => digest.runOnce(at),
    registered: () => upserting,
    sendNotice,
    async close() {
      deps.producer.off('ready', onReady);
      await queue.close().catch(() => {});
    },
  };
}
