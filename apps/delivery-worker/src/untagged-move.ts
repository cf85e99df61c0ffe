import {
  maintenanceQueuePrefix,
  moveUntaggedJobs,
  QUEUES,
  queueTarget,
  type HookQueue,
  type RedisConnection,
} from '@relay/queue';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';

/**
 * At worker start, once: hook jobs and notices left under the untagged keys of a release before the queue shards go
 * to the tagged queues (packages/queue/src/untagged-queues.ts). Failing is not fatal: it is tried at the next start.
 */
export async function moveUntaggedAtStart(deps: {
  connection: RedisConnection;
  prefix: string;
  hookQueue: HookQueue;
  logger: Logger;
}): Promise<void> {
  const maintenance = new Queue(QUEUES.maintenance, {
    connection: deps.connection,
    prefix: maintenanceQueuePrefix(deps.prefix),
  });
  maintenance.on('error', () => {});
  try {
    const moved = await moveUntaggedJobs({
      connection: deps.connection,
      prefix: deps.prefix,
      targets: { hooks: queueTarget(deps.hookQueue.queues[0]!), maintenance: queueTarget(maintenance) },
    });
    if (moved.hooks + moved.maintenance > 0)
      deps.logger.warn(moved, 'moved hook jobs and notices waiting under the untagged keys of an older release');
  } catch (err) {
    deps.logger.warn({ err }, 'untagged hook jobs and notices not moved; trying again at the next start');
  } finally {
    await maintenance.close().catch(() => {});
  }
}
