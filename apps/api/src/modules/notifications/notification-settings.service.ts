import { AppError, sealSecret, secretHash, type Principal, type SecretKeyring, type TargetPolicy } from '@relay/core';
import type { notificationSettingsUpdateSchema } from '@relay/contracts';
import type { NotificationSettingsRecord, Repositories } from '@relay/db';
import type { z } from 'zod';
import { allowedTarget } from '../allowed-target';
import { audited } from '../audit-entry';

export type NotificationSettingsUpdate = z.output<typeof notificationSettingsUpdateSchema>;

export interface NotificationSettingsServiceDeps {
  repositories: Pick<Repositories, 'notifications' | 'transaction'>;
  /** Notices go out like deliveries: the same network policy decides which URLs are allowed. */
  targetPolicy: TargetPolicy;
  /** SECRET_ENCRYPTION_KEYS: the notification secret is stored sealed, never in plaintext. */
  secretKeys: SecretKeyring | undefined;
  now?: () => Date;
}

// The secret is write-only: a view says whether there is one, never what it is.
const view = (settings: NotificationSettingsRecord | null) => ({
  url: settings?.url ?? null,
  has_secret: (settings?.secretSealed ?? null) !== null,
});

// GET/PUT /api/organization/notifications: where the worker sends the organization's notices
// (rule.unhealthy, destination.unhealthy, the failure digest), signed like deliveries.
export function createNotificationSettingsService(deps: NotificationSettingsServiceDeps) {
  const { repositories: repos } = deps;
  const now = deps.now ?? (() => new Date());
  const seal = (secret: string) => {
    if (!deps.secretKeys) throw new AppError('secrets_not_configured');
    return sealSecret(deps.secretKeys, secret);
  };

  return {
    async get(principal: Principal) {
      return view(await repos.notifications.find(principal.orgId));
    },

    async save(principal: Principal, input: NotificationSettingsUpdate) {
      const url = input.url === null ? null : allowedTarget(input.url, deps.targetPolicy);
      // Sealed before the transaction: a missing key refuses the request without touching anything.
      const sealed = url !== null && input.secret ? seal(input.secret) : undefined;
      return repos.transaction(async (tx) => {
        const previous = await tx.notifications.find(principal.orgId);
        const secretSealed = url === null || input.secret === null ? null : (sealed ?? previous?.secretSealed ?? null);
        const hash =
          sealed !== undefined ? secretHash(deps.secretKeys!, input.secret!) : (previous?.secretHash ?? null);
        const saved = { url, secretSealed, secretHash: secretSealed === null ? null : hash };
        // Turning notices on starts the failure digest now: earlier failures are not news.
        const digestFrom = url !== null && !previous?.url ? now() : url === null ? null : undefined;
        await tx.notifications.save(principal.orgId, saved, digestFrom);
        const secretChange =
          sealed !== undefined ? 'replaced' : secretSealed === null && previous?.secretSealed ? 'cleared' : 'kept';
        // Never the secret: only whether it changed.
        const metadata = { from: previous?.url ?? null, to: url, secret: secretChange };
        const fact = { action: 'organization.notifications_updated', resourceType: 'organization' };
        await audited(tx, principal, { ...fact, resourceId: principal.orgId, metadata });
        return view(saved);
      });
    },
  };
}
