import type { AttemptOutcome } from '@relay/core';
import type { Job } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PartitionJobMetrics } from '../partitions/partition-job';

/** What the retention job reports: the shape retention/retention-run.ts accepts. */
interface RetentionMetrics {
  deleted(table: string, count: number): void;
  run(outcome: 'ok' | 'failed'): void;
}

/** An attempt's answer in five classes, plus `none` when no request went out (blocked, no target, relay fault). */
type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'network' | 'none';
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';
/** The `delivery` label: the rule's own target (or the default one), or one of its destinations (routing). */
export type DeliveryKind = 'primary' | 'destination';

/** What the delivery processors report (the primary's, and the destinations'). */
export interface DeliveryMetrics {
  /** One delivery outcome; `durationMs` null when no request went out. */
  delivery(
    orgId: string,
    outcome: DeliveryOutcome,
    statusClass: StatusClass,
    durationMs: number | null,
    kind: DeliveryKind,
  ): void;
  /** Ingest (the event's created_at) to delivered, in milliseconds. */
  deliveredAfter(ms: number, kind: DeliveryKind): void;
}

/** What a queue must answer to be measured (a BullMQ Queue does). */
interface MeasuredQueue {
  name: string;
  getJobCounts(...types: JobState[]): Promise<Record<string, number>>;
  getWaiting(start?: number, end?: number): Promise<Pick<Job, 'timestamp' | 'processedOn'>[]>;
}

interface WorkerMetricsOptions {
  /** METRICS_ORGANIZATION_LABELS: delivery counters get an `organization` label. */
  organizationLabels: boolean;
  pool: { totalCount: number; idleCount: number; waitingCount: number };
  /** Queues whose depth and oldest waiting job are read from Redis at each scrape. */
  queues: () => readonly MeasuredQueue[];
  /** Node's process metrics; off in tests that build many runtimes. */
  defaultMetrics?: boolean;
  now?: () => number;
}

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;
type JobState = (typeof JOB_STATES)[number];
// Seconds; a target has DELIVERY_TIMEOUT_MS (15 s by default) to answer.
const ATTEMPT_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];
// Seconds from ingest to delivered: milliseconds when all is well, up to the retry schedule's hours.
const LATENCY_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400, 86_400];
const HOOK_OUTCOMES = ['delivered', 'retry', 'failed', 'skipped', 'deferred'] as const;
type HookOutcome = (typeof HOOK_OUTCOMES)[number];

export function statusClassOf(outcome: AttemptOutcome | null): StatusClass {
  if (outcome === null || outcome.kind === 'blocked' || outcome.kind === 'invalid_target') return 'none';
  if (outcome.kind === 'network') return 'network';
  if (outcome.status >= 200 && outcome.status < 300) return '2xx';
  if (outcome.status >= 300 && outcome.status < 400) return '3xx';
  if (outcome.status >= 400 && outcome.status < 500) return '4xx';
  return '5xx';
}

// One registry per worker process (runtime.ts), never prom-client's global one: tests run several
// runtimes in one process. Labels take bounded values: outcome, status class, delivery (primary or
// destination), queue, state, table; organization ids only when the operator asks for them; never event ids,
// destination ids or URLs.
export function createWorkerMetrics(options: WorkerMetricsOptions) {
  const now = options.now ?? Date.now;
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const deliveries = new Counter({
    name: 'relay_deliveries_total',
    help:
      'Delivery outcomes (delivered, retry scheduled, failed) by the status class of the attempt, to the primary ' +
      'target or a destination (delivery).',
    labelNames: options.organizationLabels
      ? ['delivery', 'outcome', 'status_class', 'organization']
      : ['delivery', 'outcome', 'status_class'],
    registers,
  });
  const attemptSeconds = new Histogram({
    name: 'relay_attempt_duration_seconds',
    help: 'Duration of one delivery request to its target, until the answer or the error.',
    labelNames: ['delivery'],
    buckets: ATTEMPT_SECONDS,
    registers,
  });
  const latencySeconds = new Histogram({
    name: 'relay_delivery_latency_seconds',
    help:
      'Time from ingest (the event stored) to delivered, retries included, for deliveries delivered in their ' +
      'first run.',
    labelNames: ['delivery'],
    buckets: LATENCY_SECONDS,
    registers,
  });
  const hookRuns = new Counter({
    name: 'relay_hook_runs_total',
    help: 'Hook jobs run, by outcome.',
    labelNames: ['outcome'],
    registers,
  });
  const pacedWaits = new Counter({
    name: 'relay_paced_waits_total',
    help:
      'Deliveries that waited for their pacing (docs/rules.md "Pacing"): a Retry-After hold, the rate limit or the ' +
      'concurrency limit (reason), to the primary target or a destination (delivery). No attempt is counted.',
    labelNames: ['delivery', 'reason'],
    registers,
  });
  const reenqueued = new Counter({
    name: 'relay_sweeper_reenqueued_total',
    help: 'Queued events the sweeper gave a job again: overdue ones, or all after Redis lost its data (redis_reset).',
    labelNames: ['reason'],
    registers,
  });
  const retentionDeleted = new Counter({
    name: 'relay_retention_deleted_total',
    help: 'Rows deleted by the retention job, by table.',
    labelNames: ['table'],
    registers,
  });
  const retentionRuns = new Counter({
    name: 'relay_retention_runs_total',
    help: 'Retention job runs by outcome.',
    labelNames: ['outcome'],
    registers,
  });
  // The partitions job records where the partitions end; the distance from now is taken at each scrape, so it falls
  // while the job is stuck. Each worker knows its own runs only: the largest value over the workers is the truth.
  // Registered at the first record: a gauge without labels would read 0 (ingest refusing) before the first run.
  let partitionsEnd: number | undefined;
  const partitionsAhead = new Gauge({
    name: 'relay_partitions_ahead_seconds',
    help:
      'How far the newest partition of the partitioned history reaches past now, as of the last partitions job this ' +
      'worker ran (under one PARTITION_PERIOD: the job is behind; at 0, ingest refuses events with a 503).',
    registers: [],
    collect() {
      if (partitionsEnd !== undefined) this.set((partitionsEnd - now()) / 1000);
    },
  });
  new Gauge({
    name: 'relay_db_pool_connections',
    help: "Connections of this process's Postgres pool: total, idle, and queries waiting for one (waiting).",
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'total' }, options.pool.totalCount);
      this.set({ state: 'idle' }, options.pool.idleCount);
      this.set({ state: 'waiting' }, options.pool.waitingCount);
    },
  });
  // Read from Redis at each scrape (one round trip per queue); a queue Redis cannot answer for has no
  // value in that scrape rather than a stale one.
  new Gauge({
    name: 'relay_queue_jobs',
    help: 'Jobs per queue and state, read from Redis at scrape time (the same value from every worker).',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      // A sharded queue (REDIS_QUEUE_SHARDS) is one series: its shards' counts summed.
      const sums = new Map<string, Record<string, number>>();
      await Promise.all(
        options.queues().map(async (queue) => {
          const counts = await queue.getJobCounts(...JOB_STATES).catch(() => undefined);
          if (!counts) return;
          const sum = sums.get(queue.name) ?? {};
          for (const state of JOB_STATES) sum[state] = (sum[state] ?? 0) + (counts[state] ?? 0);
          sums.set(queue.name, sum);
        }),
      );
      for (const [queue, sum] of sums) for (const state of JOB_STATES) this.set({ queue, state }, sum[state] ?? 0);
    },
  });
  new Gauge({
    name: 'relay_queue_oldest_waiting_seconds',
    help:
      'Age of the job that has waited longest for a worker (0 when none waits). A retried job counts from its ' +
      'last attempt, so its retry delay is included.',
    labelNames: ['queue'],
    registers,
    async collect() {
      this.reset();
      // A sharded queue's oldest waiting job is the oldest over its shards.
      const ages = new Map<string, number>();
      await Promise.all(
        options.queues().map(async (queue) => {
          // The oldest waiting job is the first to be taken: getWaiting lists oldest first.
          const jobs = await queue.getWaiting(0, 0).catch(() => undefined);
          if (!jobs) return;
          const job = jobs[0];
          // BullMQ keeps no time of entry into `waiting`: its add time, or its last attempt's start if later.
          const since = job ? Math.max(job.timestamp, job.processedOn ?? 0) : now();
          ages.set(queue.name, Math.max(ages.get(queue.name) ?? 0, Math.max(0, now() - since) / 1000));
        }),
      );
      for (const [queue, age] of ages) this.set({ queue }, age);
    },
  });

  // Children bound once for the hot path: counting an outcome is a lookup and an addition.
  type Children = Record<DeliveryOutcome, Partial<Record<StatusClass, Counter.Internal>>>;
  const children: Record<DeliveryKind, Children> = {
    primary: { delivered: {}, retry: {}, failed: {} },
    destination: { delivered: {}, retry: {}, failed: {} },
  };
  const deliveryChild = (kind: DeliveryKind, outcome: DeliveryOutcome, statusClass: StatusClass) =>
    (children[kind][outcome][statusClass] ??= deliveries.labels({
      delivery: kind,
      outcome,
      status_class: statusClass,
    }));
  const attemptChild = { primary: attemptSeconds.labels('primary'), destination: attemptSeconds.labels('destination') };
  const latencyChild = { primary: latencySeconds.labels('primary'), destination: latencySeconds.labels('destination') };
  // Series that exist before the first event, so dashboards and alerts see zeros, not gaps.
  for (const outcome of HOOK_OUTCOMES) hookRuns.labels({ outcome }).inc(0);
  for (const reason of ['overdue', 'redis_reset']) reenqueued.labels({ reason }).inc(0);
  for (const outcome of ['ok', 'failed']) retentionRuns.labels({ outcome }).inc(0);
  for (const delivery of ['primary', 'destination']) {
    attemptSeconds.zero({ delivery });
    latencySeconds.zero({ delivery });
  }

  const delivery: DeliveryMetrics = {
    delivery(orgId, outcome, statusClass, durationMs, kind) {
      if (options.organizationLabels) {
        deliveries.inc({ delivery: kind, outcome, status_class: statusClass, organization: orgId });
      } else {
        deliveryChild(kind, outcome, statusClass).inc();
      }
      if (durationMs !== null) attemptChild[kind].observe(durationMs / 1000);
    },
    deliveredAfter(ms, kind) {
      latencyChild[kind].observe(Math.max(0, ms) / 1000);
    },
  };
  const retention: RetentionMetrics = {
    deleted(table, count) {
      if (count > 0) retentionDeleted.inc({ table }, count);
    },
    run(outcome) {
      retentionRuns.inc({ outcome });
    },
  };
  const partitions: PartitionJobMetrics = {
    coveredUntil(until) {
      if (partitionsEnd === undefined) registry.registerMetric(partitionsAhead);
      partitionsEnd = until.getTime();
    },
  };
  return {
    registry,
    delivery,
    retention,
    partitions,
    /** One hook job done (hook.processor.ts). */
    hookRun(result: 'delivered' | 'retry_scheduled' | 'failed' | 'skipped' | 'deferred'): void {
      const outcome: HookOutcome = result === 'retry_scheduled' ? 'retry' : result;
      hookRuns.inc({ outcome });
    },
    /** A delivery waited for its pacing (the pacing limiter's onWait): its key says whose it was. */
    pacedWait(key: string, reason: 'hold' | 'rate' | 'concurrency'): void {
      pacedWaits.inc({ delivery: key.startsWith('destination:') ? 'destination' : 'primary', reason });
    },
    /** One sweep: how many events it enqueued, and whether it was the full sweep after Redis lost its data. */
    swept(result: { full: boolean; enqueued: number }): void {
      if (result.enqueued > 0) reenqueued.inc({ reason: result.full ? 'redis_reset' : 'overdue' }, result.enqueued);
    },
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
