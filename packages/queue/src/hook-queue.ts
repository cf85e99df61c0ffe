import type { RedisConnection } from './redis-connection';
import { JOBS, QUEUES, type HookJobData } from './job-catalog';
import { createShardedQueues, hookQueuePrefix } from './queue-shards';

// Job id = event, run and hook: enqueuing the same hook twice for one outcome is a no-op. Finished
// jobs are kept for a while so that holds for late duplicates too.
const JOB_OPTIONS = { removeOnComplete: { age: 3_600 }, removeOnFail: { age: 86_400 } } as const;

/** A hook job and the rule whose outcome fired it: the rule picks the shard, as for its deliveries. */
export interface HookJobRequest extends HookJobData {
  ruleId: string;
}

export function createHookQueue(options: { connection: RedisConnection; prefix: string; shards?: number }) {
  const sharded = createShardedQueues<HookJobData>(QUEUES.hooks, {
    connection: options.connection,
    shards: options.shards,
    prefixOf: (shard) => hookQueuePrefix(options.prefix, shard),
  });
  return {
    queues: sharded.queues,
    async enqueue(jobs: readonly HookJobRequest[]): Promise<void> {
      await Promise.all(
        sharded
          .byShard(jobs, (job) => job.ruleId)
          .map(([queue, group]) =>
            queue.addBulk(
              group.map(({ ruleId: _ruleId, ...data }) => ({
                name: JOBS.hook,
                data,
                opts: { ...JOB_OPTIONS, jobId: `${data.eventId}-${data.run}-${data.hookId}` },
              })),
            ),
          ),
      );
    },
    close: sharded.close,
  };
}

export type HookQueue = ReturnType<typeof createHookQueue>;
