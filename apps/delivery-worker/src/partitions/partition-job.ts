import { partitionsToEnsure, type PartitionPeriod } from '@relay/core';
import type { PartitionRepository } from '@relay/db';
import type { Logger } from 'pino';

const DAY_MS = 86_400_000;

export interface PartitionJobMetrics {
  /** How far the newest partition of every family table reaches past now (negative: ingest is failing). */
  setAheadSeconds(seconds: number): void;
}

export interface PartitionJobDeps {
  repository: Pick<PartitionRepository, 'ensure' | 'coveredUntil' | 'analyzeParents'>;
  period: PartitionPeriod;
  /** PARTITION_AHEAD_DAYS: the partitions through now + this many days exist after a run. */
  aheadDays: number;
  logger: Logger;
  metrics?: PartitionJobMetrics;
  /** The clock (tests inject one). */
  now?: () => Date;
}

export interface PartitionRunResult {
  created: string[];
  aheadSeconds: number | null;
  analyzed: boolean;
}

/**
 * The `partitions` maintenance job (docs/partitioning.md "Partitions created ahead"): every partition from the
 * current period through the ahead window exists after it, created days before ingest needs it, never at the
 * boundary; with `analyze`, the parents' statistics are gathered too (autovacuum never analyses a parent).
 */
export function createPartitionJob(deps: PartitionJobDeps) {
  const now = deps.now ?? (() => new Date());
  return {
    async run(options: { analyze?: boolean } = {}): Promise<PartitionRunResult> {
      const at = now();
      const { created } = await deps.repository.ensure(
        partitionsToEnsure(deps.period, () => at, deps.aheadDays * DAY_MS),
      );
      if (created.length) deps.logger.info({ created, period: deps.period }, 'partitions created ahead');
      const until = await deps.repository.coveredUntil();
      const aheadSeconds = until ? Math.round((until.getTime() - at.getTime()) / 1000) : null;
      if (aheadSeconds !== null) deps.metrics?.setAheadSeconds(aheadSeconds);
      if (options.analyze) await deps.repository.analyzeParents();
      return { created, aheadSeconds, analyzed: options.analyze ?? false };
    },
  };
}

export type PartitionJob = ReturnType<typeof createPartitionJob>;
