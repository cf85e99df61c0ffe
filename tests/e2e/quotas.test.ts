import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { waitFor } from '@relay/test-support';
import { pino } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { billingPeriodAt } from '../../apps/api/src/modules/limits/billing-period';
import { createApiRuntime, type ApiRuntime } from '../../apps/api/src/runtime';
import { FAST_HASH_ENV, startPipeline, userCredential, type Pipeline } from './harness';
import { CANONICAL, HOSTED_ENV, operatorSession, webhookAt } from './limits-fixture';

// The monthly event quota at ingest, on two api processes that share one injected clock: the test moves it
// across the billing period's end. Events themselves are stored with the real time, which the clock starts at.
let pipeline: Pipeline;
let asOperator: (req: supertest.Test) => supertest.Test;
let clock = new Date();
const apis: ApiRuntime[] = [];
let a: ReturnType<typeof supertest>;
let b: ReturnType<typeof supertest>;
const silent = pino({ level: 'silent' });
const quotaAudits = () =>
  pipeline.store.prisma.auditEntry.findMany({
    where: { organizationId: DEFAULT_ORGANIZATION_ID, action: 'organization.quota_exceeded' },
  });
const setLimit = (monthly_event_limit: number | null) =>
  asOperator(pipeline.http.patch(`/api/platform/organizations/${DEFAULT_ORGANIZATION_ID}/subscription`))
    .send({ monthly_event_limit })
    .expect(200);

beforeAll(async () => {
  const env = { ...FAST_HASH_ENV, ...HOSTED_ENV, INGEST_HOST_CACHE_MS: '0' };
  pipeline = await startPipeline({ api: env, worker: false });
  asOperator = await operatorSession(pipeline);
  for (let i = 0; i < 2; i++) {
    const config = parseApiConfig({ ...pipeline.baseEnv, ...env, INGEST_BATCH_WAIT_MS: '1' });
    apis.push(createApiRuntime(config, silent, { now: () => clock }));
  }
  [a, b] = apis.map((api) => supertest(api.app)) as [typeof a, typeof b];
});
afterAll(async () => {
  await Promise.all(apis.map((api) => api.close()));
  await pipeline.close();
});

describe('the monthly event quota', () => {
  it('is crossed at ingest across two api processes, audited once, shown as usage, and reset at the next period', async () => {
    // One event before any quota: the count of a period Redis has not seen starts from the database.
    await webhookAt(a, CANONICAL).expect(202);
    await setLimit(3);
    await webhookAt(b, CANONICAL).expect(202);
    await webhookAt(a, CANONICAL).expect(202);

    const period = billingPeriodAt(clock, null);
    const refused = await webhookAt(b, CANONICAL, '{"over":true}').expect(429);
    expect(refused.body).toMatchObject({
      code: 'quota_exceeded',
      status: 429,
      monthly_event_limit: 3,
      period_start: period.start.toISOString(),
      period_end: period.end.toISOString(),
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Math.abs(retryAfter - (period.end.getTime() - clock.getTime()) / 1000)).toBeLessThanOrEqual(1);
    // Many refusals at once, on both processes: still one audit entry for the crossing.
    const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => webhookAt(i % 2 ? a : b, CANONICAL)));
    expect(burst.map((res) => res.status)).toEqual(Array(10).fill(429));
    const audits = await waitFor(async () => ((await quotaAudits()).length > 0 ? quotaAudits() : undefined), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await quotaAudits()).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      resourceType: 'organization',
      resourceId: DEFAULT_ORGANIZATION_ID,
      metadata: { monthly_event_limit: 3, period_end: period.end.toISOString() },
    });
    expect(await pipeline.store.prisma.event.count()).toBe(3);

    // Usage: in the organization's own view and in the platform API.
    const usage = {
      events_this_period: 3,
      monthly_event_limit: 3,
      period_start: period.start.toISOString(),
      period_end: period.end.toISOString(),
    };
    const viewer = await userCredential(pipeline, 'viewer');
    const own = await a.get('/api/organization').set('authorization', viewer.authorization).expect(200);
    expect(own.body).toMatchObject({ id: DEFAULT_ORGANIZATION_ID, usage });
    const detail = await asOperator(pipeline.http.get(`/api/platform/organizations/${DEFAULT_ORGANIZATION_ID}`));
    expect(detail.status).toBe(200);
    expect(detail.body.usage).toEqual(usage);

    // The next period: accepted again, counted from zero; no new audit entry until it is crossed again.
    clock = new Date(period.end.getTime() + 1_000);
    await webhookAt(a, CANONICAL).expect(202);
    const next = billingPeriodAt(clock, null);
    expect(next.start).toEqual(period.end);
    const after = await b.get('/api/organization').set('authorization', viewer.authorization).expect(200);
    expect(after.body.usage).toMatchObject({ events_this_period: 1, period_start: period.end.toISOString() });
    expect(await quotaAudits()).toHaveLength(1);
  });

  it("follows the organization's current_period_end, and a refused or failed webhook uses no quota", async () => {
    clock = new Date();
    const end = new Date(clock.getTime() + 10 * 86_400_000);
    await asOperator(pipeline.http.patch(`/api/platform/organizations/${DEFAULT_ORGANIZATION_ID}/subscription`))
      .send({ monthly_event_limit: 6, current_period_end: end.toISOString() })
      .expect(200);
    const viewer = await userCredential(pipeline, 'viewer');
    const usage = (await a.get('/api/organization').set('authorization', viewer.authorization).expect(200)).body.usage;
    // The four events stored above (real time) fall in (end - 1 month, end].
    expect(usage).toEqual({
      events_this_period: 4,
      monthly_event_limit: 6,
      period_start: billingPeriodAt(clock, end).start.toISOString(),
      period_end: end.toISOString(),
    });
    // Invalid JSON is refused after the quota counted it: the count is given back.
    await webhookAt(a, CANONICAL, '{not json').expect(400);
    await webhookAt(b, CANONICAL).expect(202);
    await webhookAt(a, CANONICAL).expect(202);
    expect((await webhookAt(b, CANONICAL).expect(429)).body.period_end).toBe(end.toISOString());
    // No quota: nothing refused.
    await setLimit(null);
    await webhookAt(a, CANONICAL).expect(202);
  });
});
