import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import { seedEvents, useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from '../database';
import { createPlatformRepository } from './platform.repository';

// The operator's event counts: the not delivered per status from event_open, delivered as the rest of all events.
const database = useTestDatabase((url) => createDatabase({ url }));
let db: Database;
const ORG = DEFAULT_ORGANIZATION_ID;
const OTHER = '00000000-0000-7000-8000-0000000000e4' as OrgId;
const EMPTY = '00000000-0000-7000-8000-0000000000e5' as OrgId;
const SEEDED = { delivered: 7, queued: 3, failed: 2, paused: 4, ignored: 5 } as const;

beforeAll(async () => {
  db = database();
  await db.pool.query(
    `INSERT INTO organizations (id, name, slug, created_at, updated_at)
     VALUES ($1, 'other', 'other', now(), now()), ($2, 'empty', 'empty', now(), now())`,
    [OTHER, EMPTY],
  );
  for (const [status, count] of Object.entries(SEEDED))
    await seedEvents(db.pool, {
      organizationId: ORG,
      status: status as keyof typeof SEEDED,
      count,
      changedAt: new Date(),
    });
  await seedEvents(db.pool, { organizationId: OTHER, status: 'delivered', count: 2, changedAt: new Date() });
  await seedEvents(db.pool, { organizationId: OTHER, status: 'failed', count: 1, changedAt: new Date() });
});

const platform = () => createPlatformRepository(db.prisma);

// As the group by over events did: every status with events under its own name, delivered the rest of the total.
it("counts one organization's events per status", async () => {
  expect((await platform().get(ORG))?.events).toEqual(SEEDED);
  expect((await platform().get(OTHER))?.events).toEqual({ queued: 0, delivered: 2, failed: 1 });
  expect((await platform().get(EMPTY))?.events).toEqual({ queued: 0, delivered: 0, failed: 0 });
});

it("counts every organization's events per status", async () => {
  expect((await platform().overview()).events).toEqual({ ...SEEDED, delivered: 9, failed: 3 });
});

it('counts in a transaction too (the service reads an organization in one)', async () => {
  const found = await db.prisma.$transaction((tx) => createPlatformRepository(tx).get(OTHER));
  expect(found?.events).toEqual({ queued: 0, delivered: 2, failed: 1 });
});
