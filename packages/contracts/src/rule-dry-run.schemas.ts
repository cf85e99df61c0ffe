import { z } from 'zod';
import { routingFilterSchema } from './routing-filter.schemas';

export const DRY_RUN_DEFAULT_EVENTS = 50;
export const DRY_RUN_MAX_EVENTS = 1_000;

// POST /rules/{id}/dry-run (docs/routing.md, "Dry run"): a filter tried on webhooks the rule already stored.
// `filter` tries a filter as typed; `destination_id` alone tries that destination's saved filter; both: the typed
// filter for that destination (the editor's case). One of them is required.
export const ruleDryRunSchema = z
  .object({
    filter: routingFilterSchema.optional(),
    destination_id: z
      .uuid()
      .optional()
      .describe("One of the rule's destinations: its saved filter when `filter` is omitted (null filter matches all)."),
    events: z
      .number()
      .int()
      .min(1)
      .max(DRY_RUN_MAX_EVENTS)
      .optional()
      .describe(
        `How many of the rule's newest stored webhooks to try (default ${DRY_RUN_DEFAULT_EVENTS}, ` +
          `at most ${DRY_RUN_MAX_EVENTS}).`,
      ),
    event_ids: z
      .array(z.uuid())
      .min(1)
      .max(DRY_RUN_MAX_EVENTS)
      .optional()
      .describe("These webhooks instead (each must be one of the rule's events); not with `events`."),
  })
  .strict()
  .refine((body) => body.events === undefined || body.event_ids === undefined, {
    message: 'Give `events` or `event_ids`, not both.',
    path: ['event_ids'],
  })
  .refine((body) => body.filter !== undefined || body.destination_id !== undefined, {
    message: 'Give `filter`, `destination_id`, or both.',
    path: ['filter'],
  });

export const ruleDryRunResultSchema = z.object({
  matched: z.number().int().describe('Webhooks the filter matches: they would have gone to the target.'),
  not_matched: z.number().int().describe('Webhooks it does not match: they would have ended `ignored`.'),
  results: z
    .array(z.object({ event_id: z.uuid(), matched: z.boolean() }))
    .describe('One per webhook tried, newest first (for `event_ids`, in the order given).'),
});
