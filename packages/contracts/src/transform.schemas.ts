import { MAX_TRANSFORM_BYTES, RATE_LIMIT_PERIODS } from '@relay/core';
import { z } from 'zod';
import { timestamp } from './common.schemas';

// Transformations and pacing (issue 30, docs/transformations.md and docs/rules.md "Pacing"): the fields a rule (for
// its primary target) and each destination share, and POST /rules/{id}/transform-test.

export const MAX_RATE_LIMIT = 100_000;
export const MAX_CONCURRENCY = 1_000;

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

export const transformCode = z
  .string()
  .min(1)
  .refine((code) => utf8Bytes(code) <= MAX_TRANSFORM_BYTES, `At most ${MAX_TRANSFORM_BYTES} bytes (256 KB).`)
  // Code that never names addHandler registers no handler and fails every delivery: refused before it is saved.
  .refine((code) => /\baddHandler\s*\(/.test(code), "Must register its handler: addHandler('transform', fn).")
  .describe(
    "JavaScript in Hookdeck's shape: `addHandler('transform', (request, context) => request)`. At most 256 KB; " +
      'compiled (not run) in the sandbox at save, a syntax error is a 400 at `transform` with its line.',
  );

export const rateLimitSchema = z
  .object({
    limit: z.number().int().min(1).max(MAX_RATE_LIMIT).describe('Deliveries per period.'),
    period: z.enum(RATE_LIMIT_PERIODS),
    burst: z
      .number()
      .int()
      .min(1)
      .max(MAX_RATE_LIMIT)
      .optional()
      .describe('Deliveries that may go at once after a quiet spell (default: `limit`).'),
  })
  .strict()
  .describe('Pacing: a delivery over the rate waits (no attempt counted) until the limit lets it go.');

export const maxConcurrencySchema = z
  .number()
  .int()
  .min(1)
  .max(MAX_CONCURRENCY)
  .describe('Pacing: at most this many deliveries in flight at once, over every worker process.');

/** The fields a create or update takes (a rule's for its primary target, or a destination's); null turns one off. */
export const transformPacingInput = {
  transform: transformCode.nullable().optional(),
  forward_path_query: z
    .boolean()
    .optional()
    .describe(
      "Append the transform's returned `path` and `query` to the target URL (default false: the target URL as set).",
    ),
  rate_limit: rateLimitSchema.nullable().optional(),
  max_concurrency: maxConcurrencySchema.nullable().optional(),
};

/** As lists show them: whether there is a transform, not its code (up to 256 KB each). */
export const transformPacingView = {
  has_transform: z.boolean(),
  forward_path_query: z.boolean(),
  rate_limit: rateLimitSchema.nullable(),
  max_concurrency: z.number().int().nullable(),
};

/** Answers about one rule or destination carry the code too (it is code, not a secret); lists leave it out. */
export const transformView = {
  transform: z
    .string()
    .nullable()
    .optional()
    .describe('The transform code as saved (null: none). Left out of lists, which say `has_transform`.'),
};

/** Pacing as it stands now, shared by every worker (Redis): what one rule's or destination's read adds. */
export const pacingStateSchema = z
  .object({
    effective_limit: z
      .number()
      .nullable()
      .describe(
        'Deliveries per `period` in force: `rate_limit.limit`, or less while halved after a 429 (null: no rate).',
      ),
    period: z.enum(RATE_LIMIT_PERIODS).nullable(),
    in_flight: z.number().int().describe('Deliveries being sent now under `max_concurrency` (0 without it).'),
    waiting: z
      .number()
      .int()
      .describe('Deliveries waiting their turn (over the rate, the concurrency or a Retry-After hold).'),
    held_until: timestamp
      .nullable()
      .describe("A target's 429 or 503 Retry-After holds every next delivery until then (paced or not)."),
  })
  .describe(
    'The pacing state (docs/rules.md "Pacing"). null: no pacing and no Retry-After hold, or Redis did not answer ' +
      'in time. Only one rule or destination read carries it; lists leave it out.',
  );

export const pacingStateView = { pacing_state: pacingStateSchema.nullable().optional() };

export const transformTestSchema = z
  .object({
    transform: transformCode
      .optional()
      .describe(
        "The code to try. Absent: the saved transform of the rule, or of `destination_id`'s destination when given.",
      ),
    event_id: z.uuid().describe("One of the rule's stored webhooks: the request the transform is given."),
    destination_id: z
      .uuid()
      .optional()
      .describe("One of the rule's destinations: `context.destination_id`, and whose saved transform is tried."),
  })
  .strict();

const transformRequestSchema = z.object({
  body: z.unknown().describe('The body that would be sent, serialised as JSON.'),
  headers: z.record(z.string(), z.string()),
  path: z.string(),
  query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});

export const TRANSFORM_FAILURE_CAUSES = ['timeout', 'memory', 'error', 'invalid_output', 'too_large'] as const;

export const transformTestResultSchema = z.union([
  z.object({
    ok: z.literal(true),
    request: transformRequestSchema.describe(
      'The request the transform returned (sensitive headers of the input stay masked).',
    ),
    logs: z.string().describe('console output of the call, its first 4 KB.'),
  }),
  z.object({
    ok: z.literal(false),
    error: z.object({
      message: z.string(),
      line: z.number().int().optional().describe("The line of the transform's code, when the error names one."),
      cause: z
        .enum(TRANSFORM_FAILURE_CAUSES)
        .describe(
          '`timeout` or `memory`: a limit of the sandbox; `error`: the code threw or did not compile; ' +
            '`invalid_output`: the returned request cannot be sent; `too_large`: the code or the output.',
        ),
    }),
    logs: z.string().describe('console output of the call up to the failure, its first 4 KB.'),
  }),
]);

export const deliveryBodyParams = z.object({ id: z.uuid(), deliveryId: z.uuid() });

export const eventBodyQuery = z.object({
  transformed: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      "true: the primary's transformed body as stored at its first attempt (404 `transformed_body_not_found` when " +
        'none was stored); absent or false: the payload as received.',
    ),
});
