import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import pg from 'pg';
import { isDatabaseUnavailable } from './database';

// The errors a partitioned history adds must read as "retry later" (the documented 503 with Retry-After), never
// as a bad request or an opaque 500: a row with no partition yet, and a lock wait past lock_timeout. Produced by
// the real server, so a change in Postgres' codes or wording fails here.
describe('isDatabaseUnavailable', () => {
  let db: TestDatabase;
  let client: pg.Client;
  let other: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    other = new pg.Client({ connectionString: db.url });
    await client.connect();
    await other.connect();
    await client.query(`CREATE TABLE history (id int NOT NULL, at timestamp(3) NOT NULL) PARTITION BY RANGE (at)`);
    await client.query(
      `CREATE TABLE history_p20261126 PARTITION OF history FOR VALUES FROM ('2026-11-26') TO ('2026-11-27')`,
    );
    await client.query(`CREATE TABLE checked (n int CHECK (n > 0))`);
  });

  afterAll(async () => {
    await client?.end();
    await other?.end();
    await db?.drop();
  });

  async function failure(run: () => Promise<unknown>): Promise<unknown> {
    try {
      await run();
    } catch (err) {
      return err;
    }
    throw new Error('expected the statement to fail');
  }

  it('a row outside every partition (23514 "no partition") is unavailability', async () => {
    const err = await failure(() => client.query(`INSERT INTO history VALUES (1, '2026-12-03 10:00')`));
    expect((err as { code: string }).code).toBe('23514');
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it('another check violation (23514) is a bad write, not unavailability', async () => {
    const err = await failure(() => client.query(`INSERT INTO checked VALUES (-1)`));
    expect((err as { code: string }).code).toBe('23514');
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('a lock wait past lock_timeout (55P03) is unavailability', async () => {
    await other.query('BEGIN');
    await other.query('LOCK TABLE checked IN ACCESS EXCLUSIVE MODE');
    try {
      await client.query(`SET lock_timeout = '50ms'`);
      const err = await failure(() => client.query('SELECT * FROM checked'));
      expect((err as { code: string }).code).toBe('55P03');
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      await other.query('ROLLBACK');
      await client.query('RESET lock_timeout');
    }
  });

  it('a unique violation (23505) is not unavailability', async () => {
    await client.query('CREATE TABLE uniq (id int PRIMARY KEY)');
    await client.query('INSERT INTO uniq VALUES (1)');
    const err = await failure(() => client.query('INSERT INTO uniq VALUES (1)'));
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
