import { createFairShare, fairShareLimits, type FairShare } from '@relay/core';
import type { WorkerConfig } from './config';

export interface FairGate {
  /** True: a slot of the origin is held until `release`. False: not its turn, re-queue the job. */
  acquire(origin: string): Promise<boolean>;
  /** `answered`: the delivery got a response; false for a time-out or a network failure (fair-share.ts). */
  release(origin: string, answered?: boolean): void;
  /** How long an event refused a slot waits before it asks again. */
  waitFor(origin: string): number;
}

// The worker's side of the fair share (packages/core/src/fair-share.ts). An event whose origin is at
// its limit but flowing (it freed a slot moments ago) waits here, briefly, for one of that origin's
// slots: re-queuing it would cost a round trip and delay it by the fair wait for a slot that frees
// within milliseconds. The wait is short so the job slot it holds soon looks at the queue again,
// where other targets' events may be waiting.
export function createFairGate(
  share: FairShare,
  waitMs: number,
  /** Told the slots held above the share after every change (fair-share.ts `excess`). */
  onExcess?: (excess: number) => void,
): FairGate {
  const waiters = new Map<string, (() => void)[]>();
  const wakeOne = (origin: string) => {
    const list = waiters.get(origin);
    const wake = list?.shift();
    if (list?.length === 0) waiters.delete(origin);
    wake?.();
  };
  return {
    async acquire(origin) {
      const admission = share.admit(origin);
      onExcess?.(share.excess());
      if (admission !== 'wait') return admission === 'go';
      await new Promise<void>((resolve) => {
        const list = waiters.get(origin) ?? [];
        waiters.set(origin, list);
        const timer = setTimeout(() => {
          const at = list.indexOf(wake);
          if (at >= 0) list.splice(at, 1);
          if (list.length === 0 && waiters.get(origin) === list) waiters.delete(origin);
          resolve();
        }, waitMs);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        list.push(wake);
      });
      const again = share.admit(origin);
      onExcess?.(share.excess());
      return again === 'go';
    },
    release(origin, answered) {
      share.release(origin, answered);
      onExcess?.(share.excess());
      wakeOne(origin);
    },
    waitFor: (origin) => share.waitFor(origin),
  };
}

// How long an event whose origin is at its limit but flowing waits in the worker for one of that
// origin's slots before it is re-queued.
const WAIT_MS = 50;

/**
 * The fairness of one worker process, from its settings, for the queue shards it consumes (REDIS_QUEUE_SHARDS): the
 * process's pool is split evenly between its shards, and each shard's BullMQ worker gets a fair share of its own
 * (`shard()`): its part of the pool, a reserve beyond it, and a gate that lets it raise its worker's jobs by the slots
 * an origin took while alone and still holds above its share (a hanging target, until its time-out).
 *
 * One gate for the whole process was wrong with several shards: a rule's events all go to one shard, whose worker
 * takes only its part of the jobs, so an origin alone (allowed the whole pool by a process-wide gate) could hold every
 * job of that shard, and another rule's events behind it on the same shard were never even seen (found by the
 * pipeline suite on a cluster, tests/cluster-suite).
 */
export function createWorkerFairness(
  config: Pick<
    WorkerConfig,
    | 'DELIVERY_CONCURRENCY'
    | 'DELIVERY_TARGET_SHARE_PERCENT'
    | 'DELIVERY_FAIR_RESERVE_PERCENT'
    | 'DELIVERY_FAIR_WAIT_MS'
    | 'DELIVERY_FAIR_WAIT_MAX_MS'
  >,
  shardCount = 1,
) {
  const options = {
    poolSize: Math.max(1, Math.ceil(config.DELIVERY_CONCURRENCY / Math.max(1, shardCount))),
    sharePercent: config.DELIVERY_TARGET_SHARE_PERCENT,
    reservePercent: config.DELIVERY_FAIR_RESERVE_PERCENT,
  };
  const jobs = fairShareLimits(options).jobs;
  return {
    /** Each shard's pool: what one origin alone may hold on that shard. */
    poolPerShard: options.poolSize,
    /** Each shard's worker's jobs: its pool and its reserve. */
    jobsPerShard: jobs,
    /** The fair share of one consumed shard: its gate, and `attach` for the BullMQ worker whose jobs it raises. */
    shard() {
      const share = createFairShare({
        ...options,
        // An origin still counts as waiting while its deferred events may come back.
        activeWindowMs: 2 * config.DELIVERY_FAIR_WAIT_MS + 1_000,
        waitMs: config.DELIVERY_FAIR_WAIT_MS,
        maxWaitMs: config.DELIVERY_FAIR_WAIT_MAX_MS,
        flowingMs: 2 * WAIT_MS,
      });
      let worker: { concurrency: number } | undefined;
      const gate = createFairGate(share, WAIT_MS, (excess) => {
        if (worker && worker.concurrency !== jobs + excess) worker.concurrency = jobs + excess;
      });
      return {
        gate,
        attach(target: { concurrency: number }) {
          worker = target;
        },
      };
    },
  };
}
