import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client';

export type Prisma = PrismaClient;

export interface DatabaseOptions {
  url: string;
  poolSize?: number;
  onPoolError?: (err: Error) => void;
  /** Longest wait for a new connection (a read replica's is short: reads fall back to the primary). */
  connectionTimeoutMs?: number;
  /** Shown in pg_stat_activity (the read replica's connections say so). */
  applicationName?: string;
}

export interface Database {
  prisma: PrismaClient;
  /** The same connections Prisma uses, for the few hot-path statements written in SQL. */
  pool: pg.Pool;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const TIMESTAMP_OID = 1114;

// `timestamp` columns hold UTC (as Prisma writes them); read them as UTC whatever the process's TZ.
// Prisma passes its own parsers per query, so this only affects the SQL written here.
function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === TIMESTAMP_OID && format !== 'binary') return (value: string) => new Date(`${value.replace(' ', 'T')}Z`);
  return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
}

/** A pool of raw `pg` connections alone (a read replica's: its reads are all SQL, no Prisma client is needed). */
export function createPool(options: DatabaseOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    application_name: options.applicationName,
    types: { getTypeParser },
  });
  // A dropped pooled connection must not crash the process; the next query reconnects.
  pool.on('error', options.onPoolError ?? (() => {}));
  return pool;
}

// One pool serves Prisma and the hot path's SQL, so a process never holds two sets of connections.
export function createDatabase(options: DatabaseOptions): Database {
  const pool = createPool(options);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { onPoolError: options.onPoolError ?? (() => {}) }) });
  let closed = false;
  return {
    prisma,
    pool,
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

const UNAVAILABLE_PATTERN = new RegExp(
  [
    'ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN',
    // 55P03: a lock_timeout ran out (the partition maintenance and upgrade statements set one), so the write
    // waited on a lock held for longer than the relay waits: retried later, like an unreachable database.
    'P1001|P1002|P1017|57P01|57P03|53300|55P03',
    'timeout exceeded when trying to connect|Connection terminated|DatabaseNotReachable|connect',
  ].join('|'),
  'i',
);

// 23514 is any check violation, but only "no partition of relation … found for row" means the database is not
// ready for the row (a partition the maintenance job has not created yet): not the caller's fault, and retried.
const NO_PARTITION_PATTERN = /no partition of relation/i;

/** True for errors that mean "the database could not be reached", as opposed to a bad query. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  const message = (err as Error)?.message ?? '';
  if (code === '23514') return NO_PARTITION_PATTERN.test(message);
  return UNAVAILABLE_PATTERN.test(`${code} ${message}`);
}

/**
 * True for a write refused because the organization it names no longer exists: a row's
 * `<table>_organization_id_fkey` (23503), when the organization was deleted while the request ran.
 */
export function isOrganizationGone(err: unknown): boolean {
  const { code, constraint } = (err ?? {}) as { code?: string; constraint?: string };
  return code === '23503' && typeof constraint === 'string' && constraint.endsWith('_organization_id_fkey');
}
