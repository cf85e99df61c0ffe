import { AppError, DEFAULT_ORGANIZATION_ID } from '@relay/core';
import type { OrganizationLimits } from '@relay/db';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@relay/test-support';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { useServiceDatabase } from '../service-test-kit';
import { createIngestGate } from './ingest-gate';
import { createQuota } from './quota';
import { createIngestRateLimit } from './rate-limits';

// The gate answers the limits' headers instead of writing them to an Express response; the route sets them.
const store = useServiceDatabase();
const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
const logger = pino({ level: 'silent' });
afterAll(() => redis.quit());

const ORG = DEFAULT_ORGANIZATION_ID;
const gateWith = (limits: Partial<OrganizationLimits>, client: Redis = redis) => {
  const prefix = uniqueQueuePrefix();
  const repositories = store.repositories();
  return createIngestGate({
    limitsOf: async () => ({
      ingestRateLimit: null,
      apiRateLimit: null,
      monthlyEventLimit: null,
      currentPeriodEnd: null,
      ...limits,
    }),
    defaultRateLimit: 0,
    rateLimit: createIngestRateLimit({ redis: client, prefix, windowSeconds: 60, logger }),
    quota: createQuota({
      redis: client,
      prefix,
      organizations: repositories.organizations,
      audit: repositories.audit,
      logger,
    }),
  });
};
const refusalOf = (passing: Promise<unknown>) =>
  passing.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: unknown) => err as AppError,
  );

describe('the ingest gate', () => {
  it('returns the draft-8 headers of a counted webhook; the refusal over the limit carries them', async () => {
    const gate = gateWith({ ingestRateLimit: 2 });
    const first = await gate(ORG);
    expect(first.headers.RateLimit).toMatch(/^"2-in-1min"; r=1; t=\d+$/);
    expect(first.headers['RateLimit-Policy']).toMatch(/^"2-in-1min"; q=2; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect((await gate(ORG)).headers.RateLimit).toMatch(/; r=0; /);
    const refused = await refusalOf(gate(ORG));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.code).toBe('rate_limited');
    expect(refused.details).toMatchObject({ limit: 2, window_seconds: 60 });
    expect(refused.headers?.RateLimit).toMatch(/^"2-in-1min"; r=0; t=\d+$/);
  });

  it("gives a quota refusal the rate limit's headers (the webhook was counted as a request)", async () => {
    const refused = await refusalOf(gateWith({ ingestRateLimit: 5, monthlyEventLimit: 0 })(ORG));
    expect(refused.code).toBe('quota_exceeded');
    expect(refused.headers?.RateLimit).toMatch(/^"5-in-1min"; r=4; t=\d+$/);
  });

  it('answers no headers without limits, and lets a webhook pass uncounted while Redis is unreachable', async () => {
    expect(await gateWith({})(ORG)).toEqual({ admission: undefined, headers: {} });
    const away = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    try {
      expect(await gateWith({ ingestRateLimit: 1 }, away)(ORG)).toEqual({ admission: undefined, headers: {} });
    } finally {
      away.disconnect();
    }
  });
});
