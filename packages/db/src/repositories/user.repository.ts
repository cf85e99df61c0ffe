import type { OrgId, Role } from '@relay/core';
import { atomically, type DbClient } from '../client';

export interface UserRecord {
  id: string;
  organizationId: OrgId;
  username: string;
  email: string;
  role: Role;
  createdAt: Date;
  /** Set while the user is disabled: no login, session, token or Basic access works. */
  disabledAt: Date | null;
}

export interface UserWithSessionCut extends UserRecord {
  /** Sessions started before this moment are over (a password change, a reset, a disable). */
  sessionsValidAfter: Date | null;
}

export interface UserWithHash extends UserRecord {
  // Null for a user who signs in only through the identity provider (never matches a password).
  passwordHash: string | null;
}

/** The columns of a UserRecord (a select shape other repositories of users extend). */
export const publicFields = {
  id: true,
  organizationId: true,
  username: true,
  email: true,
  role: true,
  createdAt: true,
  disabledAt: true,
} as const;
export const asRecord = <T extends { organizationId: string }>(row: T) => ({
  ...row,
  organizationId: row.organizationId as OrgId,
});

export function createUserRepository(prisma: DbClient) {
  return {
    async create(
      orgId: OrgId,
      data: { username: string; email: string; role: Role; passwordHash: string },
    ): Promise<UserRecord> {
      return asRecord(await prisma.user.create({ data: { ...data, organizationId: orgId }, select: publicFields }));
    },

    /** Login and Basic auth: usernames are unique per install, so no organization is needed. */
    async findByUsernameForLogin(username: string): Promise<UserWithHash | null> {
      const row = await prisma.user.findUnique({
        where: { username },
        select: { ...publicFields, passwordHash: true },
      });
      return row ? asRecord(row) : null;
    },

    async findById(orgId: OrgId, id: string): Promise<UserWithSessionCut | null> {
      const row = await prisma.user.findFirst({
        where: { id, organizationId: orgId },
        select: { ...publicFields, sessionsValidAfter: true },
      });
      return row ? asRecord(row) : null;
    },

    list(orgId: OrgId): Promise<UserRecord[]> {
      return prisma.user
        .findMany({ where: { organizationId: orgId }, orderBy: { createdAt: 'asc' }, select: publicFields })
        .then((rows) => rows.map(asRecord));
    },

    /**
     * Changes a role unless that would leave the organization without an admin; the check and the
     * update share one transaction so two concurrent demotions cannot both pass.
     */
    async updateRole(
      orgId: OrgId,
      id: string,
      role: Role,
    ): Promise<{ user: UserRecord; previous: Role } | 'not_found' | 'last_admin'> {
      return atomically(prisma, async (tx) => {
        const user = await tx.user.findFirst({ where: { id, organizationId: orgId }, select: publicFields });
        if (!user) return 'not_found' as const;
        if (user.role === 'admin' && role !== 'admin' && user.disabledAt === null) {
          // Disabled admins do not count: the organization must keep an admin who can sign in.
          const admins = await tx.$queryRaw<{ id: string }[]>`
            SELECT id FROM users
            WHERE organization_id = ${orgId}::uuid AND role = 'admin' AND disabled_at IS NULL FOR UPDATE`;
          if (admins.filter((a) => a.id !== id).length === 0) return 'last_admin' as const;
        }
        const updated = await tx.user.update({ where: { id }, data: { role }, select: publicFields });
        return { user: asRecord(updated), previous: user.role };
      });
    },

    async countAdmins(orgId: OrgId): Promise<number> {
      return prisma.user.count({ where: { organizationId: orgId, role: 'admin' } });
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
