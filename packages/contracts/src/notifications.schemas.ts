import { z } from 'zod';
import { signingSecret, targetUrl } from './rules.schemas';

/** PUT /api/organization/notifications: where the organization's notices go, and their secret (write-only). */
export const notificationSettingsUpdateSchema = z
  .object({
    url: targetUrl
      .nullable()
      .describe(
        'http(s) URL for notices (rule.unhealthy, destination.unhealthy, events.failed), checked against the ' +
          'target network policy ' +
          '(422 `target_url_rejected`); null turns notices off and forgets the secret.',
      ),
    secret: signingSecret
      .nullable()
      .optional()
      .describe(
        'Write-only HMAC secret for X-Relay-Signature and webhook-signature of notices, stored sealed. Omitted: ' +
          'the stored one stays; null: none (notices are signed with DEFAULT_SIGNING_SECRET if set, else unsigned).',
      ),
  })
  .strict()
  // A secret without a URL would sign nothing: refused rather than kept for later.
  .refine((v) => v.url !== null || v.secret === undefined || v.secret === null, {
    message: 'A secret needs a URL.',
    path: ['secret'],
  });

/** GET /api/organization/notifications: never the secret, only whether there is one. */
export const notificationSettingsSchema = z.object({
  url: z.string().nullable().describe('Where notices go; null: no notices.'),
  has_secret: z.boolean().describe('Whether notices are signed with a secret of their own.'),
});
