import { Cluster } from 'ioredis';
import { Queue, type Job } from 'bullmq';
import { QUEUES } from './job-catalog';
import type { RedisConnection } from './redis-connection';

// Releases before the queue shards kept BullMQ's keys untagged: `<QUEUE_PREFIX>:hooks:*`, `:maintenance:*`,
// `:deliveries:*`. Queued deliveries left there are found by the sweeper (their events are queued in Postgres), but
// hook jobs and notices have no such row: without this step, those waiting at the upgrade were never run. Their jobs
// move once, at worker start, to the tagged queues, with their ids, options and what is left of their delay.
// Only jobs no worker holds are moved (waiting, delayed, prioritized; a paused queue's too): a job an old worker still runs stays
// its, and each job is removed before it is added again, so two new workers starting at once never both add it. A
// Redis Cluster never had untagged queues (BullMQ's scripts failed there with CROSSSLOT): nothing to do.

const MOVABLE = ['waiting', 'delayed', 'prioritized'] as const;
const PAGE = 500;

export interface UntaggedTarget {
  /** Where an untagged queue's jobs go: a hook job to the hook queue (shard 0: its rule is not in its data). */
  add(job: Pick<Job, 'name' | 'data' | 'opts' | 'id'>, delayMs: number): Promise<unknown>;
}

export interface UntaggedMove {
  hooks: number;
  maintenance: number;
}

/** Moves the hook and maintenance jobs waiting under the untagged keys of `prefix` to `targets`. */
export async function moveUntaggedJobs(options: {
  connection: RedisConnection;
  prefix: string;
  targets: { hooks: UntaggedTarget; maintenance: UntaggedTarget };
  now?: () => number;
}): Promise<UntaggedMove> {
  if (options.connection instanceof Cluster) return { hooks: 0, maintenance: 0 };
  const now = options.now ?? Date.now;
  const moveQueue = async (name: string, target: UntaggedTarget): Promise<number> => {
    const old = new Queue(name, { connection: options.connection, prefix: options.prefix });
    old.on('error', () => {});
    let moved = 0;
    try {
      for (let skipped = 0; ;) {
        const jobs = (await old.getJobs([...MOVABLE], skipped, skipped + PAGE - 1)).filter((job): job is Job =>
          Boolean(job?.id),
        );
        if (jobs.length === 0) return moved;
        for (const job of jobs) {
          // A scheduler's next run (retention, the digest): the new worker schedules its own; this one stays behind.
          if (job.repeatJobKey) {
            skipped++;
            continue;
          }
          const dueAt = job.timestamp + (job.opts.delay ?? 0);
          // A job an old worker took meanwhile is locked: it stays, and is not added a second time.
          const removed = await job.remove().then(
            () => true,
            () => false,
          );
          if (!removed) {
            skipped++;
            continue;
          }
          await target.add(job, Math.max(0, dueAt - now()));
          moved++;
        }
        if (jobs.length < PAGE) return moved;
      }
    } finally {
      await old.close().catch(() => {});
    }
  };
  return {
    hooks: await moveQueue(QUEUES.hooks, options.targets.hooks),
    maintenance: await moveQueue(QUEUES.maintenance, options.targets.maintenance),
  };
}

/** A tagged queue as a target: the job again, with its id, its options and what is left of its delay. */
export function queueTarget(queue: Queue): UntaggedTarget {
  return {
    add: (job, delayMs) => {
      const { delay: _delay, ...opts } = job.opts;
      return queue.add(job.name, job.data, { ...opts, jobId: job.id, delay: delayMs });
    },
  };
}
