import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import pg from 'pg';

// The per-batch functions keep their plans in production, not only in their plan tests (kept-plan-scans.ts forces
// generic plans there): migration 20261205700000_generic_plans declares plan_cache_mode = force_generic_plan on each,
// since plan_cache_mode auto planned small batches at every call. A function added or replaced later without it
// fails here.
// Not per batch: the triggers (once per statement) and the search's candidates (measured on its own, docs/search.md).
const NOT_PER_BATCH = ['relay_delete_event_rows', 'relay_unindex_deleted_events', 'relay_search_candidates'];

let testDb: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  testDb = await createTestDatabase();
  pool = new pg.Pool({ connectionString: testDb.url, max: 1 });
});
afterAll(async () => {
  await pool.end();
  await testDb.drop();
});

describe('plans kept by the per-batch functions', () => {
  it('every plpgsql function of the relay but the triggers and the search declares force_generic_plan', async () => {
    const { rows } = await pool.query<{ name: string; generic: boolean }>(
      `SELECT p.proname AS name, coalesce('plan_cache_mode=force_generic_plan' = ANY (p.proconfig), false) AS generic
       FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.proname LIKE 'relay\\_%' AND l.lanname = 'plpgsql' ORDER BY 1`,
    );
    const perBatch = rows.filter((r) => !NOT_PER_BATCH.includes(r.name));
    expect(perBatch.map((r) => r.name)).toEqual(
      expect.arrayContaining(['relay_insert_events', 'relay_load_events', 'relay_record_outcomes', 'relay_fan_out']),
    );
    expect(perBatch.filter((r) => !r.generic).map((r) => r.name)).toEqual([]);
  });
});
