import { DEFAULT_ORGANIZATION_ID, type EventStatus } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { selectEvents } from './event-action.repository';
import type { EventFilter } from './event-filter.sql';
import { createEventQueryRepository } from './event-query.repository';

// A list reads event_open for some filters and events for the others (event-filter.sql.ts): whichever it reads, it
// answers what a plain statement over events does, for every combination of the filters on the event's columns.
const database = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
let db: Database;
let ruleId: string;

const ORG = DEFAULT_ORGANIZATION_ID;
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const STATUSES: EventStatus[] = ['queued', 'delivered', 'failed', 'paused', 'ignored'];

beforeAll(async () => {
  db = database();
  for (let m = 6; m > 0; m--)
    for (const status of STATUSES) {
      await seedEvents(db.pool, { organizationId: ORG, status, count: 4, changedAt: minutesAgo(m) });
      await seedEvents(db.pool, {
        organizationId: ORG,
        status,
        count: 1,
        changedAt: minutesAgo(m),
        acknowledged: true,
      });
    }
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'alt', 'alt', 'http://target.example/', now(), now()) RETURNING id`,
    [ORG],
  );
  ruleId = rows[0]!.id;
  // Some events of the rule, some of another source, by hand: event_open is rebuilt after.
  await db.pool.query(`UPDATE events SET provider_id = $1 WHERE get_byte(uuid_send(id), 15) % 3 = 0`, [ruleId]);
  await db.pool.query(`UPDATE events SET source = 'alt' WHERE get_byte(uuid_send(id), 15) % 4 = 1`);
  await db.pool.query('SELECT relay_rebuild_event_open()');
  await db.pool.query('ANALYZE events');
  await db.pool.query('ANALYZE event_open');
});

// The filter as conditions over events, as the list said before event_open.
function plainly(filter: EventFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [ORG];
  const add = (value: unknown) => `$${params.push(value)}`;
  const clauses = ['organization_id = $1'];
  if (filter.status) clauses.push(`status = ${add(filter.status)}::"EventStatus"`);
  if (filter.source) clauses.push(`source = ${add(filter.source)}`);
  if (filter.ruleId) clauses.push(`provider_id = ${add(filter.ruleId)}::uuid`);
  if (filter.from) clauses.push(`created_at >= (${add(filter.from)}::timestamptz AT TIME ZONE 'UTC')`);
  if (filter.needsAttention !== undefined)
    clauses.push(`(status = 'failed' AND acknowledged_at IS NULL) = ${add(filter.needsAttention)}`);
  return { where: clauses.join(' AND '), params };
}

async function expected(filter: EventFilter, order: string): Promise<string[]> {
  const { where, params } = plainly(filter);
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT id FROM events WHERE ${where} ORDER BY ${order}`,
    params,
  );
  return rows.map((r) => r.id);
}

const filters = (): EventFilter[] =>
  [undefined, ...STATUSES].flatMap((status) =>
    [undefined, true, false].flatMap((needsAttention) =>
      [{}, { source: 'alt' }, { ruleId }, { from: minutesAgo(63) }].map((more) => ({
        status,
        needsAttention,
        ...more,
      })),
    ),
  );

it('every combination lists, pages and counts as events do', async () => {
  const repository = createEventQueryRepository(db.pool);
  for (const filter of filters()) {
    const all = await expected(filter, 'created_at DESC, id DESC');
    const page = await repository.page(ORG, filter, 2, 4);
    expect({ filter, ids: page.events.map((e) => e.id) }).toEqual({ filter, ids: all.slice(4, 8) });
    expect({ filter, total: page.total }).toEqual({ filter, total: Math.max(all.length, 4 + page.events.length) });
  }
});

it("every combination chooses a bulk action's events as events do", async () => {
  for (const filter of filters()) {
    const { sql, params } = selectEvents(ORG, { filter }, 6, [], () => `status <> 'paused'`);
    const { rows } = await db.pool.query<{ id: string }>(sql, params);
    const all = await expected(filter, 'created_at, id');
    const { rows: unpaused } = await db.pool.query<{ id: string }>(
      `SELECT id FROM events WHERE id = ANY($1::uuid[]) AND status <> 'paused'`,
      [all],
    );
    const kept = new Set(unpaused.map((r) => r.id));
    expect({ filter, ids: rows.map((r) => r.id) }).toEqual({
      filter,
      ids: all.filter((id) => kept.has(id)).slice(0, 7),
    });
  }
});
