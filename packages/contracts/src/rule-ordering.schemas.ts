import { EVENT_STATUSES } from '@relay/core';
import { z } from 'zod';
import { timestamp } from './common.schemas';

/** How many blocked keys GET /rules/{id}/ordering lists at most. */
export const BLOCKED_KEYS_LIMIT = 100;

export const blockedKeySchema = z.object({
  key: z.string().describe("The ordering key ('' is the whole source, or webhooks that carried no key)."),
  event_id: z.string().describe("The key's head: the oldest unfinished event, the one being retried."),
  status: z.enum(EVENT_STATUSES).describe('`queued` (retrying) or `paused` (its rule is unhealthy).'),
  attempts: z.number().int().describe("The head's delivery attempts so far."),
  blocked_since: timestamp.describe("When the head's first failed attempt finished: how long the key has waited."),
  waiting: z.number().int().describe('Events of the key waiting behind the head.'),
});

export const ruleOrderingSchema = z.object({
  blocked_keys: z
    .array(blockedKeySchema)
    .describe(`Keys whose head has failed at least once, oldest block first (at most ${BLOCKED_KEYS_LIMIT}).`),
});
