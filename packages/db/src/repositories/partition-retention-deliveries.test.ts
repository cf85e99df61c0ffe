import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { layOutDayPartitions, seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import {
  childrenOf,
  createPartitionRetentionRepository,
  type OrganizationCutoffs,
  type PartitionRetentionRepository,
} from './partition-retention.repository';
import { createPartitionRepository, type AttachedPartition } from './partition.repository';

// Deliveries' first partition comes from their upgrade (migration 20261206000000), so it spans several of events'
// partitions: retention deletes a dropped range's deliveries from it until the last events partition it spans goes,
// then drops it whole (docs/partitioning.md, "Retention by detach, then drop").

const DAY = 86_400_000;
const NOW = new Date('2027-04-15T12:00:00Z');
const ORG = DEFAULT_ORGANIZATION_ID;
const CUTOFFS: OrganizationCutoffs[] = [
  { orgId: ORG, before: new Date(NOW.getTime() - 30 * DAY), unacknowledgedBefore: new Date(NOW.getTime() - 90 * DAY) },
];

describe('which child partitions a drop detaches (childrenOf)', () => {
  const at = (table: AttachedPartition['table'], name: string, from: string | null, to: string | null) => ({
    table,
    name,
    from,
    to,
  });
  const u = (n: number) => `0000000${n}-0000-0000-0000-000000000000`;
  const events = [
    at('events', 'events_first', null, u(1)),
    at('events', 'e1', u(1), u(2)),
    at('events', 'e2', u(2), u(3)),
  ];

  it('detaches the children with the same range, and a wider one only once no other events partition overlaps it', () => {
    const family = [
      ...events,
      at('delivery_attempts', 'a1', u(1), u(2)),
      at('delivery_attempts', 'a2', u(2), u(3)),
      at('deliveries', 'deliveries_first', null, u(3)),
    ];
    expect(childrenOf(events[1]!, family)).toEqual({ detached: [family[3], events[1]], trimmed: ['deliveries'] });
    // The last events partition the wide one spans: it goes too.
    expect(childrenOf(events[2]!, [events[2]!, ...family.slice(4)])).toEqual({
      detached: [family[4], family[5], events[2]],
      trimmed: [],
    });
  });

  it('detaches a child narrower than the events partition (a range clipped at the upgrade), whole', () => {
    const family = [events[2]!, at('deliveries', 'd2', '00000002-8000-0000-0000-000000000000', u(3))];
    expect(childrenOf(events[2]!, family)).toEqual({ detached: [family[1], events[2]], trimmed: [] });
  });
});

const database = useTestDatabase((url) => createDatabase({ url, poolSize: 4 }));
let db: Database;
let repo: PartitionRetentionRepository;

beforeAll(async () => {
  db = database();
  repo = createPartitionRetentionRepository(db.pool);
  await layOutDayPartitions(db.pool, new Date('2027-03-01T00:00:00Z'), 7);
  // Deliveries as their upgrade leaves them: a first partition up to 2027-03-03, day partitions after.
  const { rows } = await db.pool.query<{ name: string }>(
    "SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'deliveries'::regclass",
  );
  for (const { name } of rows) {
    await db.pool.query(`ALTER TABLE deliveries DETACH PARTITION ${name}`);
    await db.pool.query(`DROP TABLE ${name}`);
  }
  await db.pool.query(
    `CREATE TABLE deliveries_first PARTITION OF deliveries
     FOR VALUES FROM (MINVALUE) TO (relay_uuid7_floor('2027-03-03T00:00:00Z'))`,
  );
  await db.pool.query(
    `CREATE TABLE deliveries_p20270303 PARTITION OF deliveries
     FOR VALUES FROM (relay_uuid7_floor('2027-03-03T00:00:00Z')) TO (relay_uuid7_floor('2027-03-04T00:00:00Z'))`,
  );
});

const family = () => createPartitionRepository(db.pool).listPartitions();
const partition = async (name: string) => (await family()).find((p) => p.name === name)!;
const deliveriesOf = async (ids: string[]) =>
  (await db.pool.query('SELECT 1 FROM deliveries WHERE event_id = ANY($1::uuid[])', [ids])).rowCount;

async function deliveredEvents(day: string): Promise<string[]> {
  const ids = await seedEvents(db.pool, {
    organizationId: ORG,
    count: 2,
    status: 'delivered',
    changedAt: new Date(NOW.getTime() - 40 * DAY),
    storedAt: new Date(`2027-03-${day}T10:00:00Z`),
  });
  await db.pool.query(
    `WITH rule AS (INSERT INTO providers (id, organization_id, name, source, target_url, updated_at)
       VALUES (gen_random_uuid(), $1, 'r' || gen_random_uuid(), 'routed', 'http://p.example/', now()) RETURNING id),
     dest AS (INSERT INTO destinations (id, organization_id, provider_id, name, target_url, updated_at)
       SELECT gen_random_uuid(), $1, rule.id, 'crm', 'http://d.example/', now() FROM rule RETURNING id)
     INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, updated_at)
     SELECT gen_random_uuid(), $1, e, dest.id, 'delivered', now() FROM unnest($2::uuid[]) e, dest`,
    [ORG, ids],
  );
  return ids;
}

describe('retention with deliveries first partition wider than events', () => {
  it("deletes a dropped day's deliveries from it, then drops it with the last events partition it spans", async () => {
    const first = await deliveredEvents('01');
    const second = await deliveredEvents('02');
    const third = await deliveredEvents('03');

    expect(await repo.dropPartition(CUTOFFS, await partition('events_p20270301'), await family())).toMatchObject({
      outcome: 'dropped',
    });
    expect(await deliveriesOf(first)).toBe(0);
    expect(await deliveriesOf(second)).toBe(2);
    let names = (await family()).map((f) => f.name);
    expect(names).toContain('deliveries_first');

    // events_first (empty) still spans part of it: dropped, the wide partition stays for the 2nd's.
    expect(await repo.dropPartition(CUTOFFS, await partition('events_first'), await family())).toMatchObject({
      outcome: 'dropped',
    });
    expect((await family()).map((f) => f.name)).toContain('deliveries_first');

    expect(await repo.dropPartition(CUTOFFS, await partition('events_p20270302'), await family())).toMatchObject({
      outcome: 'dropped',
    });
    names = (await family()).map((f) => f.name);
    expect(names).not.toContain('deliveries_first');
    expect(names).toContain('deliveries_p20270303');
    expect(await deliveriesOf(second)).toBe(0);
    expect(await deliveriesOf(third)).toBe(2);
    const { rows } = await db.pool.query("SELECT relname FROM pg_class WHERE relname = 'deliveries_first'");
    expect(rows).toEqual([]);
  });
});
