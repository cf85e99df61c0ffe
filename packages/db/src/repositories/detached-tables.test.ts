import { useTestDatabase } from '@relay/test-support';
import pg from 'pg';
import { createDatabase, type Database } from '../database';
import { dropAllDetached } from './detached-tables';

let url = '';
const database = useTestDatabase((testUrl) => {
  url = testUrl;
  return createDatabase({ url, poolSize: 4 });
});
let db: Database;

beforeAll(() => {
  db = database();
});

const exists = async (names: string[]) =>
  (await db.pool.query<{ relname: string }>('SELECT relname FROM pg_class WHERE relname = ANY($1)', [names])).rows
    .map((r) => r.relname)
    .sort();

// Waits for the tables to be gone (no time bound: the test's own timeout fails it if they never go).
async function gone(names: string[]): Promise<void> {
  while ((await exists(names)).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('dropAllDetached', () => {
  it('drops the other tables while the first one waits for a lock: they do not wait for one another', async () => {
    const names = ['detached_a', 'detached_b', 'detached_c'];
    for (const name of names) await db.pool.query(`CREATE TABLE ${name} (id int PRIMARY KEY)`);
    // A reader holds the first table: its DROP waits until the reader's transaction ends.
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('LOCK TABLE detached_b IN ACCESS SHARE MODE');
      const dropping = dropAllDetached(db.pool, ['detached_b', 'detached_a', 'detached_c']);
      // One table at a time, the drop of the other two would queue behind the first.
      await gone(['detached_a', 'detached_c']);
      expect(await exists(['detached_b'])).toEqual(['detached_b']);
      await reader.query('COMMIT');
      await dropping;
      expect(await exists(names)).toEqual([]);
    } finally {
      await reader.end();
    }
  });

  it('tries every table, then throws the first failure', async () => {
    await db.pool.query('CREATE TABLE detached_d (id int)');
    await db.pool.query('CREATE TABLE detached_e (id int)');
    await expect(dropAllDetached(db.pool, ['detached_missing', 'detached_d', 'detached_e'])).rejects.toMatchObject({
      code: '42P01',
    });
    expect(await exists(['detached_d', 'detached_e'])).toEqual([]);
  });

  it('keeps to its concurrency: with one connection, a table waiting for a lock holds up the rest', async () => {
    await db.pool.query('CREATE TABLE detached_f (id int)');
    await db.pool.query('CREATE TABLE detached_g (id int)');
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('LOCK TABLE detached_f IN ACCESS SHARE MODE');
      const dropping = dropAllDetached(db.pool, ['detached_f', 'detached_g'], 1);
      // The first DROP is waiting for the reader's lock once pg_locks shows it not granted.
      while (
        (await db.pool.query("SELECT 1 FROM pg_locks WHERE relation = 'detached_f'::regclass AND NOT granted"))
          .rowCount === 0
      )
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await exists(['detached_g'])).toEqual(['detached_g']);
      await reader.query('COMMIT');
      await dropping;
      expect(await exists(['detached_f', 'detached_g'])).toEqual([]);
    } finally {
      await reader.end();
    }
  });
});
