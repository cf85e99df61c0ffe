import { z } from 'zod';

export const streamQuery = z
  .object({
    last_event_id: z
      .string()
      .max(200)
      .optional()
      .describe('Resume after this message id, for clients that cannot send the `Last-Event-ID` header.'),
  })
  .strict();
