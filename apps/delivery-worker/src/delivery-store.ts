import { createGroupCommit } from '@relay/core';
import type {
  EventRef,
  EventRepository,
  NewTransform,
  OrderingHead,
  Outcome,
  StoredEvent,
  StoredTransform,
} from '@relay/db';
import { publishGrouped, type FeedPublisher } from '@relay/queue';
import { outcomeMessages } from './feed-messages';
import { settleEach, unwrap, type Settled } from './settle-each';

export interface DeliveryStore {
  load(ref: EventRef): Promise<StoredEvent | null>;
  /**
   * Stores the primary's transform output; resolves, once committed, with what is stored (null: no longer queued).
   * The output is durable before the first send, and written with the other deliveries' in one statement.
   */
  storeTransformed(ref: EventRef, output: NewTransform): Promise<StoredTransform | null>;
  /** Resolves once the outcome is committed. */
  record(outcome: Outcome): Promise<void>;
  drain(): Promise<void>;
}

// Deliveries in flight share their database round trips: loads made while the previous load runs become
// one query, transform outputs one statement, and outcomes one statement. Each job still waits for its own write
// to be committed.
// Committed outcomes are then told to the live feed (best effort; the database stays the truth).
export function createDeliveryStore(
  events: EventRepository,
  feed?: FeedPublisher,
  // Loads and outcomes go out at once when the database is idle; while two statements of a kind run,
  // what arrives meanwhile gathers into the next one (group-commit.ts, maxInFlight).
  options = { maxSize: 200, maxWaitMs: 0, maxInFlight: 2 },
  /** Hears the next events of ordering keys released by committed outcomes (ordered-delivery.ts). */
  onReleased?: (heads: OrderingHead[]) => void,
): DeliveryStore {
  const loads = createGroupCommit<EventRef, Settled<StoredEvent | null>>({
    ...options,
    flush: (refs) =>
      settleEach(refs, async (batch) => {
        const found = new Map((await events.findMany(batch)).map((event) => [event.id, event]));
        return batch.map((ref) => found.get(ref.id) ?? null);
      }),
  });
  // Transform outputs come out of the sandbox pool a few at a time (TRANSFORM_CONCURRENCY), each alone while two
  // statements may run: one statement in flight lets the next ones gather (one round trip for several, measured by
  // `pnpm bench --transform`), at the cost of at most one round trip's wait for an output made meanwhile.
  const transforms = createGroupCommit<EventRef & { output: NewTransform }, Settled<StoredTransform | null>>({
    ...options,
    maxInFlight: 1,
    flush: (items) => settleEach(items, (batch) => events.storeTransformed(batch)),
  });
  const writes = createGroupCommit<Outcome, Settled<void>>({
    ...options,
    flush: async (outcomes) => {
      const heads: OrderingHead[] = [];
      const settled = await settleEach(outcomes, async (batch) => {
        heads.push(...(await events.recordOutcomes(batch)));
        return batch.map(() => undefined);
      });
      if (heads.length > 0) onReleased?.(heads);
      const committed = outcomes.filter((_, i) => settled[i]!.ok);
      if (feed && committed.length > 0)
        void publishGrouped(
          feed,
          committed.flatMap((outcome) => outcomeMessages(outcome, Date.now())),
        );
      return settled;
    },
  });
  return {
    load: async (ref) => unwrap(await loads.submit(ref)),
    storeTransformed: async (ref, output) => unwrap(await transforms.submit({ ...ref, output })),
    record: async (outcome) => unwrap(await writes.submit(outcome)),
    drain: async () => {
      await loads.drain();
      await transforms.drain();
      await writes.drain();
    },
  };
}
