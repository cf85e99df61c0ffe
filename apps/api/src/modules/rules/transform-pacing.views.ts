import type { RateLimitOption } from '@relay/core';

interface TransformPacing {
  transform: string | null;
  forwardPathQuery: boolean;
  rateLimit: RateLimitOption | null;
  maxConcurrency: number | null;
}

// What a rule and a destination show of their transform and pacing (docs/transformations.md, docs/rules.md
// "Pacing"). A list says only whether there is a transform; one rule's or destination's answer adds the code, and
// its pacing state as it stands in Redis (pacing-state.ts; the services add it, as it takes a Redis call).
export const transformPacingView = (r: TransformPacing) => ({
  has_transform: r.transform !== null,
  forward_path_query: r.forwardPathQuery,
  rate_limit: r.rateLimit,
  max_concurrency: r.maxConcurrency,
});
