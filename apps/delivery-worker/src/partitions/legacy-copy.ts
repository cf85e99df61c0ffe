import { partitionsCovering, type PartitionPeriod } from '@relay/core';
import type { PartitionCopyRepository, PartitionRepository } from '@relay/db';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

export interface LegacyCopyMetrics {
  /** Legacy events not moved yet (0 once the legacy partitions are gone). */
  setRemaining(count: number): void;
}

export interface LegacyCopyDeps {
  repository: PartitionCopyRepository;
  partitions: Pick<PartitionRepository, 'ensure' | 'analyzeParents'>;
  period: PartitionPeriod;
  /** PARTITION_COPY_BATCH_SIZE: events moved per statement (each its own short transaction). */
  batchSize: number;
  /** PARTITION_COPY_MAX_RUN_SECONDS, in ms: a run starts no batch after this long; the next run goes on. */
  maxRunMs: number;
  /** Pause between batches, leaving the database to ingest and deliveries. */
  pauseMs?: number;
  logger: Logger;
  metrics?: LegacyCopyMetrics;
  now?: () => Date;
}

export interface LegacyCopyResult {
  /** absent: nothing to copy (a fresh install after its first run, or done); busy: retention held the lock. */
  state: 'absent' | 'copying' | 'done' | 'busy';
  moved: number;
  remaining: number;
  durationMs: number;
}

/**
 * The online upgrade's background copy (docs/partitioning.md): the legacy partition's events, with their rows,
 * move to the partitions of their created_at in batches, oldest id first from a cursor; the partitions of the
 * legacy rows' periods are created first. Resumable: a run stopped anywhere leaves moved rows moved, and the next
 * run goes on with what is left. Once no legacy row is left, the legacy partitions are dropped and the parents
 * analysed. One process at a time (the partition maintenance lock, shared with retention's drops).
 */
export function createLegacyCopy(deps: LegacyCopyDeps) {
  const now = deps.now ?? (() => new Date());
  let stopping = false;

  async function copy(started: number): Promise<LegacyCopyResult> {
    const result = (state: LegacyCopyResult['state'], moved: number, remaining: number): LegacyCopyResult => {
      deps.metrics?.setRemaining(remaining);
      return { state, moved, remaining, durationMs: Math.round(performance.now() - started) };
    };
    const legacy = await deps.repository.state();
    if (legacy.state === 'absent') return result('absent', 0, 0);
    if (legacy.oldest) await deps.partitions.ensure(partitionsCovering(deps.period, legacy.oldest, now()));
    let remaining = legacy.remaining;
    deps.metrics?.setRemaining(remaining);
    let moved = 0;
    let cursor: string | null = null;
    let passMoved = 0;
    while (remaining > 0) {
      // The budget is checked once a batch has run: a run always makes progress, however slow its start.
      const outOfTime = moved > 0 && performance.now() - started >= deps.maxRunMs;
      if (stopping || outOfTime) return result('copying', moved, remaining);
      const batch = await deps.repository.moveBatch(cursor, deps.batchSize);
      moved += batch.moved;
      passMoved += batch.moved;
      remaining = Math.max(0, remaining - batch.moved);
      deps.metrics?.setRemaining(remaining);
      cursor = batch.lastId;
      if (cursor === null) {
        // The end of a pass: rows a delivery held were skipped; the next pass takes them. A pass that moved
        // nothing re-reads what is left (rows may have been deleted by retention meanwhile).
        if (passMoved === 0) {
          const again = await deps.repository.state();
          if (again.state === 'absent') return result('done', moved, 0);
          remaining = again.remaining;
          if (remaining > 0) await sleep(1_000);
        }
        passMoved = 0;
      }
      if (deps.pauseMs) await sleep(deps.pauseMs);
    }
    const dropped = await deps.repository.dropLegacy();
    if (dropped === 'dropped' || dropped === 'absent') {
      await deps.partitions.analyzeParents();
      deps.logger.info({ moved }, 'legacy partitions copied out and dropped: the upgrade is complete');
      return result('done', moved, 0);
    }
    return result('copying', moved, 0);
  }

  return {
    async run(): Promise<LegacyCopyResult> {
      const started = performance.now();
      const outcome = await deps.repository.withLock(() => copy(started));
      if (outcome === null) return { state: 'busy', moved: 0, remaining: -1, durationMs: 0 };
      if (outcome.moved > 0 || outcome.state === 'copying')
        deps.logger.info({ copy: outcome }, 'legacy partition copy');
      return outcome;
    },
    stop() {
      stopping = true;
    },
  };
}

export type LegacyCopy = ReturnType<typeof createLegacyCopy>;
