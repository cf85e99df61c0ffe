import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const BASE_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
// Each jest run has its own template and database names (global setup picks the run id and its
// workers inherit it), so two runs on one machine never drop each other's databases.
const RUN_ID = process.env.RELAY_TEST_RUN_ID ?? String(process.pid);
/** The Redis the tests share (each file keys under a prefix of its own). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const TEMPLATE_DATABASE = `relay_tpl_${RUN_ID}`;
export const TEST_DATABASE_PREFIX = `relay_t_${RUN_ID}_`;

export function databaseUrl(name: string): string {
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

// Every test file gets its own database, copied from a migrated template in milliseconds, so files
// run in parallel without seeing each other's events (the worker's sweeper reads all of them).
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${TEST_DATABASE_PREFIX}${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`);
  return { name, url: databaseUrl(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** A Redis key prefix of its own for each test file's queues. */
export function uniqueQueuePrefix(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/**
 * A migrated database of the test file's own, created before its tests and dropped after them, with what
 * `open` makes of its URL (a connection pool, repositories), closed before the drop. The returned function
 * gives it to the tests (from the file's own `beforeAll`s on).
 */
export function useTestDatabase<T extends { close(): Promise<void> }>(open: (url: string) => T): () => T {
  let testDb: TestDatabase | undefined;
  let opened: T | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    opened = open(testDb.url);
  });
  afterAll(async () => {
    await opened?.close();
    await testDb?.drop();
  });
  return () => {
    if (!opened) throw new Error('the test database opens in beforeAll');
    return opened;
  };
}
