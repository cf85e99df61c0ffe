import { notificationSettingsSchema, notificationSettingsUpdateSchema } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

// Where the organization's notices go is organization management: the URL receives facts about every rule.
const manage = { role: 'admin', scope: 'organization:manage' } as const;
const common = { tag: 'organization', access: manage, path: '/api/organization/notifications' } as const;

export const notificationSettingsOperations = [
  defineOperation({
    ...common,
    method: 'get',
    summary: "The organization's notification URL (never its secret)",
    responses: {
      200: { description: 'The URL; `has_secret` instead of the secret.', schema: notificationSettingsSchema },
    },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: await services.notificationSettings.get(principal),
    }),
  }),
  defineOperation({
    ...common,
    method: 'put',
    summary: "Set or clear the organization's notification URL",
    description:
      'Notices (`rule.unhealthy`, `destination.unhealthy`, and an `events.failed` digest of newly failed events every ' +
      'NOTIFICATION_DIGEST_INTERVAL_SECONDS) are POSTed here as `{ id, type, organization_id, at, data }`, signed ' +
      'like deliveries (X-Relay-Signature, webhook-signature) with `secret`, else DEFAULT_SIGNING_SECRET if set, ' +
      'else unsigned. `secret` is write-only and stored sealed with SECRET_ENCRYPTION_KEYS; omitted, the stored ' +
      'one stays. Setting a URL where there was none starts the digest now. See docs/rules.md.',
    body: notificationSettingsUpdateSchema,
    responses: {
      200: { description: 'Saved.', schema: notificationSettingsSchema },
      422: {
        description:
          'Refused by the target policy (`target_url_rejected`), or a secret without SECRET_ENCRYPTION_KEYS ' +
          '(`secrets_not_configured`).',
      },
    },
    handler: async ({ services, principal, body }) => ({
      status: 200,
      body: await services.notificationSettings.save(principal, body),
    }),
  }),
];
