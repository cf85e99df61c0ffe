import { partitionBoundTime, partitionsToEnsure, type PartitionPeriod } from '@relay/core';
import { PARTITIONED_TABLES, type AttachedPartition, type PartitionRepository } from '@relay/db';
import type { Logger } from 'pino';

const DAY_MS = 86_400_000;

export interface PartitionJobMetrics {
  /** Where the partitions end after a run; the metric is how far that is past now, at each scrape. */
  coveredUntil(until: Date): void;
}

export interface PartitionJobDeps {
  repository: Pick<PartitionRepository, 'ensurePartitions' | 'listPartitions' | 'analyzeParents'>;
  period: PartitionPeriod;
  /** PARTITION_AHEAD_DAYS: after a run, partitions exist through now + this many days. */
  aheadDays: number;
  logger: Logger;
  metrics?: PartitionJobMetrics;
  /** The clock (tests inject one). */
  now?: () => Date;
}

export interface PartitionRunResult {
  /** The partitions this run attached, events' first. */
  created: string[];
  /** The end of the newest partition every family table has: ingest can store ids up to this moment. */
  coveredUntil: Date | null;
  analyzed: boolean;
}

// The moment up to which every family table has a partition (the smallest of the tables' newest ends): an event
// whose attempts could not be stored is as stuck as one that could not be. Null: a table has none, or one reaches
// MAXVALUE (no moment to report).
function coveredUntil(partitions: readonly AttachedPartition[]): Date | null {
  const ends = PARTITIONED_TABLES.map((table) =>
    Math.max(
      ...partitions
        .filter((p) => p.table === table)
        .map((p) => (p.to === null ? Infinity : partitionBoundTime(p.to).getTime())),
    ),
  );
  const until = Math.min(...ends);
  return Number.isFinite(until) ? new Date(until) : null;
}

/**
 * The `partitions` maintenance job (docs/partitioning.md "Partitions created ahead"): after a run, every partition
 * from the current period through the ahead window exists, made days before ingest needs it, never at the boundary.
 * Once a day a run also analyses the parents (autovacuum never does). The last analysis is this process' own record:
 * with several workers each analyses about once a day, a bounded cost (docs/partitioning.md "ANALYZE of the parents").
 */
export function createPartitionJob(deps: PartitionJobDeps) {
  const now = deps.now ?? (() => new Date());
  let lastAnalyzed: number | undefined;
  let running: Promise<PartitionRunResult> | undefined;

  async function runOnce(analyzeIfDue: boolean): Promise<PartitionRunResult> {
    const at = now();
    const ranges = partitionsToEnsure(deps.period, () => at, deps.aheadDays * DAY_MS);
    const created = (await deps.repository.ensurePartitions(ranges)).map((p) => p.name);
    if (created.length) deps.logger.info({ created, period: deps.period }, 'partitions created ahead');
    const until = coveredUntil(await deps.repository.listPartitions());
    if (until) deps.metrics?.coveredUntil(until);
    const analyzed = analyzeIfDue && (lastAnalyzed === undefined || at.getTime() - lastAnalyzed >= DAY_MS);
    if (analyzed) {
      await deps.repository.analyzeParents();
      lastAnalyzed = at.getTime();
      deps.logger.info('partitioned parents analysed');
    }
    return { created, coveredUntil: until, analyzed };
  }

  return {
    /**
     * One run. `analyzeIfDue` false: partitions only (the run at worker start, so a restart, every deploy, does not
     * analyse the whole history again). Runs asked for while one is in progress share it.
     */
    run(options: { analyzeIfDue?: boolean } = {}): Promise<PartitionRunResult> {
      running ??= runOnce(options.analyzeIfDue ?? true).finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
