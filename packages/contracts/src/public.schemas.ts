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
export const readySchema = z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.string()) });
