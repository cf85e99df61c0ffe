import type { OrgId, Role } from '@relay/core';
import type { DbClient } from '../client';
import { asRecord, publicFields, type UserRecord } from './user.repository';

/** A user found through an identity provider's (issuer, subject), with what the login must check. */
export interface IdentityUserRecord extends UserRecord {
  disabledAt: Date | null;
  roleManagedByIdp: boolean;
}

const userFields = { ...publicFields, roleManagedByIdp: true } as const;

export interface NewIdentityUser {
  username: string;
  email: string;
  role: Role;
  roleManagedByIdp: boolean;
}

export interface IdentityKey {
  issuer: string;
  subject: string;
  email: string | null;
}

// Identities link a user to an identity provider's (issuer, subject): never an e-mail alone.
export function createIdentityRepository(prisma: DbClient) {
  return {
    async findUser(issuer: string, subject: string): Promise<IdentityUserRecord | null> {
      const row = await prisma.userIdentity.findUnique({
        where: { issuer_subject: { issuer, subject } },
        select: { user: { select: userFields } },
      });
      return row ? asRecord(row.user) : null;
    },

    /** A password-less user and its identity, together (inside the caller's transaction). */
    async createUser(orgId: OrgId, user: NewIdentityUser, identity: IdentityKey): Promise<IdentityUserRecord> {
      const created = await prisma.user.create({
        data: {
          ...user,
          organizationId: orgId,
          passwordHash: null,
          identities: { create: { ...identity, lastLoginAt: new Date() } },
        },
        select: userFields,
      });
      return asRecord(created);
    },

    async touch(issuer: string, subject: string, email: string | null): Promise<void> {
      await prisma.userIdentity.update({
        where: { issuer_subject: { issuer, subject } },
        data: { lastLoginAt: new Date(), email },
      });
    },

    /** Whether this user's role follows an identity provider's claim mapping (read-only in the users API). */
    async roleManaged(orgId: OrgId, userId: string): Promise<boolean> {
      const row = await prisma.user.findFirst({
        where: { id: userId, organizationId: orgId },
        select: { roleManagedByIdp: true },
      });
      return row?.roleManagedByIdp ?? false;
    },

    async setRoleManaged(userId: string, managed: boolean): Promise<void> {
      await prisma.user.update({ where: { id: userId }, data: { roleManagedByIdp: managed } });
    },

    /** Usernames (of users and platform operators) among these candidates that are taken. */
    async takenUsernames(candidates: string[]): Promise<Set<string>> {
      const [users, operators] = await Promise.all([
        prisma.user.findMany({ where: { username: { in: candidates } }, select: { username: true } }),
        prisma.platformOperator.findMany({ where: { username: { in: candidates } }, select: { username: true } }),
      ]);
      return new Set([...users, ...operators].map((row) => row.username));
    },

    /**
     * Links an identity to an existing user (a signed-in user linking their identity-provider account): `taken` when
     * the (issuer, subject) belongs to another user already, also when a concurrent link wins the race.
     */
    async link(userId: string, identity: IdentityKey): Promise<'linked' | 'already_linked' | 'taken'> {
      const where = { issuer_subject: { issuer: identity.issuer, subject: identity.subject } };
      const existing = await prisma.userIdentity.findUnique({ where, select: { userId: true } });
      if (existing) return existing.userId === userId ? 'already_linked' : 'taken';
      try {
        await prisma.userIdentity.create({ data: { ...identity, userId } });
        return 'linked';
      } catch (err) {
        if ((err as { code?: string }).code === 'P2002') return 'taken';
        throw err;
      }
    },

    countForUser(userId: string): Promise<number> {
      return prisma.userIdentity.count({ where: { userId } });
    },
  };
}

export type IdentityRepository = ReturnType<typeof createIdentityRepository>;
