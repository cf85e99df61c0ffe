import { createHash, randomBytes } from 'node:crypto';
import { AppError, type Principal } from '@relay/core';
import type { Repositories } from '@relay/db';
import type { LoginLimiter } from '../../auth/login-limiter';
import type { PasswordHasher } from '../../auth/passwords';
import { tooManyAttempts } from '../../auth/too-many-attempts';
import { audited } from '../audit-entry';

export interface PasswordServiceDeps {
  repositories: Pick<Repositories, 'accounts' | 'audit' | 'transaction' | 'users'>;
  passwords: PasswordHasher;
  limiter: LoginLimiter;
  publicBaseUrl: string;
  now?: () => Date;
}

/** How long an admin's set-password code works. */
export const RESET_CODE_TTL_MS = 24 * 60 * 60 * 1000;

// Codes are stored as their SHA-256 only: a database read does not hand out working codes. They
// are 192 random bits, so a fast digest is enough (no password hashing needed).
const digest = (code: string) => createHash('sha256').update(code).digest('hex');
const invalidCode = (why: string) => new AppError('reset_code_invalid', `The set-password code ${why}.`);

// Passwords of users: changing one's own (the current password is checked through the login limit),
// admins issuing one-time set-password codes, and redeeming them. A new password ends every other
// session (sessions_valid_after) and every personal token of the user.
export function createPasswordService(deps: PasswordServiceDeps) {
  const repos = deps.repositories;
  const now = () => deps.now?.() ?? new Date();
  const limited = async (kind: 'password' | 'reset_code', subject: string, ip: string) => {
    const check = await deps.limiter.attempt(kind, subject, ip);
    if (!check.ok) throw tooManyAttempts(check.retryAfterSeconds);
  };
  return {
    /** Answers the cut: sessions started before it are over (the caller renews its own after it). */
    async change(principal: Principal, input: { current_password: string; new_password: string }, ip = 'unknown') {
      const userId = principal.userId!;
      await limited('password', principal.username!, ip);
      const hash = await repos.accounts.passwordHashOf(userId);
      if (!hash || !(await deps.passwords.verify(hash, input.current_password))) {
        const fact = { action: 'auth.password_change_failed', resourceType: 'user', resourceId: userId };
        await audited(repos, principal, { ...fact, metadata: { ip } });
        throw new AppError('wrong_password');
      }
      await deps.limiter.succeeded('password', principal.username!, ip);
      const newHash = await deps.passwords.hash(input.new_password);
      const cut = now();
      await repos.transaction(async (tx) => {
        await tx.accounts.setPassword(userId, newHash, cut);
        const fact = { action: 'auth.password_changed', resourceType: 'user', resourceId: userId };
        await audited(tx, principal, fact);
      });
      return cut;
    },

    /** An admin issues a one-time code for a user of the organization; the code is shown only here. */
    async issueReset(principal: Principal, userId: string) {
      const user = await repos.users.findById(principal.orgId, userId);
      if (!user) throw new AppError('not_found', 'No such user.');
      const code = randomBytes(24).toString('base64url');
      const expiresAt = new Date(now().getTime() + RESET_CODE_TTL_MS);
      await repos.transaction(async (tx) => {
        const reset = await tx.accounts.createReset({
          userId,
          codeHash: digest(code),
          expiresAt,
          createdById: principal.userId,
        });
        const fact = { action: 'user.password_reset_issued', resourceType: 'user', resourceId: userId };
        const metadata = { username: user.username, reset_id: reset.id, expires_at: expiresAt.toISOString() };
        await audited(tx, principal, { ...fact, metadata });
      });
      const link = new URL('/app/set-password', deps.publicBaseUrl);
      link.searchParams.set('code', code);
      return { code, link: link.toString(), expires_at: expiresAt.toISOString() };
    },

    /** Anyone holding a code sets the password once; limited per code and per IP like a login. */
    async redeemReset(input: { code: string; new_password: string }, ip = 'unknown') {
      const codeHash = digest(input.code);
      await limited('reset_code', codeHash, ip);
      const reset = await repos.accounts.findReset(codeHash);
      if (!reset) throw invalidCode('is unknown');
      if (reset.usedAt) throw invalidCode('was used already');
      const at = now();
      if (reset.expiresAt <= at) throw invalidCode('has expired');
      await deps.limiter.succeeded('reset_code', codeHash, ip);
      const newHash = await deps.passwords.hash(input.new_password);
      await repos.transaction(async (tx) => {
        // Marked first, under the transaction: of two racing requests only one sets the password.
        if (!(await tx.accounts.useReset(reset.id, at))) throw invalidCode('was used already');
        await tx.accounts.setPassword(reset.userId, newHash, at);
        await tx.audit.record(reset.organizationId, {
          actorUserId: reset.userId,
          actorEmail: reset.email,
          action: 'user.password_reset',
          resourceType: 'user',
          resourceId: reset.userId,
          metadata: { username: reset.username, reset_id: reset.id, ip },
        });
      });
    },
  };
}
