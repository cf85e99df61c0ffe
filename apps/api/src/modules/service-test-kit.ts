// Shared fixtures of the service tests (`<feature>.service.test.ts`): a principal and a test
// database of the file's own, with its repositories.
import { DEFAULT_ORGANIZATION_ID, type Principal } from '@relay/core';
import { createDatabase, createRepositories, type Database, type Repositories } from '@relay/db';
import { createTestDatabase, type TestDatabase } from '@relay/test-support';

/** An admin of the default organization signed in with a session, unless overridden. */
export function testPrincipal(overrides: Partial<Principal> = {}): Principal {
  return {
    kind: 'user',
    mechanism: 'session',
    orgId: DEFAULT_ORGANIZATION_ID,
    role: 'admin',
    scopes: 'all',
    userId: '00000000-0000-7000-8000-0000000000a1',
    username: 'ada',
    email: 'ada@example.com',
    credentialId: null,
    ...overrides,
  };
}

/** A principal whose audit entry cannot be written (actor_user_id is a uuid column): for atomicity tests. */
export const unauditable = (principal: Principal): Principal => ({ ...principal, userId: 'not-a-uuid' });

export interface ServiceDatabase {
  readonly db: Database;
  repositories(): Repositories;
  /** Audit entries about one resource, oldest first. */
  auditOf(resourceId: string): ReturnType<Database['prisma']['auditEntry']['findMany']>;
}

/** Opens a migrated database of its own before the file's tests and drops it after them. */
export function useServiceDatabase(): ServiceDatabase {
  let testDb: TestDatabase | undefined;
  let db: Database | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase({ url: testDb.url, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });
  const opened = () => {
    if (!db) throw new Error('the service database opens in beforeAll');
    return db;
  };
  return {
    get db() {
      return opened();
    },
    repositories: () => createRepositories(opened(), { defaultTargetUrl: undefined }),
    auditOf: (resourceId) =>
      opened().prisma.auditEntry.findMany({ where: { resourceId }, orderBy: { createdAt: 'asc' } }),
  };
}
