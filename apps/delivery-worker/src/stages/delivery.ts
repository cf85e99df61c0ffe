import type { AttemptOutcome, OrgId } from '@relay/core';
import type { NewAttempt, RuleRecord, StoredEvent } from '@relay/db';
import type { TransformFailure } from '@relay/transform';
import type { PacingTicket } from '../delivery-pacing';
import type { RuleDeliveryPolicy } from '../rule-policy';
import type { TraceSpan } from '@relay/service-kit';
import type { Step } from './job-step';

// The values handed from stage to stage (prepare → send → settle, deliver.processor.ts). A delivery is
// one event to one target: routing makes one per destination, and each goes through send and settle.

/** One event ready to go to one target: what prepare found, send needs and settle stores. */
export interface Delivery {
  orgId: OrgId;
  event: StoredEvent;
  targetUrl: string;
  /** The rule it is delivered for (hooks, signing); null for the default target. */
  ruleId: string | null;
  /** The rule as its health check left it (null: no rule, or health not tracked): health after the attempt. */
  rule: RuleRecord | null;
  /** The rule's attempts, backoff and time-out over the install-wide ones. */
  policy: RuleDeliveryPolicy;
  /** Its rule orders deliveries: a final outcome releases the ordering key (the next event is handed a job). */
  ordered: boolean;
  /** The target origin whose fair-share slot prepare acquired; send releases it. */
  origin: string;
  /** The rule's forward_path_query: the path and query (the transform's, else as received) go on the URL. */
  forwardPathQuery: boolean;
  /** The pacing grant prepare took (docs/rules.md "Pacing"); send releases it and tells it the answer. */
  pacing?: PacingTicket | undefined;
  /** The job's span (tracing on): the request and the recorded outcome are its children, hooks continue it. */
  span?: TraceSpan | undefined;
}

/** A delivery whose transform failed at its run's first attempt: settle records it failed (transform_error). */
export interface TransformFailed {
  orgId: OrgId;
  event: StoredEvent;
  targetUrl: string;
  ruleId: string | null;
  ordered: boolean;
  failure: TransformFailure;
  logs: string;
}

/** An event with no target to go to: settle records it failed (no_target) without an attempt. */
export interface Unroutable {
  orgId: OrgId;
  eventId: string;
  ordered: boolean;
}

/** Why prepare ended the job without a delivery; none of these counts an attempt. */
export type Waiting =
  /** Nothing to deliver: no valid id, not queued (any more), or taken by another worker. */
  | 'skipped'
  /** Arrived before its time (a duplicate enqueue): waits for it. */
  | 'rescheduled'
  /** An older event of its ordering key is unfinished: enqueued again when that one finishes. */
  | 'waiting_order'
  /** Its rule is unhealthy: the event waits (status paused) until the rule is resumed. */
  | 'paused'
  /** Its target origin holds its share of the pool: waits its turn. */
  | 'waiting_turn'
  /** Its rule's pacing (a rate, a concurrency limit, a Retry-After hold) makes it wait; no attempt counted. */
  | 'paced';

/** An event its rule's filter did not match: settle records it `ignored`, with no attempt and no hook. */
export type Ignored = Unroutable;

export type Prepared =
  | { delivery: Delivery }
  | { unroutable: Unroutable }
  | { ignored: Ignored }
  | { transformFailed: TransformFailed }
  | Step<Waiting>;

/** What send hands settle: the attempt as it is stored, and the outcome the retry policy classifies. */
export interface Sent {
  attempt: NewAttempt;
  outcome: AttemptOutcome;
}
