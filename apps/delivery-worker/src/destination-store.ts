import { createGroupCommit, type OrgId } from '@relay/core';
import type { DeliveryRepository, DeliveryUpdate, LoadedDelivery, NewAttempt, Recorded, RecordItem } from '@relay/db';
import { settleEach, unwrap, type Settled } from './settle-each';

export interface DestinationStore {
  /** A delivery and its destination as they are committed; null: gone. */
  load: (orgId: OrgId, id: string) => Promise<LoadedDelivery | null>;
  /** Resolves once the outcome is committed (DeliveryRepository's `record`). */
  record: (orgId: OrgId, id: string, attempt: NewAttempt, update: DeliveryUpdate) => Promise<Recorded>;
  drain: () => Promise<void>;
}

// Destination deliveries in flight share their database round trips, as the primary's do (delivery-store.ts):
// loads made while the previous load runs become one statement, and outcomes one statement and one commit. Each
// job still waits for its own outcome to be committed, and a batch that fails is stored one delivery at a time.
export function createDestinationStore(
  deliveries: Pick<DeliveryRepository, 'loadMany' | 'recordMany'>,
  // While two statements of a kind run, what arrives meanwhile gathers into the next one (group-commit.ts).
  options = { maxSize: 200, maxWaitMs: 0, maxInFlight: 2 },
): DestinationStore {
  type Ref = { orgId: OrgId; id: string };
  const loads = createGroupCommit<Ref, Settled<LoadedDelivery | null>>({
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
    load: async (orgId, id) => unwrap(await loads.submit({ orgId, id })),
    record: async (orgId, id, attempt, update) => unwrap(await records.submit({ orgId, id, attempt, update })),
    drain: async () => {
      await loads.drain();
      await records.drain();
    },
  };
}
