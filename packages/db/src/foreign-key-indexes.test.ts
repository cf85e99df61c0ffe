import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import pg from 'pg';

// Every foreign key needs an index whose leading columns are its columns: without one, a delete of the
// referenced row (a cascade, retention, an organization's deletion) and a detach of a referenced partition
// scan the whole referencing table (trigger.dev#2105). Read from the migrated schema itself, so a migration
// that adds a foreign key without its index fails here. A partial index does not count (it may not cover
// the rows the check looks for); column order within the leading columns does not matter.
const UNINDEXED_FOREIGN_KEYS = `
SELECT c.conrelid::regclass::text AS "table", c.conname AS "constraint",
  array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS "columns"
FROM pg_constraint c
WHERE c.contype = 'f' AND c.conparentid = 0 AND c.connamespace = 'public'::regnamespace
  AND NOT EXISTS (
    SELECT 1 FROM pg_index i
    WHERE i.indrelid = c.conrelid AND i.indpred IS NULL
      AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
      AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
ORDER BY 1, 2`;

interface Unindexed {
  table: string;
  constraint: string;
  columns: string[];
}

describe('every foreign key has an index', () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('holds for the migrated schema', async () => {
    const { rows: keys } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace",
    );
    // The check is only as good as what it reads: the schema has foreign keys to check.
    expect(keys[0]!.n).toBeGreaterThan(10);
    const { rows } = await client.query<Unindexed>(UNINDEXED_FOREIGN_KEYS);
    expect(rows).toEqual([]);
  });

  it('finds a foreign key without an index, and accepts only an index led by its columns', async () => {
    await client.query('BEGIN');
    try {
      await client.query(`CREATE TABLE fk_probe_parent (a int, b int, PRIMARY KEY (a, b))`);
      await client.query(`CREATE TABLE fk_probe (id int PRIMARY KEY, x int, a int, b int,
        CONSTRAINT fk_probe_ab FOREIGN KEY (a, b) REFERENCES fk_probe_parent (a, b))`);
      const unindexed = async () =>
        (await client.query<Unindexed>(UNINDEXED_FOREIGN_KEYS)).rows.filter((r) => r.table === 'fk_probe');
      expect(await unindexed()).toEqual([{ table: 'fk_probe', constraint: 'fk_probe_ab', columns: ['a', 'b'] }]);

      // Its columns present but not leading, and a partial index: still unindexed.
      await client.query('CREATE INDEX fk_probe_x_a_b ON fk_probe (x, a, b)');
      await client.query('CREATE INDEX fk_probe_partial ON fk_probe (a, b) WHERE x > 0');
      await client.query('CREATE INDEX fk_probe_a ON fk_probe (a)');
      expect(await unindexed()).toHaveLength(1);

      // Led by its columns, in either order, with more after them: indexed.
      await client.query('CREATE INDEX fk_probe_b_a_x ON fk_probe (b, a, x)');
      expect(await unindexed()).toEqual([]);
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
