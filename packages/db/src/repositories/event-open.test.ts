import { v7 as uuidv7 } from 'uuid';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { eventOpenDrift, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { createEventActionRepository } from './event-action.repository';
import { createEventRepository, type NewAttempt, type Outcome } from './event.repository';
import { RECORD_OUTCOMES } from './event.sql';
import { outcomeValues } from './outcome-values';
import { createRuleHealthRepository } from './rule-health.repository';

// event_open holds exactly the events not delivered, with their values of its columns (migration
// 20261207000000_event_open), and every write of events keeps it in its own statement. Each test drives one write path
// through the relay's own code and then compares the table with events (eventOpenDrift).
const database = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
let db: Database;
let ruleId: string;
beforeAll(async () => {
  db = database();
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'open', 'open', 'http://target.example/', now(), now()) RETURNING id`,
    [ORG],
  );
  ruleId = rows[0]!.id;
});
afterEach(async () => {
  expect(await eventOpenDrift(db.pool)).toEqual([]);
});

const ORG = DEFAULT_ORGANIZATION_ID;
const AUDIT = { actorUserId: null, actorEmail: null, action: 'event.test', resourceType: 'event', resourceId: null };
const events = () => createEventRepository(db.pool, { defaultTargetUrl: 'http://default.example/' });
const actions = () => createEventActionRepository(db.pool);
const health = () => createRuleHealthRepository(db.pool);

async function ingest(count: number, orderingKey?: string): Promise<string[]> {
  const ids = Array.from({ length: count }, () => uuidv7());
  await events().insertMany(
    ids.map((id) => ({
      id,
      organizationId: ORG,
      source: 'open',
      targetOverride: null,
      body: Buffer.from('{}'),
      headers: {},
      nextAttemptAt: new Date(),
      ...(orderingKey === undefined ? {} : { orderingKey }),
    })),
  );
  return ids;
}
const attempt = (): NewAttempt => ({
  attemptNumber: 1,
  kind: 'main',
  targetUrl: 'http://target.example/',
  responseStatus: 503,
  responseBody: null,
  error: 'HTTP 503',
  durationMs: 3,
  startedAt: new Date(),
  finishedAt: new Date(),
});
const outcome = (id: string, update: Outcome['update']): Outcome => ({ orgId: ORG, id, attempt: attempt(), update });
const retryIn = (ms: number): Outcome['update'] => ({
  status: 'queued',
  nextAttemptAt: new Date(Date.now() + ms),
  error: 'HTTP 503',
});
const openRow = async (id: string) =>
  (
    await db.pool.query<{ status: string; provider_id: string | null; acknowledged: boolean }>(
      'SELECT status, provider_id, acknowledged_at IS NOT NULL AS acknowledged FROM event_open WHERE id = $1',
      [id],
    )
  ).rows[0] ?? null;

describe('event_open follows every write of events', () => {
  it('ingest adds an open row with its rule', async () => {
    const [id] = await ingest(1);
    expect(await openRow(id!)).toEqual({ status: 'queued', provider_id: ruleId, acknowledged: false });
  });

  it('an outcome updates the row (a retry, a failure, a filtered event) or deletes it (a delivery)', async () => {
    const [retried, failed, ignored, delivered] = await ingest(4);
    await events().recordOutcomes([
      outcome(retried!, retryIn(60_000)),
      outcome(failed!, { status: 'failed', reason: 'http_status', error: 'HTTP 500' }),
      { orgId: ORG, id: ignored!, attempt: null, update: { status: 'ignored' } },
      outcome(delivered!, { status: 'delivered', at: new Date() }),
    ]);
    expect(await openRow(retried!)).toMatchObject({ status: 'queued' });
    expect(await openRow(failed!)).toMatchObject({ status: 'failed' });
    expect(await openRow(ignored!)).toMatchObject({ status: 'ignored' });
    expect(await openRow(delivered!)).toBeNull();
  });

  it('an outcome the guard keeps from changing the status (an acknowledge stood) still moves updated_at', async () => {
    const [id] = await ingest(1);
    await events().recordOutcomes([outcome(id!, { status: 'failed', reason: 'http_status', error: 'HTTP 500' })]);
    await actions().acknowledge(ORG, id!, AUDIT);
    await events().recordOutcomes([outcome(id!, retryIn(1_000))]);
    expect(await openRow(id!)).toEqual({ status: 'failed', provider_id: ruleId, acknowledged: true });
  });

  it('a retry of a delivered event opens it again; a bulk retry too', async () => {
    const [one, two, three] = await ingest(3);
    const at = new Date();
    await events().recordOutcomes([one!, two!, three!].map((id) => outcome(id, { status: 'delivered', at })));
    expect(await openRow(one!)).toBeNull();
    expect(await actions().retry(ORG, one!, AUDIT)).toMatchObject({ id: one, status: 'queued' });
    expect(await openRow(one!)).toMatchObject({ status: 'queued' });
    const bulk = await actions().bulkRetry(ORG, { ids: [two!, three!] }, 10, () => AUDIT);
    expect(bulk.ids.sort()).toEqual([two!, three!].sort());
    expect(await openRow(three!)).toMatchObject({ status: 'queued' });
  });

  it("an acknowledge of an ordered head that still retries fails it, and the key's next event stays open", async () => {
    const [head, next] = await ingest(2, 'key-1');
    await events().recordOutcomes([outcome(head!, retryIn(60_000))]);
    const acked = await actions().acknowledgeBlockedHead(ORG, head!, AUDIT);
    expect(acked?.state).toMatchObject({ status: 'failed', acknowledged: true });
    expect(await openRow(head!)).toMatchObject({ status: 'failed', acknowledged: true });
    expect(await openRow(next!)).toMatchObject({ status: 'queued' });
  });

  it('a rule turning unhealthy pauses its queued events, a pause of one more follows, and a resume queues them', async () => {
    const [cause, waiting] = await ingest(2);
    const turned = await health().markUnhealthy(ORG, ruleId, 'failing', new Date(), () => AUDIT, cause);
    expect(turned?.pausedIds).toContain(waiting);
    expect(turned?.pausedIds).not.toContain(cause);
    expect(await openRow(waiting!)).toMatchObject({ status: 'paused' });
    expect(await openRow(cause!)).toMatchObject({ status: 'queued' });
    const [late] = await ingest(1);
    expect(await health().pauseEvent(ORG, late!, ruleId, AUDIT)).toEqual({ health: 'unhealthy', paused: true });
    expect(await openRow(late!)).toMatchObject({ status: 'paused' });
    const resumed = await health().resume(ORG, ruleId, () => AUDIT);
    expect(resumed?.resumedIds).toEqual(expect.arrayContaining([waiting, late]));
    expect(await openRow(late!)).toMatchObject({ status: 'queued' });
  });

  it('a deletion, one or in bulk, removes the rows', async () => {
    const [one, two, three] = await ingest(3);
    expect(await actions().delete(ORG, one!, AUDIT)).toBe(true);
    await actions().bulkDelete(ORG, { ids: [two!, three!] }, 10, () => AUDIT);
    expect(await openRow(one!)).toBeNull();
    expect(await openRow(three!)).toBeNull();
  });
});

describe("an outcome's update of events", () => {
  // The point of event_open: with no index on a column an outcome changes and room on the page (fillfactor 70),
  // Postgres updates the row in place (HOT) and adds no index entry.
  it('is a HOT update, a retry and a delivery alike', async () => {
    const ids = await ingest(4);
    const client = await db.pool.connect();
    try {
      const hot = async () =>
        (
          await client.query<{ n: number }>(
            `SELECT coalesce(sum(n_tup_hot_upd), 0)::int AS n
             FROM pg_stat_xact_user_tables WHERE relid IN (SELECT relid FROM pg_partition_tree('events'))`,
          )
        ).rows[0]!.n;
      const record = async (indexFirst: boolean) => {
        await client.query('BEGIN');
        // The same with an index on updated_at, as events had before (every outcome changes it): no HOT update.
        if (indexFirst) await client.query('CREATE INDEX ON events (updated_at)');
        const before = await hot();
        await client.query(RECORD_OUTCOMES, outcomeValues(ids, ORG, ['queued', 'queued', 'delivered', 'delivered']));
        const made = (await hot()) - before;
        await client.query('ROLLBACK');
        return made;
      };
      expect(await record(true)).toBe(0);
      expect(await record(false)).toBe(4);
    } finally {
      client.release();
    }
  });
});
