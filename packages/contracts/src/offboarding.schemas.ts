import { z } from 'zod';
import { timestamp } from './common.schemas';
import { eventSummarySchema } from './events.schemas';

/** One line of an organization's export (NDJSON): an event as stored, with a summary of its attempts. */
export const organizationExportLineSchema = eventSummarySchema.extend({
  headers: z
    .record(z.string(), z.string())
    .describe(
      'The inbound headers as stored; sensitive ones (Authorization, X-Api-Key, ...) masked, as the events API shows them.',
    ),
  body: z.string().describe('The stored body: its text when it is UTF-8, else base64 (see `body_encoding`).'),
  body_encoding: z.enum(['utf8', 'base64']),
  last_error: z.string().nullable(),
  attempts: z.object({
    main: z.number().int().describe('Delivery attempts to the target, every run.'),
    hook: z.number().int().describe('Hook requests made after outcomes.'),
    last_response_status: z.number().int().nullable().describe('HTTP status of the latest main attempt.'),
    last_finished_at: timestamp.nullable().describe('When the latest main attempt ended.'),
  }),
});
