// Shared fixtures of the service tests (`<feature>.service.test.ts`) that need the API's own code or the
// database package: a test database with its repositories, and the login limiter. The app-independent
// parts (testPrincipal, unauditable, useTestDatabase) are in @relay/test-support.
import { DEFAULT_ORGANIZATION_ID, type EventStatus } from '@relay/core';
import {
  createDatabase,
  createReadRepositories,
  createRepositories,
  type Database,
  type ReadRepositories,
  type Repositories,
} from '@relay/db';
import { newEventId, reopenEvents, TEST_REDIS_URL, uniqueQueuePrefix, useTestDatabase } from '@relay/test-support';
import { createTransformRunner, type TransformRunner } from '@relay/transform';
import { createClient, type RedisClientType } from 'redis';
import { createLoginLimiter, type LoginLimiter } from '../auth/login-limiter';

export interface ServiceDatabase {
  readonly db: Database;
  repositories(): Repositories;
  /** The read side on the same database (no replica). */
  reads(): ReadRepositories;
  /**
   * Stores an event of the default organization in a given status (as ingest would, then moved on), of a rule if
   * given, with its event_open row as the relay's writes keep it.
   */
  event(
    status: EventStatus,
    options?: { source?: string; createdAt?: Date; ruleId?: string; attemptCount?: number },
  ): Promise<string>;
  /** Audit entries about one resource, oldest first. */
  auditOf(resourceId: string): ReturnType<Database['prisma']['auditEntry']['findMany']>;
}

/** Opens a migrated database of its own before the file's tests and drops it after them. */
export function useServiceDatabase(): ServiceDatabase {
  const opened = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
  return {
    get db() {
      return opened();
    },
    repositories: () => createRepositories(opened(), { defaultTargetUrl: undefined }),
    reads: () => createReadRepositories(opened().pool, undefined),
    async event(status, { source = 'svc', createdAt = new Date(), ruleId, attemptCount } = {}) {
      const id = newEventId();
      const event = { id, organizationId: DEFAULT_ORGANIZATION_ID, source, targetOverride: null, headers: {} };
      const repositories = createRepositories(opened(), { defaultTargetUrl: undefined });
      await repositories.events.insertMany([{ ...event, body: Buffer.from('{"a":1}'), nextAttemptAt: createdAt }]);
      await opened().prisma.event.update({ where: { id }, data: { status, createdAt, ruleId, attemptCount } });
      await reopenEvents(opened().pool, [id]);
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

/** The real transform sandbox, closed after the file's tests (its threads start only when a transform is used). */
export function useTransformRunner(options: Parameters<typeof createTransformRunner>[0] = {}): TransformRunner {
  const runner = createTransformRunner({ timeoutMs: 1000, ...options });
  afterAll(() => runner.close());
  return runner;
}
