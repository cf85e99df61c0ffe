import type { OrgId, Role } from '@relay/core';
import type { Prisma } from '../database';

export interface UserRecord {
  id: string;
  organizationId: OrgId;
  username: string;
  email: string;
  role: Role;
  createdAt: Date;
}

export interface UserWithHash extends UserRecord {
  passwordHash: string;
}

const publicFields = { id: true, organizationId: true, username: true, email: true, role: true, createdAt: true } as const;
const asRecord = <T extends { organizationId: string }>(row: T) => ({ ...row, organizationId: row.organizationId as OrgId });

export function createUserRepository(prisma: Prisma) {
  return {
    async create(orgId: OrgId, data: { username: string; email: string; role: Role; passwordHash: string }): Promise<UserRecord> {
      return asRecord(await prisma.user.create({ data: { ...data, organizationId: orgId }, select: publicFields }));
    },

    /** Login and Basic auth: usernames are unique per install, so no organization is needed. */
    async findByUsernameForLogin(username: string): Promise<UserWithHash | null> {
      const row = await prisma.user.findUnique({ where: { username }, select: { ...publicFields, passwordHash: true } });
      return row ? asRecord(row) : null;
    },

    async findById(orgId: OrgId, id: string): Promise<UserRecord | null> {
      const row = await prisma.user.findFirst({ where: { id, organizationId: orgId }, select: publicFields });
      return row ? asRecord(row) : null;
    },

    async countAdmins(orgId: OrgId): Promise<number> {
      return prisma.user.count({ where: { organizationId: orgId, role: 'admin' } });
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
