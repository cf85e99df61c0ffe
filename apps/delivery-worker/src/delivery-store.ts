import { createGroupCommit } from '@relay/core';
import type { EventRef, EventRepository, Outcome, StoredEvent } from '@relay/db';
import { publishGrouped, type FeedPublisher } from '@relay/queue';
import { outcomeMessages } from './feed-messages';

export interface DeliveryStore {
  load(ref: EventRef): Promise<StoredEvent | null>;
  /** Resolves once the outcome is committed. */
  record(outcome: Outcome): Promise<void>;
  drain(): Promise<void>;
}

// Deliveries in flight share their database round trips: loads made within a millisecond become one
// query, and outcomes one statement. Each job still waits for its own outcome to be committed.
// Committed outcomes are then told to the live feed (best effort; the database stays the truth).
export function createDeliveryStore(
  events: EventRepository,
  feed?: FeedPublisher,
  options = { maxSize: 200, maxWaitMs: 1 },
): DeliveryStore {
  const loads = createGroupCommit<EventRef, StoredEvent | null>({
    ...options,
    flush: async (refs) => {
      const found = new Map((await events.findMany(refs)).map((event) => [event.id, event]));
      return refs.map((ref) => found.get(ref.id) ?? null);
    },
  });
  const writes = createGroupCommit<Outcome, void>({
    ...options,
    flush: async (outcomes) => {
      await events.recordOutcomes(outcomes);
      if (feed)
        void publishGrouped(
          feed,
          outcomes.flatMap((outcome) => outcomeMessages(outcome, Date.now())),
        );
      return outcomes.map(() => undefined);
    },
  });
  return {
    load: (ref) => loads.submit(ref),
    record: (outcome) => writes.submit(outcome),
    drain: async () => {
      await loads.drain();
      await writes.drain();
    },
  };
}
