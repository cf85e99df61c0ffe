import type pg from 'pg';

/** What `work` returns to undo its writes and still answer `value` (a condition that is no error). */
class Rollback<T> {
  constructor(readonly value: T) {}
}

/** Ends the transaction of `withTransaction` with a rollback; the helper answers `value`. */
export function rollback<T>(value: T): Rollback<T> {
  return new Rollback(value);
}

/**
 * Runs `work` in one transaction on a client of the pool: commits what it returns, rolls back when it
 * throws (and rethrows) or returns `rollback(value)`. The raw-SQL repositories' one BEGIN/COMMIT/ROLLBACK
 * block; Prisma-backed ones use `atomically` (client.ts).
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T | Rollback<T>>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    if (result instanceof Rollback) {
      await client.query('ROLLBACK');
      return result.value;
    }
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined); // the original error is the one to report
    throw err;
  } finally {
    client.release();
  }
}
