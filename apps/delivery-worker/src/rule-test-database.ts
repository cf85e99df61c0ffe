import { createDatabase, type Database } from '@relay/db';
import { createTestDatabase, type TestDatabase } from '@relay/test-support';

/**
 * For tests of the worker's rule-bound parts (health, the delivery stages): a test database of the file's
 * own, handed to `opened`, with its events, audit entries and rules deleted before each test.
 */
export function useRuleTestDatabase(opened: (db: Database) => void): void {
  let testDb: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase({ url: testDb.url, poolSize: 3 });
    opened(db);
  });
  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });
  beforeEach(async () => {
    // DELETE, not TRUNCATE: the children of events and rules go with them (cascades).
    await db.pool.query('DELETE FROM events');
    await db.pool.query('DELETE FROM audit_entries');
    await db.pool.query('DELETE FROM providers');
  });
}
