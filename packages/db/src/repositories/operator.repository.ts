import { atomically, type DbClient } from '../client';

export interface OperatorRecord {
  id: string;
  username: string;
  createdAt: Date;
}

const fields = { id: true, username: true, createdAt: true } as const;
// One key for every bootstrap: concurrent bootstraps queue on it, so exactly one creates.
const BOOTSTRAP_LOCK = 0x52454c4159; // "RELAY"

// Platform operators: outside every organization, so nothing here takes an organization id.
export function createOperatorRepository(prisma: DbClient) {
  return {
    /** Creates the first operator, or answers 'exists' when any operator (or a user of that name) exists. */
    async bootstrap(username: string, passwordHash: string): Promise<OperatorRecord | 'exists' | 'username_taken'> {
      return atomically(prisma, async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK}::bigint)`;
        if ((await tx.platformOperator.count()) > 0) return 'exists';
        if (await tx.user.findUnique({ where: { username }, select: { id: true } })) return 'username_taken';
        return tx.platformOperator.create({ data: { username, passwordHash }, select: fields });
      });
    },

    async exists(): Promise<boolean> {
      return (await prisma.platformOperator.count()) > 0;
    },

    async findByUsernameForLogin(username: string): Promise<(OperatorRecord & { passwordHash: string }) | null> {
      return prisma.platformOperator.findUnique({ where: { username }, select: { ...fields, passwordHash: true } });
    },

    findById(id: string): Promise<OperatorRecord | null> {
      return prisma.platformOperator.findUnique({ where: { id }, select: fields });
    },

    /** The operator behind a session, with the moment before which its sessions are over. */
    findForSession(id: string): Promise<(OperatorRecord & { sessionsValidAfter: Date | null }) | null> {
      return prisma.platformOperator.findUnique({ where: { id }, select: { ...fields, sessionsValidAfter: true } });
    },

    async passwordHashOf(id: string): Promise<string | null> {
      const row = await prisma.platformOperator.findUnique({ where: { id }, select: { passwordHash: true } });
      return row?.passwordHash ?? null;
    },

    /** A new password: the operator's sessions started before `at` end. */
    async setPassword(id: string, passwordHash: string, at: Date): Promise<void> {
      await prisma.platformOperator.update({ where: { id }, data: { passwordHash, sessionsValidAfter: at } });
    },

    list(): Promise<OperatorRecord[]> {
      return prisma.platformOperator.findMany({ orderBy: { createdAt: 'asc' }, select: fields });
    },

    /** Adds an operator; usernames are unique across operators and users (one login form serves both). */
    async create(username: string, passwordHash: string): Promise<OperatorRecord | 'username_taken'> {
      return atomically(prisma, async (tx) => {
        if (await tx.user.findUnique({ where: { username }, select: { id: true } })) return 'username_taken';
        if (await tx.platformOperator.findUnique({ where: { username }, select: { id: true } }))
          return 'username_taken';
        return tx.platformOperator.create({ data: { username, passwordHash }, select: fields });
      });
    },

    /** Removes an operator, never the last one; the bootstrap lock serialises concurrent removals. */
    async remove(id: string): Promise<OperatorRecord | 'not_found' | 'last_operator'> {
      return atomically(prisma, async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK}::bigint)`;
        const operator = await tx.platformOperator.findUnique({ where: { id }, select: fields });
        if (!operator) return 'not_found';
        if ((await tx.platformOperator.count()) <= 1) return 'last_operator';
        await tx.platformOperator.delete({ where: { id } });
        return operator;
      });
    },

    async usernameTaken(username: string): Promise<boolean> {
      return (await prisma.platformOperator.count({ where: { username } })) > 0;
    },
  };
}

export type OperatorRepository = ReturnType<typeof createOperatorRepository>;
