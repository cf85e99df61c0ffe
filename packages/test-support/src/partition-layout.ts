import type pg from 'pg';

const FAMILY = ['events', 'delivery_attempts', 'event_search_keys', 'event_payloads', 'deliveries'];
const DAY_MS = 86_400_000;
const day = (at: Date) => at.toISOString().slice(0, 10).replaceAll('-', '');

/**
 * Replaces the history's partitions (docs/partitioning.md) with a fixed layout: `<table>_first` from MINVALUE to
 * `firstEnd` (a UTC midnight), then `days` day partitions, so a test's expectations are names and bounds at a date
 * of its own rather than arithmetic on the day the test template was migrated. The tables must be empty.
 */
export async function layOutDayPartitions(db: pg.Pool, firstEnd: Date, days: number): Promise<void> {
  // Children first: events' partitions are what their foreign keys reference.
  for (const table of [...FAMILY].reverse()) {
    const { rows } = await db.query<{ name: string }>(
      'SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = $1::regclass',
      [table],
    );
    for (const { name } of rows) {
      await db.query(`ALTER TABLE ${table} DETACH PARTITION ${name}`);
      await db.query(`DROP TABLE ${name}`);
    }
  }
  const bound = async (at: Date) =>
    (await db.query<{ id: string }>('SELECT relay_uuid7_floor($1::timestamptz)::text AS id', [at])).rows[0]!.id;
  for (const table of FAMILY) {
    const end = await bound(firstEnd);
    await db.query(`CREATE TABLE ${table}_first PARTITION OF ${table} FOR VALUES FROM (MINVALUE) TO ('${end}')`);
    for (let i = 0; i < days; i++) {
      const from = new Date(firstEnd.getTime() + i * DAY_MS);
      const to = new Date(from.getTime() + DAY_MS);
      await db.query(
        `CREATE TABLE ${table}_p${day(from)} PARTITION OF ${table}
         FOR VALUES FROM ('${await bound(from)}') TO ('${await bound(to)}')`,
      );
    }
  }
}
