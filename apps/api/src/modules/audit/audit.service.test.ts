import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createAuditService } from './audit.service';
import { testPrincipal, useServiceDatabase } from '../service-test-kit';

const viewer = testPrincipal({
  mechanism: 'token',
  role: 'viewer',
  userId: '00000000-0000-7000-8000-0000000000b1',
  username: 'bob',
  email: 'bob@example.com',
});

const store = useServiceDatabase();
const service = () => createAuditService({ repositories: store.repositories() });

beforeAll(async () => {
  const audit = store.repositories().audit;
  for (let i = 0; i < 5; i++) {
    await audit.record(DEFAULT_ORGANIZATION_ID, {
      actorUserId: viewer.userId,
      actorEmail: viewer.email,
      action: 'rule.created',
      resourceType: 'rule',
      resourceId: `r${i}`,
      metadata: { n: i },
    });
  }
  // Platform-level entries are no organization's.
  await audit.record(null, {
    actorUserId: null,
    actorEmail: null,
    action: 'auth.login_failed',
    resourceType: 'user',
    resourceId: null,
  });
});

describe('audit service', () => {
  it("pages the organization's entries newest first, in the spec's envelope", async () => {
    const first = await service().page(viewer, { page: 1, per_page: 2 });
    expect(first).toMatchObject({ total: 5, page: 1, per_page: 2, pages: 3 });
    expect(first.entries.map((e) => e.resource_id)).toEqual(['r4', 'r3']);
    expect(first.entries[0]).toEqual({
      id: expect.any(String),
      actor_user_id: viewer.userId,
      actor_email: viewer.email,
      action: 'rule.created',
      resource_type: 'rule',
      resource_id: 'r4',
      metadata: { n: 4 },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/),
    });
    const last = await service().page(viewer, { page: 3, per_page: 2 });
    expect(last.entries.map((e) => e.resource_id)).toEqual(['r0']);
  });
});
