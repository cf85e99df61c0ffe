import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createDatabase, createEventRepository, type Database, type Outcome } from '@relay/db';
import { createTestDatabase, seedEvents, type TestDatabase } from '@relay/test-support';
import { createDeliveryStore } from './delivery-store';

// The store hands each loaded event's partition key to its later statements (docs/partitioning.md "Pruning"), and
// a batch written in part fails only the outcomes that were not written.
const orgId = DEFAULT_ORGANIZATION_ID;
let testDb: TestDatabase;
let db: Database;
beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 4 });
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});

const seed = async (count: number) =>
  seedEvents(db.pool, { organizationId: orgId, status: 'queued', count, changedAt: new Date() });
const delivered = (id: string): Outcome => ({
  orgId,
  id,
  attempt: {
    attemptNumber: 1,
    kind: 'main',
    targetUrl: 'http://target.example/hook',
    responseStatus: 200,
    responseBody: 'ok',
    error: null,
    durationMs: 3,
    startedAt: new Date(),
    finishedAt: new Date(),
  },
  update: { status: 'delivered', at: new Date() },
});
const attemptsOf = async (id: string) =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM delivery_attempts WHERE event_id = $1', [id]))
    .rows[0]!.n;

describe('delivery store and partition keys', () => {
  it("gives a loaded event's partition key to its outcome, and forgets it once the outcome is final", async () => {
    const events = createEventRepository(db.pool, { defaultTargetUrl: undefined });
    const recorded: Outcome[][] = [];
    const store = createDeliveryStore({
      ...events,
      recordOutcomes: (batch) => (recorded.push([...batch]), events.recordOutcomes(batch)),
    });
    const [id] = await seed(1);
    const loaded = await store.load({ orgId, id: id! });
    expect(loaded?.partitionAt).toBeInstanceOf(Date);
    await store.record(delivered(id!));
    expect(recorded[0]![0]!.partitionAt).toEqual(loaded!.partitionAt);
    // Final: the key is dropped, so a later write of the same event goes by id.
    await db.pool.query(`UPDATE events SET status = 'queued' WHERE id = $1`, [id]);
    await store.record(delivered(id!));
    expect(recorded[1]![0]!.partitionAt).toBeUndefined();
    await store.drain();
  });

  it('a batch written in part resolves the written outcomes and rejects only the others', async () => {
    const events = createEventRepository(db.pool, { defaultTargetUrl: undefined });
    const batches: number[] = [];
    const store = createDeliveryStore({
      ...events,
      recordOutcomes: (batch) => (batches.push(batch.length), events.recordOutcomes(batch)),
    });
    const [kept, gone] = (await seed(2)) as [string, string];
    await Promise.all([store.load({ orgId, id: kept }), store.load({ orgId, id: gone })]);
    await db.pool.query('DELETE FROM events WHERE id = $1', [gone]);
    const results = await Promise.allSettled([store.record(delivered(kept)), store.record(delivered(gone))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    // One batch of two, then only the failed outcome again alone: the written one is not written twice.
    expect(batches).toEqual([2, 1]);
    expect(await attemptsOf(kept)).toBe(1);
    await store.drain();
  });
});
