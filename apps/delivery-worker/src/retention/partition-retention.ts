import { classifyPartitions, partitionBoundTime } from '@relay/core';
import {
  createPartitionRepository,
  createPartitionRetentionRepository,
  type AttachedPartition,
  type OrganizationCutoffs,
  type PartitionRepository,
  type PartitionRetentionRepository,
  type RetentionOrganization,
} from '@relay/db';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { OrganizationPlan } from './retention-plan';

export interface PartitionRetirementDeps {
  partitions: Pick<PartitionRepository, 'listPartitions'>;
  repository: PartitionRetentionRepository;
  logger: Logger;
}

export interface PartitionRetirement {
  /** Partitions dropped (their events' names), oldest first. */
  dropped: string[];
  /** Events those partitions held: deleted with them. */
  droppedEvents: number;
  /** Past every cutoff, but holding a kept event: they stay, and their due rows go one by one. */
  kept: string[];
  /** Droppable, but a lock was not had in time (or another worker was dropping): the next run tries again. */
  busy: string[];
}

/** What retention's partition step would do with a partition past every cutoff (the dry run's report). */
export interface PlannedDrop {
  name: string;
  /** Its range by the ids' time; the first partition (from MINVALUE) starts at the epoch. */
  from: Date;
  to: Date;
  /** Its events retention keeps: none, it is dropped whole; any, it stays. */
  kept: number;
  action: 'drop' | 'stays';
}

const EPOCH = new Date(0);
// Oldest first: the first partition (no lower bound) before every other.
const byStart = (a: AttachedPartition, b: AttachedPartition) => (a.from ?? '').localeCompare(b.from ?? '');
// A partition's range by its ids' time (classifyPartitions' terms); the first partition's starts at the epoch.
const range = (p: AttachedPartition) => ({
  from: p.from ? partitionBoundTime(p.from) : EPOCH,
  to: partitionBoundTime(p.to!),
});

/**
 * Retention's first step (docs/partitioning.md, "Retention by detach, then drop"): every events partition whose whole
 * range is past every organization's cutoff (classifyPartitions) and holds no kept event is dropped with its
 * children's. A partition holding a kept event stays (an id never moves), and the row deletes that follow take its
 * due rows, as they take the edges'.
 */
export function createPartitionRetirement(deps: PartitionRetirementDeps) {
  async function droppable(organizations: readonly RetentionOrganization[], plans: readonly OrganizationPlan[]) {
    const byOrg = new Map(plans.map((p) => [p.organization.id, p.cutoffs]));
    const cutoffs: OrganizationCutoffs[] = plans.map((p) => ({ orgId: p.organization.id, ...p.cutoffs }));
    const family = await deps.partitions.listPartitions();
    // A partition up to MAXVALUE holds every future id: never past retention.
    const events = family.filter((p) => p.table === 'events' && p.to !== null).sort(byStart);
    const classified = classifyPartitions(
      events.map((p) => ({ suffix: p.name, ...range(p) })),
      organizations.map((o) => byOrg.get(o.id)?.before ?? null),
    );
    const partitions = events.filter((_, i) => classified[i]!.retention === 'droppable');
    return { cutoffs, family, partitions };
  }

  return {
    /** What `retire` would do now, without dropping anything. */
    async plan(
      organizations: readonly RetentionOrganization[],
      plans: readonly OrganizationPlan[],
    ): Promise<PlannedDrop[]> {
      if (plans.length === 0) return [];
      const { cutoffs, partitions } = await droppable(organizations, plans);
      const planned: PlannedDrop[] = [];
      for (const partition of partitions) {
        const kept = await deps.repository.countKept(cutoffs, partition);
        planned.push({ name: partition.name, ...range(partition), kept, action: kept > 0 ? 'stays' : 'drop' });
      }
      return planned;
    },

    /** Drops what `plan` says, oldest first; `stopping` is asked before each partition (shutdown). */
    async retire(
      organizations: readonly RetentionOrganization[],
      plans: readonly OrganizationPlan[],
      stopping: () => boolean = () => false,
    ): Promise<PartitionRetirement> {
      const result: PartitionRetirement = { dropped: [], droppedEvents: 0, kept: [], busy: [] };
      if (plans.length === 0) return result;
      const { cutoffs, family, partitions } = await droppable(organizations, plans);
      for (const partition of partitions) {
        if (stopping()) break;
        // The first count runs without any lock: a partition with kept rows (most often the same ones run after
        // run) costs its index walks, never the drop's locks.
        if ((await deps.repository.countKept(cutoffs, partition)) > 0) {
          result.kept.push(partition.name);
          continue;
        }
        const drop = await deps.repository.dropPartition(cutoffs, partition, family);
        if (drop.outcome === 'dropped') {
          result.dropped.push(partition.name);
          result.droppedEvents += drop.events;
        } else (drop.outcome === 'busy' ? result.busy : result.kept).push(partition.name);
      }
      if (result.dropped.length || result.busy.length)
        deps.logger.info({ partitions: result }, 'retention by partition');
      return result;
    },
  };
}

/** The partition step over a pool (the scheduled run and the dry run alike). */
export function partitionRetirementOf(pool: pg.Pool, logger: Logger) {
  return createPartitionRetirement({
    partitions: createPartitionRepository(pool),
    repository: createPartitionRetentionRepository(pool),
    logger,
  });
}

export type PartitionRetirer = ReturnType<typeof createPartitionRetirement>;
