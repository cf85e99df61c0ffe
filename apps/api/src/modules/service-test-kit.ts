// Shared fixtures of the service tests (`<feature>.service.test.ts`): a principal and a test
// database of the file's own, with its repositories.
import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, type EventStatus, type Principal } from '@relay/core';
import { createDatabase, createRepositories, type Database, type Repositories } from '@relay/db';
import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix, type TestDatabase } from '@relay/test-support';
import { createClient, type RedisClientType } from 'redis';
import { createLoginLimiter, type LoginLimiter } from '../auth/login-limiter';

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
  /** Stores an event of the default organization in a given status (as ingest would, then moved on). */
  event(status: EventStatus, options?: { source?: string; createdAt?: Date }): Promise<string>;
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
    async event(status, { source = 'svc', createdAt = new Date() } = {}) {
      const id = randomUUID();
      const event = { id, organizationId: DEFAULT_ORGANIZATION_ID, source, targetOverride: null, headers: {} };
      const repositories = createRepositories(opened(), { defaultTargetUrl: undefined });
      await repositories.events.insertMany([{ ...event, body: Buffer.from('{"a":1}'), nextAttemptAt: createdAt }]);
      await opened().prisma.event.update({ where: { id }, data: { status, createdAt } });
      return id;
    },
    auditOf: (resourceId) =>
      opened().prisma.auditEntry.findMany({ where: { resourceId }, orderBy: { createdAt: 'asc' } }),
  };
}

/**
 * The real password limiter on the machine's Redis, under a prefix of the test file's own:
 * `maxPerUser` attempts per username + IP (per IP for the bootstrap token), 100 per IP.
 */
export function useTestLimiter(maxPerUser = 3): LoginLimiter {
  const redis: RedisClientType = createClient({ url: TEST_REDIS_URL });
  beforeAll(() => redis.connect());
  afterAll(() => redis.close());
  return createLoginLimiter({
    client: redis,
    prefix: uniqueQueuePrefix(),
    maxPerUser,
    maxPerAccount: 100,
    maxPerIp: 100,
    windowSeconds: 60,
  });
}
