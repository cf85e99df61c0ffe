import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, issueToken, type OrgId, type Role, type Scope } from '@relay/core';
import {
  createCredentialRepository,
  createDatabase,
  createOrganizationRepository,
  createUserRepository,
  type Database,
} from '@relay/db';
import { createTestDatabase, uniqueQueuePrefix, waitFor, type TestDatabase } from '@relay/test-support';
import type { Tracer } from '@relay/service-kit';
import { pino, type Logger } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { createApiRuntime, type ApiRuntime } from '../../apps/api/src/runtime';
import { parseWorkerConfig } from '../../apps/delivery-worker/src/config';
import { createWorkerRuntime, type WorkerRuntime } from '../../apps/delivery-worker/src/runtime';
import { createPasswordHasher } from '../../apps/api/src/auth/passwords';

export type Env = Record<string, string | undefined>;

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * The cluster suite's Redis Cluster (tests/cluster-suite): with it, every pipeline runs on the cluster over three
 * queue shards, and the single-Redis URL points nowhere, so a Redis use outside the cluster settings fails.
 */
const CLUSTER_NODES = process.env.TEST_REDIS_CLUSTER_NODES;
/** The queue shards of every pipeline: 3 on the cluster suite's cluster, else 1 (TEST_REDIS_QUEUE_SHARDS overrides). */
export const TEST_QUEUE_SHARDS = Number(process.env.TEST_REDIS_QUEUE_SHARDS ?? (CLUSTER_NODES ? 3 : 1));
const ON_CLUSTER: Env = {
  ...(CLUSTER_NODES ? { REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: CLUSTER_NODES } : {}),
  ...(TEST_QUEUE_SHARDS !== 1 ? { REDIS_QUEUE_SHARDS: String(TEST_QUEUE_SHARDS) } : {}),
};
export const TEST_SECRET_KEYS = `test:${Buffer.alloc(32, 7).toString('base64')}`;

/** Settings that keep tests fast: tiny backoff and sweep intervals. Tests override what they probe. */
export const FAST_WORKER_ENV: Env = {
  DELIVERY_BACKOFF_BASE_MS: '40',
  DELIVERY_BACKOFF_MAX_MS: '200',
  DELIVERY_MAX_ATTEMPTS: '3',
  DELIVERY_TIMEOUT_MS: '2000',
  SWEEP_INTERVAL_MS: '200',
  SWEEP_GRACE_MS: '300',
  WORKER_LOCK_DURATION_MS: '1000',
  WORKER_STALLED_INTERVAL_MS: '500',
  // A rule changed by a test applies to the next delivery (the cache itself: rule-lookup.test.ts).
  RULE_CACHE_MS: '0',
};

export interface Pipeline {
  db: TestDatabase;
  prefix: string;
  baseEnv: Env;
  api: ApiRuntime;
  http: ReturnType<typeof supertest>;
  worker?: WorkerRuntime;
  store: Database;
  /** A worker; `logger` (default: silent) lets a test read what the worker logs, such as its retry schedule. */
  startWorker(env?: Env, logger?: Logger): WorkerRuntime;
  /** The event's row with its payload (body and headers) wherever it is stored (event_payloads or, older, the row). */
  eventById(id: string): Promise<StoredEventRow | null>;
  attemptsOf(id: string): ReturnType<Database['prisma']['deliveryAttempt']['findMany']>;
  waitForStatus(
    id: string,
    status: 'delivered' | 'failed' | 'queued' | 'paused' | 'ignored',
    timeoutMs?: number,
  ): Promise<NonNullable<Awaited<ReturnType<Pipeline['eventById']>>>>;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });

type EventRow = NonNullable<Awaited<ReturnType<Database['prisma']['event']['findUnique']>>>;
export type StoredEventRow = Omit<EventRow, 'body' | 'headers'> & { body: Uint8Array; headers: EventRow['headers'] };

async function eventWithPayload(store: Database, id: string): Promise<StoredEventRow | null> {
  const [row, payload] = await Promise.all([
    store.prisma.event.findUnique({ where: { id } }),
    store.prisma.eventPayload.findUnique({ where: { eventId: id } }),
  ]);
  if (!row) return null;
  if (payload) return { ...row, body: payload.body, headers: payload.headers };
  if (row.body === null) throw new Error(`event ${id} has no payload`);
  return { ...row, body: row.body, headers: row.headers };
}

// The whole relay in one test process: a real api runtime (driven by supertest) and a real worker
// runtime, on their own database and queue prefix, against the machine's Postgres and Redis.
export async function startPipeline(
  options: {
    api?: Env;
    worker?: Env | false;
    redisUrl?: string;
    apiLogger?: Logger;
    /** Traces (tracing.test.ts): each process's tracer; absent: the no-op one. */
    tracers?: { api?: Tracer; worker?: Tracer };
  } = {},
): Promise<Pipeline> {
  const db = await createTestDatabase();
  const prefix = uniqueQueuePrefix();
  const baseEnv: Env = {
    DATABASE_URL: db.url,
    REDIS_URL: options.redisUrl ?? REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    TARGET_ALLOW_PRIVATE: 'true',
    // Signing secrets are stored sealed; both processes open them with this (test-only) key.
    SECRET_ENCRYPTION_KEYS: TEST_SECRET_KEYS,
    DATABASE_POOL_SIZE: '4',
    // Every answer of every test is checked against its operation's declared schema.
    API_VALIDATE_RESPONSES: 'true',
    // Walks and races send hundreds of API requests per credential; rate-limits.test.ts turns the limit on.
    API_RATE_LIMIT: '0',
    ...ON_CLUSTER,
  };
  const api = createApiRuntime(
    parseApiConfig({ ...baseEnv, INGEST_BATCH_WAIT_MS: '1', ...options.api }),
    options.apiLogger ?? silent,
    { tracer: options.tracers?.api },
  );
  // As main.ts does: start-up work (the initial admin) before the api counts as ready.
  await api.start();
  const store = createDatabase({ url: db.url, poolSize: 2 });
  const workers: WorkerRuntime[] = [];
  const pipeline: Pipeline = {
    db,
    prefix,
    baseEnv,
    api,
    http: supertest(api.app),
    store,
    startWorker(env = {}, logger = silent) {
      const worker = createWorkerRuntime(
        parseWorkerConfig({ ...baseEnv, ...FAST_WORKER_ENV, ...(options.worker || {}), ...env }),
        logger,
        { tracer: options.tracers?.worker },
      );
      workers.push(worker);
      pipeline.worker ??= worker;
      return worker;
    },
    eventById: (id) => eventWithPayload(store, id),
    attemptsOf: (id) =>
      store.prisma.deliveryAttempt.findMany({ where: { eventId: id }, orderBy: { attemptNumber: 'asc' } }),
    waitForStatus: (id, status, timeoutMs = 10_000) =>
      waitFor(
        async () => {
          const event = await eventWithPayload(store, id);
          return event?.status === status ? event : undefined;
        },
        timeoutMs,
        `event ${id} to be ${status}`,
      ),
    async close() {
      await Promise.all(workers.map((w) => w.close().catch(() => {})));
      await api.close().catch(() => {});
      await store.close();
      await db.drop();
    },
  };
  if (options.worker !== false) pipeline.startWorker();
  return pipeline;
}

/** Cheap argon2 settings for tests that log users in. */
export const FAST_HASH_ENV: Env = { PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_TIME_COST: '1' };
export const testPasswords = createPasswordHasher({ memoryKib: 1024, timeCost: 1 });
export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A user who logs in with a password (hashed with the cheap test settings); email is `<username>@example.com`. */
export async function seedUser(
  pipeline: Pipeline,
  user: { username: string; role: Role; password: string },
  orgId: OrgId = DEFAULT_ORGANIZATION_ID,
) {
  return createUserRepository(pipeline.store.prisma).create(orgId, {
    username: user.username,
    email: `${user.username}@example.com`,
    role: user.role,
    passwordHash: await testPasswords.hash(user.password),
  });
}

/** An Authorization header for a new user (personal token) of an organization. */
export async function userCredential(
  pipeline: Pick<Pipeline, 'store'>,
  role: Role = 'admin',
  orgId: OrgId = DEFAULT_ORGANIZATION_ID,
): Promise<{ userId: string; authorization: string }> {
  const user = await createUserRepository(pipeline.store.prisma).create(orgId, {
    username: `${role}-${randomUUID().slice(0, 8)}`,
    email: `${role}@example.com`,
    role,
    passwordHash: 'not-used',
  });
  const token = issueToken();
  await createCredentialRepository(pipeline.store.prisma).createPersonalToken(orgId, user.id, {
    name: 'test',
    prefix: token.prefix,
    secretHash: token.secretHash,
    expiresAt: null,
  });
  return { userId: user.id, authorization: `Bearer ${token.token}` };
}

/** An Authorization header for a new API key with these scopes. */
export async function apiKeyCredential(
  pipeline: Pipeline,
  scopes: Scope[],
  orgId: OrgId = DEFAULT_ORGANIZATION_ID,
): Promise<string> {
  const key = issueToken();
  await createCredentialRepository(pipeline.store.prisma).createApiKey(orgId, {
    name: scopes.join(','),
    prefix: key.prefix,
    secretHash: key.secretHash,
    scopes,
    createdById: null,
    expiresAt: null,
  });
  return `Bearer ${key.token}`;
}

/** A second organization. */
export async function createOrganization(pipeline: Pipeline, slug: string): Promise<OrgId> {
  return (await createOrganizationRepository(pipeline.store.prisma).create({ slug, name: slug })).id;
}

/** Another api process on the pipeline's database and queues, as a second replica would be; the caller closes it. */
export function startApiReplica(pipeline: Pipeline, env: Env = {}, tracer?: Tracer): ApiRuntime {
  const config = parseApiConfig({ ...pipeline.baseEnv, INGEST_BATCH_WAIT_MS: '1', ...env });
  return createApiRuntime(config, silent, { tracer });
}
