import { EVENT_STATUSES } from '@relay/core';
import { z } from 'zod';

export const ingestAccepted = z.object({
  id: z.uuid().describe('The event id (also the webhook-id of deliveries).'),
  status: z.literal('queued'),
});
export const ingestDuplicate = z.object({
  id: z.uuid().describe("The original event's id: this webhook's deduplication key was seen within the window."),
  status: z.enum(EVENT_STATUSES).describe("The original event's status now."),
  duplicate: z.literal(true),
});
export const sourceParam = z.object({
  source: z.string().describe('The webhook source (first path segment); deeper segments are allowed and ignored.'),
});

export const healthSchema = z.object({ status: z.literal('ok') });
/** The read replica as /ready reports it (DATABASE_READ_URL): a detail, never a reason for 503. */
export const replicaReadinessSchema = z.object({
  status: z
    .enum(['ok', 'behind', 'unavailable'])
    .describe(
      'ok: history reads go to the replica; behind (past DATABASE_READ_MAX_LAG_SECONDS) or unavailable: to the primary.',
    ),
  reads: z.enum(['replica', 'primary']).describe('Where history reads (lists, search, stats, exports) go now.'),
  lag_seconds: z
    .number()
    .nullable()
    .describe('How long the primary has had WAL the replica has not replayed; null while it cannot be reached.'),
  lag_bytes: z.number().int().nullable().describe("WAL bytes between the primary's position and the replica's replay."),
  error: z.string().optional().describe('Why the replica is unavailable.'),
});
export const readySchema = z.object({
  status: z.literal('ready'),
  checks: z.record(z.string(), z.string()),
  replica: replicaReadinessSchema.optional().describe('Only when a read replica is configured (DATABASE_READ_URL).'),
});
