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

    async usernameTaken(username: string): Promise<boolean> {
      return (await prisma.platformOperator.count({ where: { username } })) > 0;
    },
  };
}

export type OperatorRepository = ReturnType<typeof createOperatorRepository>;
