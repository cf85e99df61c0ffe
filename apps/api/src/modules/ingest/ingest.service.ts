import { AppError, createGroupCommit } from '@relay/core';
import {
  isDatabaseUnavailable,
  isOrganizationGone,
  type EventDedupRepository,
  type EventRepository,
  type NewEvent,
} from '@relay/db';
import { publishGrouped, type DeliveryQueue, type FeedPublisher } from '@relay/queue';
import { NOOP_TRACER, type TraceSpan, type Tracer } from '@relay/service-kit';
import type { Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { storeOnce, type DedupAnswer, type IngestDedupClaim } from './dedup-ingest';
import type { IncomingWebhook } from './incoming-webhook';
import { startEnqueueSpan } from './ingest-tracing';

export interface IngestServiceDeps {
  events: EventRepository;
  /** Idempotent ingest (rule option `dedup`); absent: webhooks with a key are stored like any other. */
  dedup?: Pick<EventDedupRepository, 'storeOnce'>;
  queue: DeliveryQueue;
  /** The live feed hears of each stored event. */
  feed?: FeedPublisher;
  logger: Logger;
  /** Group-commit bounds: maxBytes caps a batch's payload bytes (INGEST_BATCH_MAX_BYTES). */
  batch: { maxSize: number; maxWaitMs: number; maxInFlight?: number; maxBytes?: number };
  /** Hears the size of each stored batch (the relay_ingest_batch_size metric). */
  onBatch?: (size: number) => void;
  now?: () => Date;
  /** Traces (docs/observability.md): each delivery job carries its enqueue span's traceparent; absent: off. */
  tracer?: Tracer;
}

// Ingest is group-committed: concurrent webhooks share one INSERT (which also selects each
// target), and each caller is answered once its row is committed. Enqueuing follows in the
// background, batched too: a 202 means "stored", and the worker's sweeper enqueues any queued
// event whose enqueue was lost (Redis down, process killed), so nothing is dropped.
export function createIngestService(deps: IngestServiceDeps) {
  const now = deps.now ?? (() => new Date());
  const enqueuing = new Set<Promise<void>>();
  const tracer = deps.tracer ?? NOOP_TRACER;

  // Traced, each job's data carries its enqueue span's traceparent (the delivery's parent, across the queue).
  // `rules`: each stored event's rule as the insert chose it (the job's queue shard is the rule's: an event queued on
  // another shard than the sweeper's would get a second job there, and be delivered twice).
  function enqueueInBackground(
    rows: NewEvent[],
    rules: ReadonlyMap<string, string | null>,
    traces?: readonly (TraceSpan | undefined)[],
  ): void {
    const spans = tracer.enabled && traces ? rows.map((row, i) => startEnqueueSpan(tracer, traces[i], row.id)) : [];
    const run = deps.queue
      .enqueue(
        rows.map((row, i) => {
          const trace = spans[i]?.traceparent;
          return {
            orgId: row.organizationId,
            eventId: row.id,
            ruleId: rules.get(row.id) ?? row.ruleId ?? null,
            ...(trace ? { trace } : {}),
          };
        }),
      )
      .then(
        () => spans.forEach((span) => span.end()),
        (err: unknown) => {
          for (const span of spans) {
            span.fail('enqueue_failed');
            span.end();
          }
          deps.logger.warn(
            { err, events: rows.length },
            'enqueue failed after commit; the sweeper will enqueue these events',
          );
        },
      );
    enqueuing.add(run);
    void run.finally(() => enqueuing.delete(run));
  }

  function rowOf(item: IncomingWebhook, at: Date): NewEvent {
    return {
      id: uuidv7(),
      organizationId: item.orgId,
      source: item.source,
      targetOverride: item.targetOverride ?? null,
      ruleId: item.ruleId ?? null,
      body: item.body,
      headers: item.headers,
      ...(item.path ? { path: item.path } : {}),
      ...(item.query ? { query: item.query } : {}),
      nextAttemptAt: at,
      ...(item.orderingKey !== undefined ? { orderingKey: item.orderingKey } : {}),
    };
  }

  async function flush(items: IncomingWebhook[]): Promise<string[]> {
    const at = now();
    const rows: NewEvent[] = items.map((item) => rowOf(item, at));
    let rules: Map<string, string | null>;
    try {
      rules = await deps.events.insertMany(rows);
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw new AppError('database_unavailable');
      // The organization was deleted while the webhook (or /api/send) was on its way: nothing to store it for.
      // Such a row fails alone (retryAlone), so the other webhooks of its batch are stored.
      if (isOrganizationGone(err)) throw new AppError('not_found', 'The organization no longer exists.');
      throw err;
    }
    deps.onBatch?.(rows.length);
    published(
      rows,
      rules,
      at,
      items.map((item) => item.trace),
    );
    return rows.map((row) => row.id);
  }

  // After the commit: the delivery is enqueued and the live feed told, as for every stored event.
  function published(
    rows: NewEvent[],
    rules: ReadonlyMap<string, string | null>,
    at: Date,
    traces?: readonly (TraceSpan | undefined)[],
  ): void {
    enqueueInBackground(rows, rules, traces);
    if (deps.feed) {
      const createdAt = at.toISOString();
      void publishGrouped(
        deps.feed,
        rows.map((row) => ({
          orgId: row.organizationId,
          message: {
            type: 'event.created',
            at: at.getTime(),
            data: { id: row.id, source: row.source, status: 'queued', created_at: createdAt },
          },
        })),
      );
    }
  }

  // A batch the database refuses is retried row by row, so a row it cannot store fails alone; when
  // the database is down every row would fail the same way, so the batch fails at once.
  const commit = createGroupCommit<IncomingWebhook, string>({
    ...deps.batch,
    // The insert sends a batch's bodies as one text-encoded array (about twice their bytes), so the
    // bytes of a batch, not its row count, bound the heap a flush needs.
    sizeOf: (webhook) => webhook.body.byteLength,
    flush,
    retryAlone: (err) => !(err instanceof AppError && err.code === 'database_unavailable'),
  });

  return {
    /** Stores the webhook durably and returns the new event id; the enqueue follows. */
    accept: (webhook: IncomingWebhook) => commit.submit(webhook),
    /**
     * Stores the webhook unless its deduplication key was seen within the rule's window: one
     * transaction of its own, not group-committed (dedup-ingest.ts).
     */
    acceptOnce: (webhook: IncomingWebhook, claim: IngestDedupClaim): Promise<DedupAnswer> =>
      storeOnce(
        { dedup: deps.dedup, published, accept: (w) => commit.submit(w) },
        rowOf(webhook, now()),
        webhook,
        claim,
      ),
    /** Webhooks waiting for their batch to close (tests: a shutdown with a batch pending). */
    waiting: () => commit.waiting(),
    /** Flushes pending batches and waits for their enqueues (shutdown). */
    async drain() {
      await commit.drain();
      await Promise.all([...enqueuing]);
    },
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
