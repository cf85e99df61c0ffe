import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createTestDatabase, eventOpenDrift, reopenEvents, seedEvents, type TestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { createEventRepository, type Outcome } from './event.repository';

// An attempt's outcome is written after the attempt; an operator's acknowledge (of a retrying ordered head) or a
// rule's pause may have committed in between. Their state stands; the attempt is still recorded and counted.
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

const orgId = DEFAULT_ORGANIZATION_ID;
const attempt = (n: number) => ({
  attemptNumber: n,
  kind: 'main' as const,
  targetUrl: 'http://target.example/hook',
  responseStatus: 503,
  responseBody: null,
  error: 'HTTP 503',
  durationMs: 5,
  startedAt: new Date(),
  finishedAt: new Date(),
});
const retryOf = (id: string): Outcome => ({
  orgId,
  id,
  attempt: attempt(2),
  update: { status: 'queued', nextAttemptAt: new Date(Date.now() + 60_000), error: 'HTTP 503' },
});
const row = async (id: string) =>
  (
    await db.pool.query<{ status: string; failure_reason: string | null; attempt_count: number; attempts: number }>(
      `SELECT status, failure_reason, attempt_count,
         (SELECT count(*)::int FROM delivery_attempts a WHERE a.event_id = e.id) AS attempts
       FROM events e WHERE id = $1`,
      [id],
    )
  ).rows[0]!;

// event_open follows the status the guard leaves, not the outcome's.
afterEach(async () => {
  expect(await eventOpenDrift(db.pool)).toEqual([]);
});

describe('recording an outcome after the event changed under the attempt', () => {
  const events = () => createEventRepository(db.pool, { defaultTargetUrl: undefined });

  it("keeps an acknowledge that committed during the attempt: the worker's retry does not revive the event", async () => {
    const [id] = await seedEvents(db.pool, {
      organizationId: orgId,
      status: 'queued',
      count: 1,
      changedAt: new Date(),
    });
    await db.pool.query(
      `UPDATE events SET status = 'failed', failure_reason = 'acknowledged', attempt_count = 1,
         acknowledged_at = now() WHERE id = $1`,
      [id],
    );
    await reopenEvents(db.pool, [id!]);
    await events().recordOutcomes([retryOf(id!)]);
    expect(await row(id!)).toEqual({ status: 'failed', failure_reason: 'acknowledged', attempt_count: 2, attempts: 1 });
  });

  it('keeps a pause that committed during the attempt, and lets a delivery through whatever happened', async () => {
    const [paused, delivered] = await seedEvents(db.pool, {
      organizationId: orgId,
      status: 'paused',
      count: 2,
      changedAt: new Date(),
    });
    await events().recordOutcomes([
      retryOf(paused!),
      { orgId, id: delivered!, attempt: attempt(1), update: { status: 'delivered', at: new Date() } },
    ]);
    expect(await row(paused!)).toMatchObject({ status: 'paused', attempts: 1 });
    expect(await row(delivered!)).toMatchObject({ status: 'delivered', failure_reason: null, attempts: 1 });
  });

  it('writes the outcome of a queued event as before', async () => {
    const [id] = await seedEvents(db.pool, {
      organizationId: orgId,
      status: 'queued',
      count: 1,
      changedAt: new Date(),
    });
    await events().recordOutcomes([retryOf(id!)]);
    expect(await row(id!)).toEqual({ status: 'queued', failure_reason: null, attempt_count: 1, attempts: 1 });
  });
});
