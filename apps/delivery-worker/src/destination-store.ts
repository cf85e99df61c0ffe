import { createGroupCommit, type OrgId } from '@relay/core';
import type {
  DeliveryRef,
  DeliveryRepository,
  DeliveryUpdate,
  FannedOut,
  FanOutItem,
  LoadedDelivery,
  NewAttempt,
  Recorded,
  RecordItem,
} from '@relay/db';
import { settleEach, unwrap, type Settled } from './settle-each';

export interface DestinationStore {
  /** An event's fan-out (DeliveryRepository's `fanOut`), committed when it resolves. */
  fanOut: (orgId: OrgId, eventId: string, destinationIds: readonly string[]) => Promise<FannedOut>;
  /** A delivery and its destination as they are committed; null: gone. */
  load: (orgId: OrgId, id: string, eventId?: string) => Promise<LoadedDelivery | null>;
  /** Resolves once the outcome is committed (DeliveryRepository's `record`). */
  record: (
    orgId: OrgId,
    ref: { id: string; eventId: string },
    attempt: NewAttempt,
    update: DeliveryUpdate,
  ) => Promise<Recorded>;
  drain: () => Promise<void>;
}

// Destination deliveries in flight share their database round trips, as the primary's do (delivery-store.ts):
// fan-outs made while the previous one runs become one call and one commit, loads one statement, and outcomes one
// call and one commit. Each job still waits for its own write to be committed, and a batch that fails is written
// again one event or delivery at a time.
export function createDestinationStore(
  deliveries: Pick<DeliveryRepository, 'fanOutMany' | 'loadMany' | 'recordMany'>,
  // While two statements of a kind run, what arrives meanwhile gathers into the next one (group-commit.ts).
  options = { maxSize: 200, maxWaitMs: 0, maxInFlight: 2 },
): DestinationStore {
  const fanOuts = createGroupCommit<FanOutItem, Settled<FannedOut>>({
    ...options,
    flush: (items) => settleEach(items, (batch) => deliveries.fanOutMany(batch)),
  });
  const loads = createGroupCommit<DeliveryRef, Settled<LoadedDelivery | null>>({
    ...options,
    flush: (refs) =>
      settleEach(refs, async (batch) => {
        const found = await deliveries.loadMany(batch);
        return batch.map((ref) => found.get(ref.id) ?? null);
      }),
  });
  const records = createGroupCommit<RecordItem, Settled<Recorded>>({
    ...options,
    flush: (items) => settleEach(items, (batch) => deliveries.recordMany(batch)),
  });
  return {
    fanOut: async (orgId, eventId, destinationIds) => unwrap(await fanOuts.submit({ orgId, eventId, destinationIds })),
    load: async (orgId, id, eventId) => unwrap(await loads.submit({ orgId, id, eventId })),
    record: async (orgId, ref, attempt, update) => unwrap(await records.submit({ orgId, ...ref, attempt, update })),
    drain: async () => {
      await fanOuts.drain();
      await loads.drain();
      await records.drain();
    },
  };
}
