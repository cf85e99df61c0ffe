import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { SWEEP_STATEMENTS } from './event-sweep.repository';
import { planNodes, type PlanNode } from './list-plan-scans';
import { FAILED_STATEMENTS } from './notification.repository';
import { PLATFORM_STATEMENTS } from './platform.repository';

// The lookups by status, next attempt and change time read event_open since events lost its indexes on those
// columns (20261207100000_hot_outcomes): a scan of events for them reads every event, delivered ones included. These
// plans must find their rows by event_open's indexes and touch events only by primary key (or, for the platform's
// count, by an index alone), on a table where the delivered are the bulk and the open are mostly old failures.
const database = useTestDatabase((url) => createDatabase({ url }));
let db: Database;
const ORG = DEFAULT_ORGANIZATION_ID;
const SMALL = '00000000-0000-7000-8000-0000000000e6' as OrgId;
const now = Date.now();
const hours = (n: number) => new Date(now + n * 3_600_000);

// The events partitions holding rows: the empty ones are planned as sequential scans of nothing, which is harmless.
let filled: Set<string>;
const planOf = (sql: string, params: unknown[] = []) => planNodes(db.pool, sql, params);
const describeNode = (n: PlanNode) => `${n['Node Type']} on ${n['Relation Name']} using ${n['Index Name'] ?? '-'}`;
const isProbe = (n: PlanNode) =>
  ['Index Scan', 'Index Only Scan'].includes(n['Node Type']) &&
  /pkey/.test(n['Index Name'] ?? '') &&
  /^\(id = /.test(n['Index Cond'] ?? '');
/** The reads of events' filled partitions that are not `allowed` (by default: primary key probes). */
const eventsReads = (nodes: PlanNode[], allowed = isProbe) =>
  nodes.filter((n) => filled.has(n['Relation Name'] ?? '') && !allowed(n)).map(describeNode);
/** The indexes of event_open read, and any sequential scan of it. */
const openIndexes = (nodes: PlanNode[]) => nodes.flatMap((n) => n['Index Name'] ?? []).filter(isOpenIndex);
const isOpenIndex = (name: string) => name.startsWith('event_open_');
const openSeqScans = (nodes: PlanNode[]) =>
  nodes.filter((n) => n['Relation Name'] === 'event_open' && n['Node Type'] === 'Seq Scan').map(describeNode);

beforeAll(async () => {
  db = database();
  await db.pool.query(
    `INSERT INTO organizations (id, name, slug, created_at, updated_at) VALUES ($1, 'small', 'small', now(), now())`,
    [SMALL],
  );
  const seed = (status: 'queued' | 'delivered' | 'failed' | 'paused' | 'ignored', count: number, changedAt: Date) =>
    seedEvents(db.pool, { organizationId: ORG, status, count, changedAt });
  await seed('delivered', 6000, hours(-48));
  await seed('failed', 1500, hours(-240));
  await seed('ignored', 1500, hours(-240));
  await seed('paused', 20, hours(-2));
  await seed('failed', 20, hours(-1));
  const queued = [...(await seed('queued', 20, hours(-1))), ...(await seed('queued', 20, hours(0)))];
  await seedEvents(db.pool, { organizationId: SMALL, status: 'delivered', count: 100, changedAt: hours(-1) });
  await seedEvents(db.pool, { organizationId: SMALL, status: 'failed', count: 5, changedAt: hours(-1) });
  // Queued with their next attempts (the seed leaves them none), half of them overdue; event_open follows.
  await db.pool.query(
    `UPDATE events SET next_attempt_at = (now() AT TIME ZONE 'UTC') + (CASE WHEN id::text < $2 THEN -1 ELSE 1 END)
       * interval '10 minutes' WHERE id = ANY($1::uuid[])`,
    [queued, queued.sort()[20]],
  );
  await db.pool.query('SELECT relay_rebuild_event_open()');
  await db.pool.query('VACUUM ANALYZE events, event_open, event_ordering');
  const { rows } = await db.pool.query<{ name: string }>(
    'SELECT DISTINCT tableoid::regclass::text AS name FROM events',
  );
  filled = new Set(rows.map((r) => r.name));
});

describe("the sweeper's statements", () => {
  it('find the overdue queued events by event_open', async () => {
    const nodes = await planOf(SWEEP_STATEMENTS.FIND_OVERDUE, [100, null, new Date()]);
    expect(openIndexes(nodes)).toContain('event_open_status_next_attempt_at_idx');
    expect(openSeqScans(nodes)).toEqual([]);
    expect(eventsReads(nodes)).toEqual([]);
  });

  it('page the queued events by event_open', async () => {
    const nodes = await planOf(SWEEP_STATEMENTS.FIND_QUEUED_PAGE, [100, null]);
    expect(openIndexes(nodes).length).toBeGreaterThan(0);
    expect(openSeqScans(nodes)).toEqual([]);
    expect(eventsReads(nodes)).toEqual([]);
  });

  it('count the queued events by event_open', async () => {
    const nodes = await planOf(SWEEP_STATEMENTS.COUNT_QUEUED);
    expect(openIndexes(nodes)).toContain('event_open_status_next_attempt_at_idx');
    expect(openSeqScans(nodes)).toEqual([]);
    expect(eventsReads(nodes)).toEqual([]);
  });
});

describe("the failure digest's statements", () => {
  const window = [ORG, hours(-3).toISOString(), hours(0).toISOString()];

  it("count an organization's failures of a window by event_open's (organization_id, updated_at) index", async () => {
    const nodes = await planOf(FAILED_STATEMENTS.COUNT_FAILED, window);
    expect(openIndexes(nodes)).toEqual(['event_open_organization_id_updated_at_idx']);
    expect(openSeqScans(nodes)).toEqual([]);
    expect(eventsReads(nodes)).toEqual([]);
  });

  it('list them by the same index, and read their events by primary key', async () => {
    const nodes = await planOf(FAILED_STATEMENTS.LIST_FAILED, [...window, 50]);
    expect(openIndexes(nodes)).toEqual(['event_open_organization_id_updated_at_idx']);
    expect(openSeqScans(nodes)).toEqual([]);
    expect(eventsReads(nodes)).toEqual([]);
    expect(nodes.filter((n) => filled.has(n['Relation Name'] ?? '')).length).toBeGreaterThan(0);
  });
});

describe("the platform's counts", () => {
  it("count an organization's open events by event_open, and its events by an index alone", async () => {
    const nodes = await planOf(PLATFORM_STATEMENTS.ORG_EVENTS_BY_STATUS, [SMALL]);
    expect(openIndexes(nodes)).toEqual(['event_open_organization_id_status_created_at_idx']);
    // Every index of events left but the primary key is led by organization_id: any of them counts the rows.
    const countsByOrgIndex = (n: PlanNode) =>
      n['Node Type'] === 'Index Only Scan' && /^\(organization_id = /.test(n['Index Cond'] ?? '');
    expect(eventsReads(nodes, countsByOrgIndex)).toEqual([]);
  });
});
