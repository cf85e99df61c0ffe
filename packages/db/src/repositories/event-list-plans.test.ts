import { DEFAULT_ORGANIZATION_ID, type EventStatus, type OrgId } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { selectEvents } from './event-action.repository';
import type { EventFilter } from './event-filter.sql';
import { EXACT_COUNT_CAP, createEventQueryRepository } from './event-query.repository';
import { planScans, recordingPool, type PlanScan } from './list-plan-scans';

// events has no index led by status (20261207100000_hot_outcomes): a list of a status not delivered, or of the
// events needing attention, finds its rows in event_open and looks each one up in events by primary key, where
// reading events' (organization_id, created_at) index would step over every delivered event to find them.
const database = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
let db: Database;

const ORG = DEFAULT_ORGANIZATION_ID;
const OPEN_INDEX = 'event_open_organization_id_status_created_at_idx';
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
let other: OrgId;
let crowded: OrgId;

const newOrg = async (slug: string) =>
  (
    await db.pool.query<{ id: OrgId }>(
      `INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), $1, $1, now()) RETURNING id`,
      [slug],
    )
  ).rows[0]!.id;

// The events of the organization in the list's order, straight from events: what every list must answer.
async function expected(orgId: OrgId, where: string, order = 'created_at DESC, id DESC'): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT id FROM events WHERE organization_id = $1 AND ${where} ORDER BY ${order}`,
    [orgId],
  );
  return rows.map((r) => r.id);
}

beforeAll(async () => {
  db = database();
  other = await newOrg('other');
  crowded = await newOrg('crowded');
  // Ten minutes of traffic, the failed and queued events among the delivered ones (so no range of ids or times
  // holds only them), some failures acknowledged; another organization's failures alike.
  for (let m = 10; m > 0; m--) {
    await seedEvents(db.pool, { organizationId: ORG, status: 'delivered', count: 2000, changedAt: minutesAgo(m) });
    await seedEvents(db.pool, { organizationId: ORG, status: 'failed', count: 3, changedAt: minutesAgo(m) });
    const acknowledged = m % 3 === 0;
    await seedEvents(db.pool, {
      organizationId: ORG,
      status: 'failed',
      count: 1,
      changedAt: minutesAgo(m),
      acknowledged,
    });
    await seedEvents(db.pool, { organizationId: ORG, status: 'queued', count: 150, changedAt: minutesAgo(m) });
    await seedEvents(db.pool, { organizationId: other, status: 'failed', count: 2, changedAt: minutesAgo(m) });
  }
  await seedEvents(db.pool, { organizationId: ORG, status: 'paused', count: 4, changedAt: minutesAgo(5) });
  // An organization with more queued events than a page's total counts exactly; the oldest few hold a rare word.
  await seedEvents(db.pool, {
    organizationId: crowded,
    status: 'queued',
    count: 5,
    changedAt: minutesAgo(30),
    body: '{"needle":true}',
    search: 'pending',
  });
  await seedEvents(db.pool, {
    organizationId: crowded,
    status: 'queued',
    count: EXACT_COUNT_CAP + 200,
    changedAt: minutesAgo(20),
  });
  await db.pool.query('ANALYZE events');
  await db.pool.query('ANALYZE event_open');
});

// A list's statements as the repository builds them, each with the scans it ran (a search's walk: those of its
// newest events, `recent`; the text it then checks each one by is the search's to plan).
async function listed(orgId: OrgId, filter: EventFilter, page = 1, perPage = 50) {
  const recorder = recordingPool(db.pool);
  const answer = await createEventQueryRepository(recorder.pool).page(orgId, filter, page, perPage);
  const statements = await Promise.all(
    recorder.statements.map(async ({ sql, params }) => ({
      sql,
      scans: await planScans(
        db.pool,
        sql.replace(/^EXPLAIN \(FORMAT JSON\) /, ''),
        params,
        sql.includes('WITH recent AS') ? 'CTE recent' : undefined,
      ),
    })),
  );
  return { answer, statements };
}

// Reads event_open by an index, and events only by primary key (no sequential scan of either, no other index).
function readsOpenOnly(scans: PlanScan[]) {
  const ofEvents = scans.filter((s) => s.table === 'events' || s.table === 'event_open');
  expect(ofEvents.filter((s) => s.node === 'Seq Scan')).toEqual([]);
  const probe = (s: PlanScan) => /^Index (Only )?Scan$/.test(s.node) && /pkey/.test(s.index ?? '');
  expect(ofEvents.filter((s) => s.table === 'events' && !probe(s))).toEqual([]);
  expect(ofEvents.some((s) => s.table === 'event_open')).toBe(true);
}

describe('a list of events not delivered', () => {
  it.each<EventStatus>(['failed', 'queued', 'paused'])(
    'of status %s reads event_open, in order and paged',
    async (status) => {
      const all = await expected(ORG, `status = '${status}'`);
      const { answer, statements } = await listed(ORG, { status }, 2, 3);
      expect(answer.events.map((e) => e.id)).toEqual(all.slice(3, 6));
      expect(answer.events.every((e) => e.status === status)).toBe(true);
      expect({ total: answer.total, exact: answer.totalExact }).toEqual({ total: all.length, exact: true });
      for (const { scans } of statements) readsOpenOnly(scans);
      // The page walks event_open's index in its order.
      expect(statements[0]!.scans).toContainEqual({ node: 'Index Scan', table: 'event_open', index: OPEN_INDEX });
    },
  );

  it('needing attention (failed, not acknowledged) reads event_open', async () => {
    const all = await expected(ORG, `status = 'failed' AND acknowledged_at IS NULL`);
    expect(all.length).toBeGreaterThan(0);
    expect(all.length).toBeLessThan((await expected(ORG, `status = 'failed'`)).length);
    const { answer, statements } = await listed(ORG, { needsAttention: true }, 1, 100);
    expect(answer.events.map((e) => e.id)).toEqual(all);
    expect(answer.events.every((e) => e.acknowledgedAt === null)).toBe(true);
    expect(answer.total).toBe(all.length);
    for (const { scans } of statements) readsOpenOnly(scans);
  });

  it("keeps to the organization, with the other filters on the event's own columns", async () => {
    const { answer, statements } = await listed(other, { status: 'failed', source: 'seed' });
    expect(answer.events.map((e) => e.id)).toEqual(await expected(other, `status = 'failed'`));
    expect(answer.total).toBe(20);
    for (const { scans } of statements) readsOpenOnly(scans);
    const within = { status: 'failed' as const, from: minutesAgo(67), to: minutesAgo(63) };
    const windowed = await listed(ORG, within);
    const inWindow = await expected(
      ORG,
      `status = 'failed' AND created_at >= '${within.from.toISOString()}'::timestamptz AT TIME ZONE 'UTC'
        AND created_at < '${within.to.toISOString()}'::timestamptz AT TIME ZONE 'UTC'`,
    );
    expect(inWindow.length).toBeGreaterThan(0);
    expect(windowed.answer.events.map((e) => e.id)).toEqual(inWindow);
  });

  it('above the exact count, estimates the statement it counted (event_open alone)', async () => {
    const { answer, statements } = await listed(crowded, { status: 'queued' });
    expect(answer.totalExact).toBe(false);
    expect(answer.total).toBeGreaterThan(EXACT_COUNT_CAP);
    expect(answer.total).toBeLessThan(2 * (EXACT_COUNT_CAP + 205));
    const [, count, estimate] = statements;
    const estimated = estimate!.sql.replace(/^EXPLAIN \(FORMAT JSON\) /, '');
    expect(count!.sql).toContain(`(${estimated} LIMIT`);
    for (const { scans } of [count!, estimate!])
      expect([...new Set(scans.map((s) => s.table))]).toEqual(['event_open']);
  });

  it('searched among the newest, and through the search index, reads event_open', async () => {
    const newest = await listed(ORG, { status: 'failed', search: 'seed' }, 1, 5);
    expect(newest.answer.events.map((e) => e.id)).toEqual((await expected(ORG, `status = 'failed'`)).slice(0, 5));
    readsOpenOnly(newest.statements[0]!.scans);
    // The rare word is older than the newest events the search looks through first: the index answers.
    const rare = await listed(crowded, { status: 'queued', search: 'needle' });
    expect(rare.answer).toMatchObject({ total: 5, totalExact: true });
    expect(rare.answer.events.map((e) => e.id)).toEqual(
      await expected(crowded, `body = convert_to('{"needle":true}', 'UTF8')`),
    );
    // The walk reads event_open; so do the index's matches (whose candidates' own lookup is the search's to plan).
    readsOpenOnly(rare.statements[0]!.scans);
    expect(rare.statements[1]!.scans).toContainEqual(expect.objectContaining({ table: 'event_open' }));
  });
});

describe('a list that also holds delivered events', () => {
  it.each<[string, EventFilter, string]>([
    ['delivered', { status: 'delivered' }, `status = 'delivered'`],
    ['of any status', {}, 'TRUE'],
    ['not needing attention', { needsAttention: false }, `NOT (status = 'failed' AND acknowledged_at IS NULL)`],
  ])('%s walks events by (organization_id, created_at)', async (_name, filter, where) => {
    const { answer, statements } = await listed(ORG, filter, 3, 20);
    expect(answer.events.map((e) => e.id)).toEqual((await expected(ORG, where)).slice(40, 60));
    const scans = statements[0]!.scans;
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.filter((s) => !/^events.*_organization_id_created_at_idx/.test(s.index ?? ''))).toEqual([]);
  });
});

describe("a bulk action's events", () => {
  const chosen = async (filter: EventFilter, extra: string, cap: number) => {
    const { sql, params } = selectEvents(ORG, { filter }, cap, [], () => extra);
    const { rows } = await db.pool.query<{ id: string }>(sql, params);
    return { ids: rows.map((r) => r.id), scans: await planScans(db.pool, sql, params) };
  };

  it('of a status not delivered come from event_open, oldest first, with the clause over events', async () => {
    const failed = await expected(ORG, `status = 'failed'`, 'created_at, id');
    const retryable = await chosen({ status: 'failed' }, `status IN ('failed', 'delivered')`, 5);
    expect(retryable.ids).toEqual(failed.slice(0, 6));
    readsOpenOnly(retryable.scans);
    expect(retryable.scans).toContainEqual({ node: 'Index Scan', table: 'event_open', index: OPEN_INDEX });
    const routed = await chosen(
      { needsAttention: true },
      'NOT EXISTS (SELECT 1 FROM deliveries dv WHERE dv.event_id = events.id)',
      100,
    );
    expect(routed.ids).toEqual(await expected(ORG, `status = 'failed' AND acknowledged_at IS NULL`, 'created_at, id'));
    readsOpenOnly(routed.scans);
  });
});
