import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createTestDatabase, seedEvents, type TestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { INDEX_TAKEN } from './event-search.repository';
import { createEventRepository, type Outcome } from './event.repository';
import { LOAD_EVENTS_IN_RANGE, RECORD_OUTCOMES_PRUNED, STORE_TRANSFORMED_PRUNED } from './event.sql';
import { loadRange, OutcomesPartlyRecorded, partitionKey } from './partition-pruning';

// The worker's statements pruned to their events' partitions at plan time (docs/partitioning.md "Pruning"), and the
// fallback by id that keeps a stale or missing partition key from losing a write or writing one twice.
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const orgId = DEFAULT_ORGANIZATION_ID;
const suffix = (at: Date) => at.toISOString().slice(0, 10).replaceAll('-', '');

let testDb: TestDatabase;
let db: Database;
beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 4 });
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});

const events = (now = Date.now) => createEventRepository(db.pool, { defaultTargetUrl: undefined, now });
const seedOne = async (partitionAt?: Date) =>
  (
    await seedEvents(db.pool, { organizationId: orgId, status: 'queued', count: 1, changedAt: new Date(), partitionAt })
  )[0]!;
const partitionAtOf = async (id: string) =>
  (await db.pool.query<{ p: Date }>('SELECT partition_at AS p FROM events WHERE id = $1', [id])).rows[0]!.p;
const state = async (id: string) =>
  (
    await db.pool.query<{ status: string; attempt_count: number; attempts: number; attempt_partition: Date | null }>(
      `SELECT status, attempt_count, (SELECT count(*)::int FROM delivery_attempts a WHERE a.event_id = e.id) AS attempts,
         (SELECT max(a.partition_at) FROM delivery_attempts a WHERE a.event_id = e.id) AS attempt_partition
       FROM events e WHERE id = $1`,
      [id],
    )
  ).rows[0]!;
const delivered = (id: string, partitionAt?: Date): Outcome => ({
  orgId,
  id,
  partitionAt,
  attempt: {
    attemptNumber: 1,
    kind: 'main',
    targetUrl: 'http://target.example/hook',
    responseStatus: 200,
    responseBody: 'ok',
    error: null,
    durationMs: 3,
    startedAt: new Date(),
    finishedAt: new Date(),
  },
  update: { status: 'delivered', at: new Date() },
});
/** The events partitions a statement's plan touches. */
const partitionsPlanned = async (sql: string, values: unknown[]) => {
  const { rows } = await db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
  return [...new Set(rows.flatMap((r) => r['QUERY PLAN'].match(/\bevents_p\d{8}\b/g) ?? []))].sort();
};

describe('the load range', () => {
  it('is 6 hours back and 1 hour ahead of the clock, widened to the keys the refs carry', () => {
    const now = Date.UTC(2026, 11, 3, 12);
    expect(loadRange([{}], now)).toEqual({ from: new Date(now - 6 * HOUR), to: new Date(now + HOUR) });
    const old = new Date(now - 3 * DAY);
    const later = new Date(now + 2 * HOUR);
    expect(loadRange([{ partitionAt: old }, { partitionAt: later }], now)).toEqual({
      from: old,
      to: new Date(later.getTime() + 1),
    });
  });

  it('keys are the UTC timestamp to the millisecond, without a zone', () => {
    expect(partitionKey(new Date('2026-12-03T17:27:48.129Z'))).toBe('2026-12-03T17:27:48.129');
  });
});

describe('plan-time pruning', () => {
  it('a load by id plans only the partitions of its range, not the 7 days created ahead', async () => {
    const now = new Date();
    const { from, to } = loadRange([{}], now.getTime());
    const planned = await partitionsPlanned(LOAD_EVENTS_IN_RANGE, [
      [await seedOne()],
      [orgId],
      partitionKey(from),
      partitionKey(to),
    ]);
    expect(planned).toContain(`events_p${suffix(now)}`);
    expect(planned).not.toContain(`events_p${suffix(new Date(now.getTime() + 2 * DAY))}`);
    expect(planned.length).toBeLessThanOrEqual(2);
  });

  it('an outcome and a transform output plan only their event partition', async () => {
    const id = await seedOne();
    const key = partitionKey(await partitionAtOf(id));
    const today = [`events_p${suffix(await partitionAtOf(id))}`];
    const outcome = [
      ...Array.from({ length: 11 }, () => []),
      [id],
      [orgId],
      ['delivered'],
      [1],
      [null],
      [null],
      [null],
      [new Date()],
      [],
      [key],
    ];
    expect(await partitionsPlanned(RECORD_OUTCOMES_PRUNED, outcome)).toEqual(today);
    const transform = [[orgId], [id], [Buffer.from('{}')], ['{}'], [null], [''], [key]];
    expect(await partitionsPlanned(STORE_TRANSFORMED_PRUNED, transform)).toEqual(today);
  });

  it("the search indexer reads its batch's text from the partitions of the batch's range only", async () => {
    const id = await seedOne();
    const key = partitionKey(await partitionAtOf(id));
    expect(await partitionsPlanned(INDEX_TAKEN, [[id], [], key, key])).toEqual([
      `events_p${suffix(await partitionAtOf(id))}`,
    ]);
  });
});

describe('loads and writes by partition key, with the fallback by id', () => {
  it('loads an event outside the range (found by id in every partition) and answers each key', async () => {
    const recent = await seedOne();
    const ahead = await seedOne(new Date(Date.now() + 3 * DAY));
    const loaded = await events().findMany([
      { orgId, id: recent },
      { orgId, id: ahead },
    ]);
    expect(new Map(loaded.map((e) => [e.id, e.partitionAt]))).toEqual(
      new Map([
        [recent, await partitionAtOf(recent)],
        [ahead, await partitionAtOf(ahead)],
      ]),
    );
  });

  it('writes an outcome by its key once, and one whose key went stale (the event moved) once by id', async () => {
    const [id, moved] = [await seedOne(), await seedOne()];
    const keyOfMoved = await partitionAtOf(moved);
    await db.pool.query(`UPDATE events SET partition_at = partition_at + interval '2 days' WHERE id = $1`, [moved]);
    await events().recordOutcomes([delivered(id, await partitionAtOf(id)), delivered(moved, keyOfMoved)]);
    for (const each of [id, moved])
      expect(await state(each)).toEqual({
        status: 'delivered',
        attempt_count: 1,
        attempts: 1,
        attempt_partition: await partitionAtOf(each),
      });
  });

  it('a fallback that fails fails only its own outcomes: the pruned ones stay written, once', async () => {
    const [kept, gone] = [await seedOne(), await seedOne()];
    const keyOfGone = await partitionAtOf(gone);
    await db.pool.query('DELETE FROM events WHERE id = $1', [gone]);
    const written = events().recordOutcomes([delivered(kept, await partitionAtOf(kept)), delivered(gone, keyOfGone)]);
    const error = await written.then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(OutcomesPartlyRecorded);
    expect([...(error as OutcomesPartlyRecorded).failed]).toEqual([gone]);
    expect(await state(kept)).toMatchObject({ status: 'delivered', attempt_count: 1, attempts: 1 });
  });

  it('stores a transform output by a stale key by id, and by none at all', async () => {
    const [moved, plain] = [await seedOne(), await seedOne()];
    const keyOfMoved = await partitionAtOf(moved);
    await db.pool.query(`UPDATE events SET partition_at = partition_at + interval '2 days' WHERE id = $1`, [moved]);
    const output = { body: Buffer.from('{"x":1}'), headers: {}, path: null, logs: '' };
    const stored = await events().storeTransformed([
      { orgId, id: moved, partitionAt: keyOfMoved, output },
      { orgId, id: plain, output },
    ]);
    expect(stored.map((s) => s?.body.toString())).toEqual(['{"x":1}', '{"x":1}']);
  });
});
