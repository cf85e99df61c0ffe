import { toStorableText, type FailureReason, type OrgId } from '@relay/core';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { recordAndRelease, type OrderingHead } from './event-ordering.repository';
import { INSERT_EVENTS, LOAD_EVENTS, RECORD_OUTCOMES, STORE_TRANSFORMED } from './event.sql';
import {
  toStoredEvent,
  transformOf,
  type EventRow,
  type NewTransform,
  type StoredTransform,
  type StoredEvent,
  type TransformRow,
} from './stored-event';

export interface NewEvent {
  id: string;
  organizationId: OrgId;
  source: string;
  /** A policy-checked X-Target-Url; otherwise the target is selected by the spec's rule. */
  targetOverride: string | null;
  /** A rule chosen by the caller (send in rule mode), with its target as the override. */
  ruleId?: string | null;
  body: Uint8Array;
  headers: Record<string, string>;
  /** The request path after the source segment; absent: "" (send). */
  path?: string;
  /** The request's query (a string per key, an array for a repeated key); absent: {}. */
  query?: Record<string, string | string[]>;
  nextAttemptAt: Date;
  /** The rule's ordering key (rule option `ordering`): an event_ordering row is written with the event. */
  orderingKey?: string;
}

export interface EventRepositoryOptions {
  /** The install-wide default target (DEFAULT_TARGET_URL). */
  defaultTargetUrl: string | undefined;
}

export interface EventRef {
  orgId: OrgId;
  id: string;
}

export interface NewAttempt {
  attemptNumber: number;
  kind: 'main' | 'hook';
  targetUrl: string;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
}

export type EventUpdate =
  | { status: 'delivered'; at: Date }
  | { status: 'queued'; nextAttemptAt: Date; error: string }
  | { status: 'failed'; reason: FailureReason; error: string }
  /** Its rule's filter did not match: final, no attempt, no failure reason. */
  | { status: 'ignored' };

export interface Outcome extends EventRef {
  attempt: NewAttempt | null;
  update: EventUpdate;
  /** The event's rule orders delivery: a final outcome releases the event's ordering key. */
  ordered?: boolean;
}

// The ingest and delivery hot paths, written in SQL over the shared pool: each statement handles a
// whole batch in one round trip.
export function createEventRepository(pool: pg.Pool, options: EventRepositoryOptions) {
  return {
    /**
     * One insert for a whole ingest batch (rows may belong to different organizations); answers each stored event's
     * rule (null: none), which the statement chooses: the queue shard of its delivery job (REDIS_QUEUE_SHARDS) is
     * that rule's. `db` is a transaction's client when the insert must commit with other writes (a deduplication key).
     */
    async insertMany(
      rows: readonly NewEvent[],
      db: Pick<pg.Pool, 'query'> = pool,
    ): Promise<Map<string, string | null>> {
      if (rows.length === 0) return new Map();
      const ordered = rows.some((r) => r.orderingKey !== undefined);
      const stored = await db.query<{ id: string; provider_id: string | null }>(INSERT_EVENTS, [
        rows.map((r) => r.id),
        rows.map((r) => r.organizationId),
        rows.map((r) => r.source),
        rows.map((r) => r.targetOverride),
        rows.map((r) => Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength)),
        rows.map((r) => JSON.stringify(r.headers)),
        rows.map((r) => r.nextAttemptAt),
        options.defaultTargetUrl ?? null,
        rows.map((r) => r.ruleId ?? null),
        rows.map((r) => r.path ?? ''),
        rows.map((r) => JSON.stringify(r.query ?? {})),
        ordered ? rows.map((r) => r.orderingKey ?? null) : null,
      ]);
      return new Map(stored.rows.map((row) => [row.id, row.provider_id]));
    },

    async findById(orgId: OrgId, id: string): Promise<StoredEvent | null> {
      const [event] = await this.findMany([{ orgId, id }]);
      return event ?? null;
    },

    /** Loads many events by (organization, id) in one query; missing ones are simply absent. */
    async findMany(refs: readonly EventRef[]): Promise<StoredEvent[]> {
      if (refs.length === 0) return [];
      const { rows } = await pool.query<EventRow>(LOAD_EVENTS, [refs.map((r) => r.id), refs.map((r) => r.orgId)]);
      return rows.map(toStoredEvent);
    },

    /**
     * Stores the primaries' transformed requests before their run's first attempt is sent, in one statement; answers
     * for each what is stored (another worker's, if it stored first), or null when the event is no longer queued.
     */
    async storeTransformed(
      items: readonly { orgId: OrgId; id: string; output: NewTransform }[],
    ): Promise<(StoredTransform | null)[]> {
      if (items.length === 0) return [];
      const { rows } = await pool.query<TransformRow & { id: string }>(STORE_TRANSFORMED, [
        items.map((i) => i.orgId),
        items.map((i) => i.id),
        items.map((i) => i.output.body),
        items.map((i) => JSON.stringify(i.output.headers)),
        items.map((i) => i.output.path),
        items.map((i) => toStorableText(i.output.logs)),
      ]);
      const stored = new Map(rows.map((row) => [row.id, transformOf(row)]));
      return items.map((i) => stored.get(i.id.toLowerCase()) ?? null);
    },

    /**
     * Stores attempts and new event states for a batch of deliveries, atomically, in one statement.
     * Text from the target (excerpt, error) is made storable first: one NUL would fail the batch.
     * Finished ordered events release their ordering keys in the same transaction; the keys' next
     * events are returned, to be enqueued.
     */
    async recordOutcomes(outcomes: readonly Outcome[]): Promise<OrderingHead[]> {
      if (outcomes.length === 0) return [];
      const withAttempt = outcomes.filter((o): o is Outcome & { attempt: NewAttempt } => o.attempt !== null);
      const a = (pick: (o: Outcome & { attempt: NewAttempt }) => unknown) => withAttempt.map(pick);
      const u = (pick: (o: Outcome) => unknown) => outcomes.map(pick);
      const values = [
        a((o) => o.id),
        a((o) => o.orgId),
        a((o) => o.attempt.attemptNumber),
        a((o) => o.attempt.kind),
        a((o) => o.attempt.targetUrl),
        a((o) => o.attempt.responseStatus),
        a((o) => toStorableText(o.attempt.responseBody)),
        a((o) => toStorableText(o.attempt.error)),
        a((o) => o.attempt.durationMs),
        a((o) => o.attempt.startedAt),
        a((o) => o.attempt.finishedAt),
        u((o) => o.id),
        u((o) => o.orgId),
        u((o) => o.update.status),
        u((o) => (o.attempt?.kind === 'main' ? 1 : 0)),
        u((o) => (o.update.status === 'queued' ? o.update.nextAttemptAt : null)),
        u((o) => (o.update.status === 'failed' ? o.update.reason : null)),
        u((o) => ('error' in o.update ? toStorableText(o.update.error) : null)),
        u((o) => (o.update.status === 'delivered' ? o.update.at : null)),
        a(() => uuidv7()),
      ];
      const released = outcomes.filter(
        (o) => o.ordered === true && ['delivered', 'failed', 'ignored'].includes(o.update.status),
      );
      if (released.length > 0) return recordAndRelease(pool, { text: RECORD_OUTCOMES, values }, released);
      await pool.query(RECORD_OUTCOMES, values);
      return [];
    },
  };
}

export type EventRepository = ReturnType<typeof createEventRepository>;
