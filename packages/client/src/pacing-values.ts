import type { AnswerOf } from './answer-of';

// Transform and pacing (docs/rules.md, "Transform and pacing"), for clients that offer them as inputs (the
// dashboard's fields, the CLI's flags): the periods a rate limit counts in, and the bounds the API enforces. Types
// cannot be iterated nor carry bounds, so they are written here once; `satisfies` fails the build when the API's
// schema and the list disagree, and pacing-values.test.ts when the bounds differ from the contracts'.

type RateLimit = NonNullable<AnswerOf<'/rules/{id}', 'get'>['rate_limit']>;

export const RATE_LIMIT_PERIODS = ['second', 'minute', 'hour'] as const satisfies readonly RateLimit['period'][];

export const TRANSFORM_PACING_LIMITS = {
  /** `rate_limit.limit` and `rate_limit.burst`: 1 to this. */
  rateLimit: 100_000,
  /** `max_concurrency`: 1 to this. */
  maxConcurrency: 1_000,
  /** `transform`: at most this many bytes of UTF-8. */
  transformBytes: 256 * 1024,
} as const;
