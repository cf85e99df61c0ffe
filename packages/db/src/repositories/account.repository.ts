import type { OrgId } from '@relay/core';
import { atomically, type DbClient, type TransactionClient } from '../client';

/** What a lifecycle change touched: the user's name (for the audit entry), or why it was refused. */
export type LifecycleResult = { username: string } | 'not_found' | 'last_admin';

export interface PasswordResetRecord {
  id: string;
  userId: string;
  organizationId: OrgId;
  username: string;
  email: string;
  expiresAt: Date;
  usedAt: Date | null;
}

// Locks the organization's active admins: two concurrent disables or deletes cannot both pass the
// last-admin check (the same rule as role changes in user.repository.ts).
async function otherActiveAdmins(tx: TransactionClient, orgId: OrgId, id: string): Promise<number> {
  const admins = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM users
    WHERE organization_id = ${orgId}::uuid AND role = 'admin' AND disabled_at IS NULL
    FOR UPDATE`;
  return admins.filter((a) => a.id !== id).length;
}

// The account lifecycle: passwords, set-password codes, disabling and deleting users. Ending a
// user's sessions is a timestamp (sessions started before it are refused); personal tokens are deleted.
export function createAccountRepository(prisma: DbClient) {
  return {
    /** A new password: every session started before `at` ends, and every personal token of the user. */
    async setPassword(userId: string, passwordHash: string, at: Date): Promise<void> {
      await prisma.user.update({ where: { id: userId }, data: { passwordHash, sessionsValidAfter: at } });
      await prisma.personalToken.deleteMany({ where: { userId } });
    },

    async passwordHashOf(userId: string): Promise<string | null> {
      const row = await prisma.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
      return row?.passwordHash ?? null;
    },

    /** Disables (or re-enables) a user; the last active admin of the organization is never disabled. */
    async setDisabled(orgId: OrgId, id: string, disabled: boolean, at: Date): Promise<LifecycleResult> {
      return atomically(prisma, async (tx) => {
        const user = await tx.user.findFirst({ where: { id, organizationId: orgId } });
        if (!user) return 'not_found';
        if (disabled && user.role === 'admin' && (await otherActiveAdmins(tx, orgId, id)) === 0) return 'last_admin';
        // Disabling also ends the sessions, so re-enabling does not bring old ones back.
        const data = disabled ? { disabledAt: user.disabledAt ?? at, sessionsValidAfter: at } : { disabledAt: null };
        await tx.user.update({ where: { id }, data });
        return { username: user.username };
      });
    },

    /** Deletes a user (tokens, identities and codes go with it; audit entries stay). */
    async deleteUser(orgId: OrgId, id: string): Promise<LifecycleResult> {
      return atomically(prisma, async (tx) => {
        const user = await tx.user.findFirst({ where: { id, organizationId: orgId } });
        if (!user) return 'not_found';
        const active = user.role === 'admin' && user.disabledAt === null;
        if (active && (await otherActiveAdmins(tx, orgId, id)) === 0) return 'last_admin';
        await tx.user.delete({ where: { id } });
        return { username: user.username };
      });
    },

    createReset(data: { userId: string; codeHash: string; expiresAt: Date; createdById: string | null }) {
      return prisma.passwordReset.create({ data, select: { id: true, expiresAt: true } });
    },

    async findReset(codeHash: string): Promise<PasswordResetRecord | null> {
      const row = await prisma.passwordReset.findUnique({
        where: { codeHash },
        include: { user: { select: { organizationId: true, username: true, email: true } } },
      });
      if (!row) return null;
      const { user, ...reset } = row;
      return { ...reset, organizationId: user.organizationId as OrgId, username: user.username, email: user.email };
    },

    /** Marks a code used; false when another request used it first (one use, even when raced). */
    async useReset(id: string, at: Date): Promise<boolean> {
      const { count } = await prisma.passwordReset.updateMany({ where: { id, usedAt: null }, data: { usedAt: at } });
      return count === 1;
    },
  };
}

export type AccountRepository = ReturnType<typeof createAccountRepository>;
