import type { OrgId } from '@relay/core';
import type { EventCutoffs, RetentionRepository } from '@relay/db';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { PartitionRetirer } from './partition-retention';
import { auditCutoff, planEventRetention, type RetentionSettings } from './retention-plan';

/** Counters for the metrics endpoint (the worker's metrics implement it; optional). */
export interface RetentionMetrics {
  deleted(table: string, count: number): void;
  run(outcome: 'ok' | 'failed'): void;
}

export interface RetentionDeps {
  repository: RetentionRepository;
  settings: RetentionSettings;
  logger: Logger;
  /** Rows per statement (RETENTION_BATCH_SIZE). */
  batchSize: number;
  /** A run stops starting batches after this long (RETENTION_MAX_RUN_SECONDS); the next run goes on. */
  maxRunMs: number;
  metrics?: RetentionMetrics;
  /** The clock that decides what is old (tests move it); the run's time budget uses the real clock. */
  now?: () => Date;
  /** Pause between batches, so retention never holds the database for long stretches. */
  pauseMs?: number;
  /** Whole partitions past retention dropped first (partition-retention.ts); absent: rows only. */
  partitions?: Pick<PartitionRetirer, 'retire'>;
}

export interface RetentionTotals {
  events: number;
  attempts: number;
  searchPending: number;
  auditEntries: number;
  /** Deduplication keys whose window had passed (deleted whatever the retention settings say). */
  dedupKeys: number;
  /** Organizations whose events were due for retention in this run. */
  organizations: number;
  /** History partitions dropped whole (their events are counted in `events`). */
  partitionsDropped: number;
  batches: number;
  /** False when the time budget ran out (or the worker stopped) with rows still due. */
  complete: boolean;
  durationMs: number;
}

interface Cursor {
  orgId: OrgId;
  cutoffs: EventCutoffs;
  /** Where the organization's next batch starts: the creation time its previous one reached (absent: the start). */
  from?: Date;
}

// Deletes what retention says is old, in small batches: one statement per batch, each its own short
// transaction that locks at most RETENTION_BATCH_SIZE rows (SKIP LOCKED: never waits for a delivery).
// Organizations take turns, one batch each per round, so a large organization cannot use the whole time
// budget while a small one waits; then expired deduplication keys, then audit entries. A pause between
// batches leaves the database to ingest and deliveries.
export function createRetentionRun(deps: RetentionDeps) {
  const now = deps.now ?? (() => new Date());
  const pauseMs = deps.pauseMs ?? 10;
  let running: Promise<RetentionTotals> | undefined;
  let stopping = false;

  function count(table: string, rows: number): void {
    if (rows > 0) deps.metrics?.deleted(table, rows);
  }

  async function run(at: Date): Promise<RetentionTotals> {
    const started = performance.now();
    // The budget is checked once a batch has run: a run always makes progress, however slow its start.
    const outOfTime = () => stopping || (totals.batches > 0 && performance.now() - started >= deps.maxRunMs);
    const totals: RetentionTotals = {
      events: 0,
      attempts: 0,
      searchPending: 0,
      auditEntries: 0,
      dedupKeys: 0,
      organizations: 0,
      partitionsDropped: 0,
      batches: 0,
      complete: false,
      durationMs: 0,
    };
    const between = async () => {
      totals.batches++;
      await sleep(pauseMs);
    };

    const organizations = await deps.repository.listOrganizations();
    const plans = planEventRetention(organizations, deps.settings, at);
    totals.organizations = plans.length;
    if (deps.partitions) {
      // Whole partitions first: what they drop, the row deletes below no longer walk. Those deletes then take the
      // due rows of the edge partitions and of those a kept event holds back.
      const retired = await deps.partitions.retire(organizations, plans, () => stopping);
      totals.partitionsDropped = retired.dropped.length;
      // A dropped partition's events are deleted as surely as a batch's: counted the same (its children are not
      // counted one by one: the drop does not read them).
      totals.events += retired.droppedEvents;
      count('events', retired.droppedEvents);
    }
    let active: Cursor[] = plans.map((p) => ({ orgId: p.organization.id, cutoffs: p.cutoffs }));
    while (active.length > 0) {
      const next: Cursor[] = [];
      let interrupted = false;
      for (const cursor of active) {
        if (outOfTime()) {
          interrupted = true;
          break;
        }
        const batch = await deps.repository.deleteEventBatch(cursor.orgId, cursor.cutoffs, deps.batchSize, cursor.from);
        totals.events += batch.events;
        totals.attempts += batch.attempts;
        totals.searchPending += batch.searchPending;
        count('events', batch.events);
        count('delivery_attempts', batch.attempts);
        count('event_search_pending', batch.searchPending);
        if (batch.events >= deps.batchSize && batch.reached) next.push({ ...cursor, from: batch.reached });
        await between();
      }
      // Organizations not reached (the budget ran out) still have due events: the run is incomplete.
      if (interrupted || (next.length > 0 && outOfTime())) return finish(totals, started, false);
      active = next;
    }

    // Expired deduplication keys are no user data: they go on every run, retention settings or not.
    for (;;) {
      if (outOfTime()) return finish(totals, started, false);
      const deleted = await deps.repository.deleteExpiredDedupBatch(at, deps.batchSize);
      totals.dedupKeys += deleted;
      count('event_dedup', deleted);
      await between();
      if (deleted < deps.batchSize) break;
    }

    const auditBefore = auditCutoff(deps.settings, at);
    if (auditBefore) {
      for (;;) {
        if (outOfTime()) return finish(totals, started, false);
        const deleted = await deps.repository.deleteAuditBatch(auditBefore, deps.batchSize);
        totals.auditEntries += deleted;
        count('audit_entries', deleted);
        await between();
        if (deleted < deps.batchSize) break;
      }
    }
    return finish(totals, started, true);
  }

  function finish(totals: RetentionTotals, started: number, complete: boolean): RetentionTotals {
    return { ...totals, complete, durationMs: Math.round(performance.now() - started) };
  }

  async function runLogged(at: Date): Promise<RetentionTotals> {
    try {
      const totals = await run(at);
      deps.metrics?.run('ok');
      const level = totals.events + totals.auditEntries + totals.dedupKeys > 0 || !totals.complete ? 'info' : 'debug';
      deps.logger[level]({ retention: totals }, totals.complete ? 'retention run done' : 'retention run stopped early');
      return totals;
    } catch (err) {
      deps.metrics?.run('failed');
      deps.logger.warn({ err }, 'retention run failed; the next run goes on');
      throw err;
    }
  }

  return {
    /** One run now (at the injected clock's time, or `at`); a call during a run joins it. */
    runOnce(at?: Date): Promise<RetentionTotals> {
      running ??= runLogged(at ?? now()).finally(() => (running = undefined));
      return running;
    },
    /** Ends a run in progress after its current batch (shutdown); later runs are refused. */
    async stop(): Promise<void> {
      stopping = true;
      await running?.catch(() => {});
    },
  };
}

export type RetentionRun = ReturnType<typeof createRetentionRun>;
