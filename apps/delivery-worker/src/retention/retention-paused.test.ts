import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createDatabase, createRetentionRepository, type Database } from '@relay/db';
import { createTestDatabase, seedEvents, type TestDatabase } from '@relay/test-support';
import { pino } from 'pino';
import { createRetentionRun } from './retention-run';

const NOW = new Date('2027-03-01T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

let testDb: TestDatabase;
let db: Database;
beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 2 });
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});

// A paused event waits for its rule to be resumed: it has not been delivered, so retention must keep it.
describe('retention and paused events', () => {
  it('keeps a paused event older than every retention limit, and deletes the delivered one beside it', async () => {
    const org = DEFAULT_ORGANIZATION_ID;
    const [paused] = await seedEvents(db.pool, {
      organizationId: org,
      count: 1,
      status: 'paused',
      changedAt: daysAgo(400),
    });
    await seedEvents(db.pool, { organizationId: org, count: 1, status: 'delivered', changedAt: daysAgo(400) });
    const run = createRetentionRun({
      repository: createRetentionRepository(db.pool),
      settings: { retentionDays: 1, failedMaxDays: 1, auditRetentionDays: 0 },
      logger: pino({ level: 'silent' }),
      batchSize: 1_000,
      maxRunMs: 60_000,
      now: () => NOW,
      pauseMs: 0,
    });
    expect(await run.runOnce()).toMatchObject({ events: 1, complete: true });
    const { rows } = await db.pool.query<{ id: string; status: string }>('SELECT id, status FROM events');
    expect(rows).toEqual([{ id: paused, status: 'paused' }]);
  });
});
