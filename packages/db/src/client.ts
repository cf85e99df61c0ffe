import type { PrismaClient } from './generated/prisma/client';
import type { TransactionClient } from './generated/prisma/internal/prismaNamespace';

/** What a Prisma-backed repository runs on: the client, or a transaction begun by a service. */
export type DbClient = PrismaClient | TransactionClient;
export type { TransactionClient };

/**
 * Runs `work` atomically: in a new transaction on the client, or in the caller's transaction when
 * the repository was created inside one (Prisma transactions do not nest).
 */
export function atomically<T>(client: DbClient, work: (tx: TransactionClient) => Promise<T>): Promise<T> {
  return '$transaction' in client ? client.$transaction(work) : work(client);
}
