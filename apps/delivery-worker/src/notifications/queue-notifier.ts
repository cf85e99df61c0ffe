import { randomUUID } from 'node:crypto';
import type { NotificationQueue } from '@relay/queue';
import type { Notifier } from './notifier';

/** The worker's Notifier: each notice becomes a `notice` job of the `maintenance` queue (notice.processor.ts sends it). */
export function createQueueNotifier(queue: Pick<NotificationQueue, 'enqueue'>, now: () => number = Date.now): Notifier {
  return (orgId, notice) =>
    queue.enqueue({ orgId, id: randomUUID(), type: notice.type, at: new Date(now()).toISOString(), data: notice.data });
}
