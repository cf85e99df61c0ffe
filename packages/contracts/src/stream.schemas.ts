import { z } from 'zod';
import { DELIVERY_STATUSES } from './events.schemas';

export const streamQuery = z
  .object({
    last_event_id: z
      .string()
      .max(200)
      .optional()
      .describe('Resume after this message id, for clients that cannot send the `Last-Event-ID` header.'),
  })
  .strict();

/**
 * `event: delivery.status` of the live feed (GET /events/stream): a destination delivery (routing) was made, or its
 * status or attempt count changed. Its `id:` and replay work as for the other messages.
 */
export const feedDeliveryStatusSchema = z
  .object({
    event_id: z.uuid().describe('The event the delivery carries.'),
    delivery_id: z.uuid().describe("The delivery's id (its webhook-id; `deliveries[].id` of GET /events/{id})."),
    destination_id: z.uuid(),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int().describe('Attempts made so far, every run counted.'),
  })
  .strict();
