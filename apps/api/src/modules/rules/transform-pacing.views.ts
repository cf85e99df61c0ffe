import type { RateLimitOption } from '@relay/core';

interface TransformPacing {
  transform: string | null;
  forwardPathQuery: boolean;
  rateLimit: RateLimitOption | null;
  maxConcurrency: number | null;
}

// What a rule and a destination show of their transform and pacing (docs/transformations.md, docs/rules.md
// "Pacing"). A list says only whether there is a transform; one rule's or destination's answer adds the code.
// TODO(issue 30 wiring): the current pacing state (effective rate after a 429, deliveries waiting, a Retry-After
// hold) belongs here once the worker's limiter (packages/queue) keeps it in Redis.
export const transformPacingView = (r: TransformPacing) => ({
  has_transform: r.transform !== null,
  forward_path_query: r.forwardPathQuery,
  rate_limit: r.rateLimit,
  max_concurrency: r.maxConcurrency,
});
