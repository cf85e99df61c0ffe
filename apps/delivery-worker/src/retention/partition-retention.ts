import { classifyPartitions } from '@relay/core';
import type {
  OrganizationCutoffs,
  PartitionRepository,
  PartitionRetentionRepository,
  RetentionOrganization,
} from '@relay/db';
import type { Logger } from 'pino';
import type { OrganizationPlan } from './retention-plan';

export interface PartitionRetirementDeps {
  partitions: Pick<PartitionRepository, 'list'>;
  repository: PartitionRetentionRepository;
  logger: Logger;
  /** RETENTION_MOVE_MAX_ROWS: a partition keeping more rows than this stays (its due rows go one by one). */
  moveMaxRows: number;
  /** RETENTION_BATCH_SIZE: kept rows moved per statement. */
  batchSize: number;
}

export interface PartitionRetirement {
  /** Partitions dropped (their events' names). */
  dropped: string[];
  /** Events those partitions held: deleted with them. */
  droppedEvents: number;
  /** Kept events moved out of partitions before those were dropped. */
  moved: number;
  /** Droppable by time, but holding more kept rows than RETENTION_MOVE_MAX_ROWS: left to the row deletes. */
  kept: string[];
  /** Droppable, but a lock was not had in time (or the upgrade's copy ran): the next run tries again. */
  busy: string[];
}

/**
 * Retention's first step (docs/partitioning.md): every partition whose whole range is past every organization's
 * cutoff is dropped with its children's, once none of its rows is kept; a few kept rows (queued, paused,
 * ordering-blocked, unacknowledged failures, changed since) are moved to the current partition first, never lost.
 * Partitions at the edges, and those keeping many rows, are left to the row-by-row deletes that follow.
 */
export function createPartitionRetirement(deps: PartitionRetirementDeps) {
  return {
    async retire(
      organizations: readonly RetentionOrganization[],
      plans: readonly OrganizationPlan[],
    ): Promise<PartitionRetirement> {
      const result: PartitionRetirement = { dropped: [], droppedEvents: 0, moved: 0, kept: [], busy: [] };
      if (plans.length === 0) return result;
      const byOrg = new Map(plans.map((p) => [p.organization.id, p.cutoffs]));
      const cutoffs: OrganizationCutoffs[] = plans.map((p) => ({ orgId: p.organization.id, ...p.cutoffs }));
      const family = await deps.partitions.list();
      const events = family.filter((p) => p.table === 'events' && p.from !== null);
      const classified = classifyPartitions(
        events.map((p) => ({ suffix: p.name, from: p.from!, to: p.to })),
        organizations.map((o) => byOrg.get(o.id)?.before ?? null),
      );
      for (const range of classified) {
        if (range.retention !== 'droppable') continue;
        const partition = events.find((p) => p.name === range.suffix)!;
        let kept = await deps.repository.countKept(cutoffs, partition);
        if (kept > deps.moveMaxRows) {
          result.kept.push(partition.name);
          continue;
        }
        while (kept > 0) {
          const moved = await deps.repository.moveKept(cutoffs, partition, Math.min(kept, deps.batchSize));
          if (moved === 0) break;
          result.moved += moved;
          kept -= moved;
        }
        const drop = await deps.repository.dropPartition(cutoffs, partition, family);
        if (drop.outcome === 'dropped') {
          result.dropped.push(partition.name);
          result.droppedEvents += drop.events;
        } else if (drop.outcome === 'busy') result.busy.push(partition.name);
        else result.kept.push(partition.name);
      }
      if (result.dropped.length || result.busy.length || result.kept.length)
        deps.logger.info({ partitions: result }, 'retention by partition');
      return result;
    },
  };
}

export type PartitionRetirer = ReturnType<typeof createPartitionRetirement>;
