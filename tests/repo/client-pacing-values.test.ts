import { RATE_LIMIT_PERIODS, TRANSFORM_PACING_LIMITS } from '@relay/client';
import { MAX_TRANSFORM_BYTES, RATE_LIMIT_PERIODS as CORE_PERIODS } from '@relay/core';
import { MAX_CONCURRENCY, MAX_RATE_LIMIT } from '../../packages/contracts/src/transform.schemas';

// The typed client states the transform and pacing bounds for browsers (it imports no server package): they must
// be the ones the API validates with.
describe("the client's transform and pacing values", () => {
  it('are the contracts', () => {
    expect(RATE_LIMIT_PERIODS).toEqual(CORE_PERIODS);
    expect(TRANSFORM_PACING_LIMITS).toEqual({
      rateLimit: MAX_RATE_LIMIT,
      maxConcurrency: MAX_CONCURRENCY,
      transformBytes: MAX_TRANSFORM_BYTES,
    });
  });
});
