import type { NoticeType, OrgId } from '@relay/core';

// Every queue and job the relay uses, in one place. Jobs carry ids only: the database is the truth,
// and a worker reloads the event it is told about.
// `maintenance` carries the workers' scheduled jobs (retention, the failure digest, partitions: one job per schedule
// slot across workers) and notices to organizations' notification URLs. One queue, so one BullMQ worker:
// each idle worker of its own cost a delivery worker about a fifth more CPU per delivery (docs/performance.md).
export const QUEUES = { delivery: 'deliveries', hooks: 'hooks', maintenance: 'maintenance' } as const;

export const JOBS = {
  deliver: 'deliver',
  /** One event to one of its rule's destinations (routing): a job of the delivery queue, its id `dest-<delivery id>`. */
  deliverDestination: 'deliver-destination',
  hook: 'hook',
  retention: 'retention',
  notice: 'notice',
  failureDigest: 'failure_digest',
  /** Partitions created ahead, and the parents analysed once a day (docs/partitioning.md). */
  partitions: 'partitions',
} as const;

/** The jobs of the `maintenance` queue: its one worker holds one handler for each (maintenance-worker.ts). */
export const MAINTENANCE_JOBS = [JOBS.retention, JOBS.notice, JOBS.failureDigest, JOBS.partitions] as const;
export type MaintenanceJobName = (typeof MAINTENANCE_JOBS)[number];

export interface DeliverJobData {
  orgId: OrgId;
  eventId: string;
  /** Consecutive defers for the relay's own faults; past DELIVERY_FAULT_MAX_DEFERS the event fails. */
  defers?: number;
  /** Traces: the W3C traceparent of the span this job continues (docs/observability.md); absent: untraced. */
  trace?: string;
  /** Traces: the previous run's span (a retry, a wait), linked from the next run's. */
  traceLink?: string;
}

export interface DeliverJobRequest extends DeliverJobData {
  /** The event's rule (null: the default target): it picks the queue shard (queueShardOf), never stored in the job. */
  ruleId: string | null;
  /** Milliseconds to wait before the attempt; 0 for now. */
  delayMs?: number;
}

/** One destination delivery (a row of `deliveries`): the worker reloads it, its destination and its event. */
export interface DestinationJobData {
  orgId: OrgId;
  deliveryId: string;
  /**
   * The delivery's event: `deliveries` is partitioned by it (docs/partitioning.md), so every statement naming the
   * delivery names it too and reads one partition. Absent in a job queued before it was added: looked up by id.
   */
  eventId?: string;
  /** Consecutive defers for the relay's own faults, as for deliveries. */
  defers?: number;
  /** Traces: the W3C traceparent of the span this job continues (docs/observability.md); absent: untraced. */
  trace?: string;
  /** Traces: the previous run's span (a retry, a wait), linked from the next run's. */
  traceLink?: string;
}

export interface DestinationJobRequest extends DestinationJobData {
  /** Named by every caller that knows it; undefined only where none does (a released head of a fan-out). */
  eventId: string | undefined;
  /** The delivery's destination: it picks the queue shard (queueShardOf), never stored in the job. */
  destinationId: string;
  /** Milliseconds to wait before the attempt; 0 for now. */
  delayMs?: number;
}

/**
 * One hook request after a rule outcome; the outcome facts travel with it because a later run may
 * change the event.
 */
export interface HookJobData {
  orgId: OrgId;
  eventId: string;
  hookId: string;
  /** The event's run (run_start_attempt): a retried event fires its hooks again. */
  run: number;
  deliveryStatus: 'delivered' | 'failed';
  /** The target's HTTP status, or null when it never answered (network error, blocked). */
  responseStatus: number | null;
  /** Hook attempts made so far in this job. */
  attempt?: number;
  /** Consecutive defers for the relay's own faults, as for deliveries. */
  defers?: number;
  /** Traces: the W3C traceparent of the span this job continues (docs/observability.md); absent: untraced. */
  trace?: string;
  /** Traces: the previous run's span (a retry, a wait), linked from the next run's. */
  traceLink?: string;
}

/**
 * One notice for an organization's notification URL. Unlike other jobs it carries its content: a notice
 * states a fact of its moment (a rule or destination turned unhealthy, these events failed), not a row to reload.
 */
export interface NoticeJobData {
  orgId: OrgId;
  /** Stable across retries: `webhook-id`, so receivers can deduplicate. */
  id: string;
  type: NoticeType;
  /** ISO time of the fact. */
  at: string;
  data: Record<string, unknown>;
}
