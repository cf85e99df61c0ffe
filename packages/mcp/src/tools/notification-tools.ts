import { dataOf } from '@relay/client';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';

// Where the organization's notices go (`/api/organization/notifications`).

const settingsOutput = {
  url: z.string().nullable().describe('Where notices go; null: no notices.'),
  has_secret: z.boolean().describe('Whether notices are signed with a secret of their own.'),
};

const getNotifications = defineTool({
  name: 'get_notification_settings',
  title: 'Show the notification URL',
  description:
    "Where the organization's notices go: `rule.unhealthy` when a rule's target turns unhealthy, " +
    '`destination.unhealthy` when one of its destinations does, and an ' +
    '`events.failed` digest of newly failed events. `has_secret` says whether they are signed with a secret of ' +
    'their own (the secret is never shown).',
  operation: 'GET /api/organization/notifications',
  input: {},
  output: settingsOutput,
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(_args, { client }) {
    return dataOf(client.GET('/api/organization/notifications'));
  },
});

const setNotifications = defineTool({
  name: 'set_notification_settings',
  title: 'Set the notification URL',
  description:
    'Sets (or with url null turns off) the URL that receives the notices, signed like deliveries (X-Relay-Signature, ' +
    'webhook-signature). `secret` (16-256 characters, write-only) signs them; omitted, the stored secret stays; ' +
    'null: none (the install default, if any). The URL must pass the target network policy.',
  operation: 'PUT /api/organization/notifications',
  input: {
    url: z.string().trim().min(1).max(2048).nullable().describe('http(s) URL; null turns notices off.'),
    secret: z.string().min(16).max(256).nullable().optional().describe('Write-only signing secret.'),
  },
  output: settingsOutput,
  annotations: { destructiveHint: false, idempotentHint: true },
  async run(body, { client }) {
    return dataOf(client.PUT('/api/organization/notifications', { body }));
  },
});

export const NOTIFICATION_TOOLS: readonly AnyRelayTool[] = [getNotifications, setNotifications];
