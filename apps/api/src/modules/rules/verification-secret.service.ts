import { AppError, sealSecret, secretHash, type Principal, type SecretKeyring } from '@relay/core';
import type { verificationSecretRotateSchema } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { z } from 'zod';
import { audited } from '../audit-entry';
import { written } from './rule.service';
import { ruleView } from './rule.views';

export interface VerificationSecretServiceDeps {
  repositories: Pick<Repositories, 'transaction'>;
  /** SECRET_ENCRYPTION_KEYS: verification secrets are stored sealed, like signing secrets. */
  secretKeys: SecretKeyring | undefined;
  now?: () => Date;
  /** DEFAULT_SIGNING_SECRET is set (shown as `signing: "default"`); unset: false. */
  defaultSigning?: boolean;
}

export type VerificationSecretRotation = z.output<typeof verificationSecretRotateSchema>;

// Rotating the secret a rule signs its webhooks with (inbound verification, docs/rules.md).
export function createVerificationSecretService(deps: VerificationSecretServiceDeps) {
  const defaultSigns = deps.defaultSigning ?? false;
  const now = deps.now ?? (() => new Date());
  return {
    /**
     * The new secret verifies from now; the one it replaces is accepted too until the window ends,
     * so the rule's side can be switched without refusing webhooks signed with the old one.
     */
    async rotate(principal: Principal, id: string, input: VerificationSecretRotation) {
      if (!deps.secretKeys) throw new AppError('secrets_not_configured');
      const sealed = sealSecret(deps.secretKeys, input.verification_secret);
      const rule = await deps.repositories.transaction(async (tx) => {
        const current = await tx.rules.findById(principal.orgId, id);
        if (!current) throw new AppError('not_found', 'No such rule.');
        const windowMs = input.previous_secret_valid_for_seconds * 1000;
        const keepPrevious = current.verificationSecret !== null && windowMs > 0;
        const expiresAt = keepPrevious ? new Date(now().getTime() + windowMs) : null;
        const updated = written(
          await tx.rules.update(principal.orgId, id, {
            verificationSecret: sealed,
            verificationSecretHash: secretHash(deps.secretKeys!, input.verification_secret),
            previousVerificationSecret: keepPrevious ? current.verificationSecret : null,
            previousVerificationExpiresAt: expiresAt,
          }),
        );
        // The metadata says until when the old secret is accepted, never either secret.
        const metadata = { previous_secret_expires_at: expiresAt?.toISOString() ?? null };
        const fact = { action: 'rule.verification_secret_rotated', resourceType: 'rule', resourceId: id, metadata };
        await audited(tx, principal, fact);
        return updated;
      });
      return ruleView(rule, defaultSigns);
    },
  };
}
