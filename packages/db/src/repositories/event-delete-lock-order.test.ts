import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createTestDatabase, seedEvents, type TestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { createEventActionRepository } from './event-action.repository';
import { createEventSearchRepository } from './event-search.repository';

// Deleting events while the workers' search indexer moves their pending rows: both must take the
// pending row before the event, or Postgres finds a deadlock and aborts one of them (a 500 to the user).
let testDb: TestDatabase;
let db: Database;
beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 12 });
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});

const audit = (id: string) => ({
  actorUserId: null,
  actorEmail: null,
  action: 'event.deleted',
  resourceType: 'event',
  resourceId: id,
});

async function pendingEvents(count: number): Promise<string[]> {
  const ids = await seedEvents(db.pool, {
    organizationId: DEFAULT_ORGANIZATION_ID,
    status: 'delivered',
    count,
    changedAt: new Date(),
  });
  await db.pool.query(
    'INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM events WHERE id = ANY($1)',
    [ids],
  );
  return ids;
}

describe('deleting events while they are being indexed', () => {
  it('single and bulk deletes never deadlock with indexing batches', async () => {
    const actions = createEventActionRepository(db.pool);
    const search = createEventSearchRepository(db.pool);
    for (let round = 0; round < 5; round++) {
      const ids = await pendingEvents(200);
      let deleting = true;
      // Two indexers (two workers) taking small batches for as long as the deletes run.
      const indexers = [0, 1].map(async () => {
        while (deleting) if ((await search.indexPending(5)) === 0) await new Promise((r) => setImmediate(r));
      });
      const singles = ids.slice(0, 150);
      const queue = [...singles];
      const deleters = Array.from({ length: 6 }, async () => {
        for (let id = queue.shift(); id; id = queue.shift())
          expect(await actions.delete(DEFAULT_ORGANIZATION_ID, id, audit(id))).toBe(true);
      });
      const bulk = actions.bulkDelete(DEFAULT_ORGANIZATION_ID, { ids: ids.slice(150) }, 100, () => audit('bulk'));
      await Promise.all([...deleters, bulk]);
      deleting = false;
      await Promise.all(indexers);
      const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)', [ids]);
      expect(rows[0].n).toBe(0);
    }
  });
});
