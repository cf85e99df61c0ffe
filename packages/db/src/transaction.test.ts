import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from './database';
import { rollback, withTransaction } from './transaction';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 2 });
  await db.pool.query('CREATE TABLE tx_probe (n int)');
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});
beforeEach(async () => {
  await db.pool.query('TRUNCATE tx_probe');
});

const rows = async () => (await db.pool.query<{ n: number }>('SELECT n FROM tx_probe ORDER BY n')).rows.map((r) => r.n);

describe('withTransaction', () => {
  it('commits what the work wrote and answers its result', async () => {
    const answer = await withTransaction(db.pool, async (client) => {
      await client.query('INSERT INTO tx_probe VALUES (1), (2)');
      return 'done';
    });
    expect(answer).toBe('done');
    expect(await rows()).toEqual([1, 2]);
  });

  it('rolls back and rethrows when the work throws', async () => {
    const failing = withTransaction(db.pool, async (client) => {
      await client.query('INSERT INTO tx_probe VALUES (1)');
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    expect(await rows()).toEqual([]);
  });

  it('rolls back without an error when the work returns rollback(value), and answers the value', async () => {
    const answer = await withTransaction<string | null>(db.pool, async (client) => {
      await client.query('INSERT INTO tx_probe VALUES (1)');
      return rollback(null);
    });
    expect(answer).toBeNull();
    expect(await rows()).toEqual([]);
  });

  it('gives the client back to the pool either way', async () => {
    await withTransaction(db.pool, async () => rollback(0));
    await withTransaction(db.pool, async () => Promise.reject(new Error('x'))).catch(() => undefined);
    await withTransaction(db.pool, async () => 1);
    expect(db.pool.idleCount).toBe(db.pool.totalCount);
  });
});
