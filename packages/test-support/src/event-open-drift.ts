import type pg from 'pg';

const COLUMNS = 'id, organization_id, provider_id, status, acknowledged_at, next_attempt_at, created_at, updated_at';

/**
 * Where event_open differs from what it must be, the events not delivered with their values of its columns: the rows
 * missing from it and those it has wrong or too many (empty when in step). For the tests of the writes that keep it.
 */
export async function eventOpenDrift(db: Pick<pg.Pool, 'query'>): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `WITH want AS (SELECT ${COLUMNS} FROM events WHERE status <> 'delivered'),
     have AS (SELECT ${COLUMNS} FROM event_open)
     SELECT 'missing' AS drift, * FROM (SELECT * FROM want EXCEPT SELECT * FROM have) m
     UNION ALL
     SELECT 'extra' AS drift, * FROM (SELECT * FROM have EXCEPT SELECT * FROM want) x`,
  );
  return rows;
}
