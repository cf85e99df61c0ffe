import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { createNotificationRepository } from './notification.repository';

// The failure digest reads event_open (the events not delivered): its window is (since, until] of the last change.
const database = useTestDatabase((url) => createDatabase({ url }));
let db: Database;
const ORG = DEFAULT_ORGANIZATION_ID;
const OTHER = '00000000-0000-7000-8000-0000000000e3' as OrgId;
const since = new Date('2026-03-01T10:00:00.000Z');
const until = new Date('2026-03-01T11:00:00.000Z');
const at = (minutes: number) => new Date(since.getTime() + minutes * 60_000);

let inWindow: string[];
beforeAll(async () => {
  db = database();
  await db.pool.query(
    `INSERT INTO organizations (id, name, slug, created_at, updated_at) VALUES ($1, 'other', 'other', now(), now())`,
    [OTHER],
  );
  const seed = (changedAt: Date, more: Partial<Parameters<typeof seedEvents>[1]> = {}) =>
    seedEvents(db.pool, { organizationId: ORG, status: 'failed', count: 1, changedAt, ...more });
  // Out of the digest: changed at `since` (reported by the window before), after `until`, acknowledged, another
  // status, another organization.
  await seed(since);
  await seed(at(61));
  await seed(at(10), { acknowledged: true });
  for (const status of ['queued', 'paused', 'ignored', 'delivered'] as const) await seed(at(10), { status });
  await seed(at(10), { organizationId: OTHER });
  // In it, changed in this order; the last at `until` itself.
  inWindow = [
    ...(await seed(at(1))),
    ...(await seed(at(30), { count: 2 })).sort(),
    ...(await seed(until, { count: 1 })),
  ];
});

const failedBetween = (limit: number) => createNotificationRepository(db.pool).failedBetween(ORG, since, until, limit);

it('counts and lists the failed, unacknowledged events changed in (since, until], oldest change first', async () => {
  const found = await failedBetween(50);
  expect(found.count).toBe(4);
  expect(found.events.map((e) => e.id)).toEqual(inWindow);
  expect(found.events[0]).toEqual({ id: inWindow[0], source: 'seed', failureReason: 'http_status', lastError: null });
});

it('lists the first `limit` of them and still counts them all', async () => {
  const found = await failedBetween(2);
  expect(found.count).toBe(4);
  expect(found.events.map((e) => e.id)).toEqual(inWindow.slice(0, 2));
});
