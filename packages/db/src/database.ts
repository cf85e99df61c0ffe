import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type Prisma = PrismaClient;

export interface DatabaseOptions {
  url: string;
  poolSize?: number;
  onPoolError?: (err: Error) => void;
}

export interface Database {
  prisma: PrismaClient;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function createDatabase(options: DatabaseOptions): Database {
  const adapter = new PrismaPg(
    { connectionString: options.url, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 },
    // A dropped pooled connection must not crash the process; the next query reconnects.
    { onPoolError: options.onPoolError ?? (() => {}), onConnectionError: options.onPoolError ?? (() => {}) },
  );
  const prisma = new PrismaClient({ adapter });
  return {
    prisma,
    async ping() {
      await prisma.$queryRaw`SELECT 1`;
    },
    close: () => prisma.$disconnect(),
  };
}

/** True for errors that mean "the database could not be reached", as opposed to a bad query. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const text = `${(err as { code?: string })?.code ?? ''} ${(err as Error)?.message ?? ''}`;
  return /ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|P1001|P1002|P1017|57P01|57P03|53300|timeout exceeded when trying to connect|Connection terminated|DatabaseNotReachable|connect/i.test(
    text,
  );
}
