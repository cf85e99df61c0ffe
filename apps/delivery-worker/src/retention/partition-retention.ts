import { classifyPartitions } from '@relay/core';
import {
  createPartitionRepository,
  createPartitionRetentionRepository,
  type OrganizationCutoffs,
  type PartitionRepository,
  type PartitionRetentionRepository,
  type RetentionOrganization,
} from '@relay/db';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { WorkerConfig } from '../config';
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
/** What retention's partition step would do with a partition past every cutoff (the dry run's report). */
export interface PlannedDrop {
  name: string;
  from: Date;
  to: Date;
  /** Its events that retention keeps: moved out first, or (past RETENTION_MOVE_MAX_ROWS) the reason it stays. */
  kept: number;
  action: 'drop' | 'move_then_drop' | 'stays';
}

export function createPartitionRetirement(deps: PartitionRetirementDeps) {
  /** The events partitions whose whole range is past every organization's cutoff, with the family's partitions. */
  async function droppable(organizations: readonly RetentionOrganization[], plans: readonly OrganizationPlan[]) {
    const byOrg = new Map(plans.map((p) => [p.organization.id, p.cutoffs]));
    const cutoffs: OrganizationCutoffs[] = plans.map((p) => ({ orgId: p.organization.id, ...p.cutoffs }));
    const family = await deps.partitions.list();
    const events = family.filter((p) => p.table === 'events' && p.from !== null);
    const classified = classifyPartitions(
      events.map((p) => ({ suffix: p.name, from: p.from!, to: p.to })),
      organizations.map((o) => byOrg.get(o.id)?.before ?? null),
    );
    const partitions = classified
      .filter((range) => range.retention === 'droppable')
      .map((range) => events.find((p) => p.name === range.suffix)!);
    return { cutoffs, family, partitions };
  }

  return {
    /** What `retire` would do now, without moving or dropping anything. */
    async plan(
      organizations: readonly RetentionOrganization[],
      plans: readonly OrganizationPlan[],
    ): Promise<PlannedDrop[]> {
      if (plans.length === 0) return [];
      const { cutoffs, partitions } = await droppable(organizations, plans);
      const planned: PlannedDrop[] = [];
      for (const partition of partitions) {
        const kept = await deps.repository.countKept(cutoffs, partition);
        const action = kept > deps.moveMaxRows ? 'stays' : kept > 0 ? 'move_then_drop' : 'drop';
        planned.push({ name: partition.name, from: partition.from!, to: partition.to, kept, action });
      }
      return planned;
    },

    async retire(
      organizations: readonly RetentionOrganization[],
      plans: readonly OrganizationPlan[],
    ): Promise<PartitionRetirement> {
      const result: PartitionRetirement = { dropped: [], droppedEvents: 0, moved: 0, kept: [], busy: [] };
      if (plans.length === 0) return result;
      const { cutoffs, family, partitions } = await droppable(organizations, plans);
      for (const partition of partitions) {
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

/** The partition step over a pool, with the worker's settings (the scheduled run and the dry run alike). */
export function partitionRetirementOf(
  pool: pg.Pool,
  config: Pick<WorkerConfig, 'RETENTION_MOVE_MAX_ROWS' | 'RETENTION_BATCH_SIZE'>,
  logger: Logger,
) {
  return createPartitionRetirement({
    partitions: createPartitionRepository(pool),
    repository: createPartitionRetentionRepository(pool),
    logger,
    moveMaxRows: config.RETENTION_MOVE_MAX_ROWS,
    batchSize: config.RETENTION_BATCH_SIZE,
  });
}

export type PartitionRetirer = ReturnType<typeof createPartitionRetirement>;
