import { z } from 'zod';
import { ruleSchema } from './rules.schemas';

/** The answer of POST /rules/{id}/resume: the rule (healthy again) and how many paused events went back to queued. */
export const ruleResumedSchema = z.object({
  rule: ruleSchema,
  resumed_events: z
    .number()
    .int()
    .describe('Paused events of the rule queued again, each with a fresh run of attempts.'),
});
