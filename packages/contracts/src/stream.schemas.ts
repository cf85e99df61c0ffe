import { z } from 'zod';

export const streamQuery = z
  .object({
    last_event_id: z
      .string()
      .optional()
      .describe('Resume after this message id, for clients that cannot send the `Last-Event-ID` header.'),
  })
  .strict();
