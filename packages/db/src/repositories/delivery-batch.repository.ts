import { toStorableText, type DeliveryStatus, type FailureReason, type OrgId } from '@relay/core';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { DeliveryChange } from './delivery-change';
import { FAN_OUT_MANY, LOAD_MANY, RECORD_MANY } from './delivery-statement.sql';
import type { QueuedDeliveryRef } from './delivery-sweep.repository';
import { toDestinationRecord, type DestinationRecord } from './destination.repository';
import type { OrderingHead } from './event-ordering.repository';
import type { NewAttempt } from './event.repository';
import { transformOf, type StoredTransform } from './stored-event';

// A destination delivery's fan-out, load and outcome record, for many events or deliveries in one statement each:
// the worker gathers those in flight (destination-store.ts), as it does the primary's events, so a batch costs one
// round trip and one commit instead of one per event or delivery.

export interface DeliveryRecord {
  id: string;
  organizationId: OrgId;
  eventId: string;
  destinationId: string;
  status: DeliveryStatus;
  attemptCount: number;
  /** attempt_count when its current run began (a retry or resume starts one): the retry policy counts from it. */
  runStartAttempt: number;
  nextAttemptAt: Date | null;
  failureReason: string | null;
  lastError: string | null;
  deliveredAt: Date | null;
  /** Held behind an older delivery of its ordering key at its destination (delivery-ordering.sql.ts). */
  waitsForKey: boolean;
  /** Its destination's transformed request, stored at its run's first attempt (issue 30); absent or null: none. */
  transformed?: StoredTransform | null;
}

/** What a fan-out made: see `fanOutMany`. */
export interface FannedOut {
  queued: QueuedDeliveryRef[];
  added: (DeliveryChange & { status: 'queued' | 'paused' })[];
  released: OrderingHead[];
}

/** One event to fan out to the destinations its rule matched. */
export interface FanOutItem {
  orgId: OrgId;
  eventId: string;
  destinationIds: readonly string[];
}

interface FanOutRow {
  item: number;
  id: string;
  destination_id: string;
  status: 'queued' | 'paused';
  next_attempt_at: Date | null;
  what: 'added' | 'queued' | 'released';
}

function fannedOutOf({ orgId, eventId }: FanOutItem, rows: readonly FanOutRow[]): FannedOut {
  const ref = (r: FanOutRow) => ({
    id: r.id,
    organizationId: orgId,
    eventId,
    destinationId: r.destination_id,
    nextAttemptAt: r.next_attempt_at,
  });
  return {
    queued: rows.filter((r) => r.what !== 'released' && r.status === 'queued').map(ref),
    added: rows
      .filter((r) => r.what === 'added')
      .map((r) => ({ id: r.id, eventId, destinationId: r.destination_id, status: r.status, attemptCount: 0 })),
    released: rows
      .filter((r) => r.what === 'released')
      // A released head is another event's, which the fan-out does not answer: its job looks it up by id.
      .map((r) => ({ id: r.id, organizationId: orgId, shardKey: r.destination_id })),
  };
}

/** A delivery by id, with its event when known (deliveries are partitioned by it). */
export interface DeliveryRef {
  orgId: OrgId;
  id: string;
  /** Absent: looked up by id (a job queued before jobs carried it). */
  eventId?: string | undefined;
}

/** A delivery and its destination as they are committed. */
export interface LoadedDelivery {
  delivery: DeliveryRecord;
  destination: DestinationRecord;
}

/** What `record` stored: see there. */
export interface Recorded {
  recorded: boolean;
  head: OrderingHead | null;
}

export type DeliveryUpdate =
  | { status: 'delivered'; at: Date }
  | { status: 'queued'; nextAttemptAt: Date; error: string }
  | { status: 'failed'; reason: FailureReason; error: string };

/** One delivery's attempt and new state, to be recorded. */
export interface RecordItem {
  orgId: OrgId;
  id: string;
  /** The delivery's event (its partition). */
  eventId: string;
  attempt: NewAttempt;
  update: DeliveryUpdate;
}

interface LoadRow {
  v_id: string;
  v_org: string;
  event_id: string;
  v_status: DeliveryStatus;
  attempt_count: number;
  run_start_attempt: number;
  v_next: Date | null;
  v_reason: string | null;
  v_error: string | null;
  v_delivered: Date | null;
  v_blocked: boolean;
  [column: string]: unknown;
}

interface RecordRow {
  delivery_id: string;
  recorded: number;
  head_id: string | null;
  head_event_id: string | null;
  destination_id: string | null;
}

// pg names the destination's columns in snake_case: the record wants Prisma's field names.
function destinationOf(row: LoadRow): DestinationRecord {
  return toDestinationRecord({
    id: row.id as string,
    organizationId: row.organization_id as string,
    ruleId: row.provider_id as string,
    name: row.name as string,
    targetUrl: row.target_url as string,
    filter: row.filter,
    active: row.active as boolean,
    description: row.description as string | null,
    signingSecret: row.signing_secret as string | null,
    signingSecretHash: (row.signing_secret_hash ?? null) as string | null,
    outboundHeaders: row.outbound_headers,
    deliveryPolicy: row.delivery_policy,
    unhealthyAfterSeconds: row.unhealthy_after_seconds as number | null,
    health: row.health as DestinationRecord['health'],
    unhealthyReason: row.unhealthy_reason as string | null,
    unhealthySince: row.unhealthy_since as Date | null,
    failingSince: row.failing_since as Date | null,
    transform: row.transform as string | null,
    forwardPathQuery: row.forward_path_query as boolean,
    rateLimit: row.rate_limit,
    maxConcurrency: row.max_concurrency as number | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  });
}

function loadedOf(row: LoadRow): LoadedDelivery {
  const destination = destinationOf(row);
  const delivery: DeliveryRecord = {
    id: row.v_id,
    organizationId: row.v_org as OrgId,
    eventId: row.event_id,
    destinationId: destination.id,
    status: row.v_status,
    attemptCount: row.attempt_count,
    runStartAttempt: row.run_start_attempt,
    nextAttemptAt: row.v_next,
    failureReason: row.v_reason,
    lastError: row.v_error,
    deliveredAt: row.v_delivered,
    waitsForKey: row.v_blocked,
    transformed: transformOf({
      transformed_body: row.v_transformed_body as Buffer | null,
      transformed_headers: row.v_transformed_headers as Record<string, string> | null,
      transformed_path: row.v_transformed_path as string | null,
    }),
  };
  return { delivery, destination };
}

// One array per parameter of relay_record_delivery, one element per item.
function recordParameters(items: readonly RecordItem[]): unknown[] {
  const column = <T>(of: (item: RecordItem) => T) => items.map(of);
  return [
    column((i) => i.orgId),
    column((i) => i.id),
    column(() => uuidv7()),
    column((i) => i.attempt.attemptNumber),
    column((i) => i.attempt.targetUrl),
    column((i) => i.attempt.responseStatus),
    column((i) => toStorableText(i.attempt.responseBody)),
    column((i) => toStorableText(i.attempt.error)),
    column((i) => i.attempt.durationMs),
    column((i) => i.attempt.startedAt),
    column((i) => i.attempt.finishedAt),
    column((i) => i.update.status),
    column((i) => (i.update.status === 'queued' ? i.update.nextAttemptAt : null)),
    column((i) => (i.update.status === 'failed' ? i.update.reason : null)),
    column((i) => (i.update.status === 'delivered' ? null : i.update.error)),
    column((i) => (i.update.status === 'delivered' ? i.update.at : null)),
    column((i) => i.eventId),
  ];
}

// Items in a consistent order, so two batches that share an event or a delivery (a job run twice) take their locks in
// the same order and never deadlock; answers are put back in the callers' order.
function inKeyOrder<T>(items: readonly T[], key: (item: T) => string): { sorted: T[]; back: (i: number) => number } {
  const order = items.map((_, i) => i).sort((a, b) => (key(items[a]!) < key(items[b]!) ? -1 : 1));
  const at = new Map(order.map((from, to) => [from, to]));
  return { sorted: order.map((i) => items[i]!), back: (i) => at.get(i)! };
}

export function createDeliveryBatches(pool: pg.Pool) {
  async function fanOutMany(items: readonly FanOutItem[]): Promise<FannedOut[]> {
    if (items.length === 0) return [];
    const { sorted, back } = inKeyOrder(items, (i) => i.eventId);
    const { rows } = await pool.query<FanOutRow>(FAN_OUT_MANY, [
      sorted.map((i) => i.orgId),
      sorted.map((i) => i.eventId),
      sorted.map((i) => i.destinationIds.length),
      sorted.flatMap((i) => i.destinationIds),
      sorted.flatMap((i) => i.destinationIds.map(() => uuidv7())),
    ]);
    const byItem = sorted.map((): FanOutRow[] => []);
    for (const row of rows) byItem[row.item - 1]!.push(row);
    return items.map((_, i) => fannedOutOf(sorted[back(i)]!, byItem[back(i)]!));
  }

  async function loadMany(refs: readonly DeliveryRef[]): Promise<Map<string, LoadedDelivery>> {
    if (refs.length === 0) return new Map();
    const events = await eventsOf(refs);
    const { rows } = await pool.query<LoadRow>(LOAD_MANY, [
      refs.map((r) => r.id),
      refs.map((r) => r.orgId),
      refs.map((r) => events.get(r.id) ?? null),
    ]);
    return new Map(rows.map((row) => [row.v_id, loadedOf(row)]));
  }

  // The events of refs that name none (a job queued before jobs carried it): one lookup by id alone, which probes
  // every partition's primary key, for those only.
  async function eventsOf(refs: readonly DeliveryRef[]): Promise<Map<string, string>> {
    const events = new Map(refs.flatMap((r) => (r.eventId ? [[r.id, r.eventId] as const] : [])));
    const missing = refs.filter((r) => !r.eventId).map((r) => r.id);
    if (missing.length === 0) return events;
    const { rows } = await pool.query<{ id: string; event_id: string }>(
      'SELECT id, event_id FROM deliveries WHERE id = ANY($1::uuid[])',
      [missing],
    );
    for (const row of rows) events.set(row.id, row.event_id);
    return events;
  }

  async function recordMany(items: readonly RecordItem[]): Promise<Recorded[]> {
    if (items.length === 0) return [];
    const { sorted, back } = inKeyOrder(items, (i) => i.id);
    const { rows } = await pool.query<RecordRow>(RECORD_MANY, recordParameters(sorted));
    if (rows.length !== items.length) throw new Error(`recorded ${rows.length} of ${items.length} outcomes`);
    const results = rows.map((row, i) => ({
      recorded: row.recorded > 0,
      // A key is one destination's, so the head is at the recorded delivery's destination (its queue shard).
      head:
        row.head_id === null || row.head_event_id === null || row.destination_id === null
          ? null
          : {
              id: row.head_id,
              organizationId: sorted[i]!.orgId,
              shardKey: row.destination_id,
              eventId: row.head_event_id,
            },
    }));
    return items.map((_, i) => results[back(i)]!);
  }

  return {
    /**
     * Creates each event's deliveries to its matched destinations (idempotently; none given: only an ordered event's
     * fan-out is marked done), in one transaction. Answers, per item: its queued deliveries (to enqueue), those this
     * call added (queued, or paused for an unhealthy destination), and later deliveries of its ordering key this
     * fan-out released (to hand off).
     */
    fanOutMany,

    /** `fanOutMany` for one event. */
    fanOut: async (orgId: OrgId, eventId: string, destinationIds: readonly string[]): Promise<FannedOut> =>
      (await fanOutMany([{ orgId, eventId, destinationIds }]))[0]!,

    /** Deliveries with their destinations as they are committed, by id (a missing one: gone, its event or
     * destination deleted, or another organization's). */
    loadMany,

    /** A delivery and its destination as they are committed; null: gone (its event or destination deleted). */
    load: async (orgId: OrgId, id: string, eventId?: string): Promise<LoadedDelivery | null> =>
      (await loadMany([{ orgId, id, eventId }])).get(id) ?? null,

    /**
     * Stores each item's attempt and the delivery's new state, only while the delivery is queued (`recorded` false:
     * it was not), in one transaction, in order. A final outcome of an ordered delivery releases its key: `head` is
     * the next queued delivery of the key at its destination, to be handed a job. Answers one result per item.
     */
    recordMany,

    /** `recordMany` for one delivery. */
    record: async (
      orgId: OrgId,
      ref: { id: string; eventId: string },
      attempt: NewAttempt,
      update: DeliveryUpdate,
    ): Promise<Recorded> => (await recordMany([{ orgId, ...ref, attempt, update }]))[0]!,
  };
}
