import { v7 as uuidv7 } from 'uuid';
import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { createEventRepository } from './event.repository';
import { createEventSweepRepository } from './event-sweep.repository';

// The sweeper reads event_open (the events not delivered): what it finds must be what events holds.
const database = useTestDatabase((url) => createDatabase({ url }));
let db: Database;
const ORG = DEFAULT_ORGANIZATION_ID;
const OTHER = '00000000-0000-7000-8000-0000000000e2' as OrgId;
const now = Date.now();
const minutes = (n: number) => new Date(now + n * 60_000);

const ingest = async (organizationId: OrgId, source: string, nextAttemptAt: Date, orderingKey?: string) => {
  const id = uuidv7();
  const event = { id, organizationId, source, targetOverride: null, body: Buffer.from('{}'), headers: {} };
  const ordering = orderingKey === undefined ? {} : { orderingKey };
  await createEventRepository(db.pool, { defaultTargetUrl: undefined }).insertMany([
    { ...event, nextAttemptAt, ...ordering },
  ]);
  return id;
};

let due: string[];
let later: string;
let head: string;
let behind: string;
let ruleId: string;
beforeAll(async () => {
  db = database();
  await db.pool.query(
    `INSERT INTO organizations (id, name, slug, created_at, updated_at) VALUES ($1, 'other', 'other', now(), now())`,
    [OTHER],
  );
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO providers (id, organization_id, name, source, target_url, ordering, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'ordered', 'ordered', 'http://target.example/', '{"key": "body.k"}', now(), now())
     RETURNING id`,
    [ORG],
  );
  ruleId = rows[0]!.id;
  // Finished and waiting events that are not queued: never the sweeper's.
  for (const status of ['delivered', 'failed', 'paused', 'ignored'] as const)
    await seedEvents(db.pool, { organizationId: ORG, status, count: 5, changedAt: minutes(-60) });
  due = [
    await ingest(ORG, 'plain', minutes(-5)),
    await ingest(OTHER, 'plain', minutes(-4)),
    await ingest(ORG, 'plain', minutes(-3)),
  ];
  later = await ingest(ORG, 'plain', minutes(30));
  // Two of one ordering key: the second waits behind the first, without a job.
  head = await ingest(ORG, 'ordered', minutes(-2), 'k1');
  behind = await ingest(ORG, 'ordered', minutes(-2), 'k1');
});

const sweep = () => createEventSweepRepository(db.prisma);
const idsOf = (refs: { id: string }[]) => refs.map((r) => r.id);

it('finds the queued events overdue, across organizations, by id, but not those waiting for their key', async () => {
  const found = await sweep().findOverdue(minutes(0), 100);
  expect(idsOf(found)).toEqual([...due, head].sort());
  expect(found.find((r) => r.id === due[1])).toEqual({
    id: due[1],
    organizationId: OTHER,
    ruleId: null,
    nextAttemptAt: minutes(-4),
  });
  expect(found.find((r) => r.id === head)?.ruleId).toBe(ruleId);
  expect(idsOf(await sweep().findOverdue(minutes(60), 100))).toEqual([...due, head, later].sort());
});

it('pages the overdue ones by id', async () => {
  const all = [...due, head].sort();
  const first = await sweep().findOverdue(minutes(0), 2);
  expect(idsOf(first)).toEqual(all.slice(0, 2));
  const second = await sweep().findOverdue(minutes(0), 2, first[1]!.id);
  expect(idsOf(second)).toEqual(all.slice(2, 4));
  expect(await sweep().findOverdue(minutes(0), 2, second[1]!.id)).toEqual([]);
});

it('pages every queued event by id (but the waiting one), due or not', async () => {
  const all = [...due, head, later].sort();
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = idsOf(await sweep().findQueuedPage(2, after));
    if (page.length === 0) break;
    pages.push(page);
    after = page[page.length - 1];
  }
  expect(pages).toEqual([all.slice(0, 2), all.slice(2, 4), all.slice(4)]);
  expect(pages.flat()).not.toContain(behind);
});

it('counts the queued events but the waiting one', async () => {
  expect(await sweep().countQueued()).toBe(5);
});

it('leaves out an event once delivered, and frees the one behind it', async () => {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `UPDATE events SET status = 'delivered', next_attempt_at = NULL, updated_at = now() WHERE id = $1`,
      [head],
    );
    await client.query('SELECT relay_rebuild_event_open()');
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  const found = idsOf(await sweep().findOverdue(minutes(0), 100));
  expect(found).toEqual([...due, behind].sort());
  expect(await sweep().countQueued()).toBe(5);
});
