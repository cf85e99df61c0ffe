import { createPacingLimiter, createRedisConnection, destinationPacingKey, rulePacingKey } from '@relay/queue';
import { createOrganization, REDIS_URL, startPipeline, userCredential, type Pipeline } from './harness';

// The pacing state in the API (docs/rules.md "Pacing"): GET of one rule or destination reads the workers' limiter
// under the install's QUEUE_PREFIX. A limiter of the test's own, on that prefix, stands for the workers; every
// answer is checked against its operation's schema (API_VALIDATE_RESPONSES).

const PATIENCE = 60_000;
jest.setTimeout(4 * PATIENCE);

let pipeline: Pipeline;
let admin: string;
const redis = createRedisConnection(REDIS_URL, 'worker');
let workers: ReturnType<typeof createPacingLimiter>;
beforeAll(async () => {
  pipeline = await startPipeline({ worker: false });
  admin = (await userCredential(pipeline, 'admin')).authorization;
  workers = createPacingLimiter({ redis, prefix: pipeline.prefix });
});
afterAll(async () => {
  await pipeline.close();
  redis.disconnect();
});

const get = async (path: string, authorization = admin) =>
  (await pipeline.http.get(path).set('authorization', authorization).expect(200)).body as {
    pacing_state?: unknown;
  };

describe('pacing state', () => {
  it("GET of a rule and of a destination shows their limiter's state; the lists do not", async () => {
    const rule = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'paced', target_url: 'https://example.com/in', rate_limit: { limit: 10, period: 'minute' } })
        .expect(201)
    ).body as { id: string; pacing_state?: unknown };
    expect(rule).not.toHaveProperty('pacing_state');
    const destination = (
      await pipeline.http
        .post(`/rules/${rule.id}/destinations`)
        .set('authorization', admin)
        .send({ name: 'narrow', target_url: 'https://example.com/narrow', max_concurrency: 2 })
        .expect(201)
    ).body as { id: string };

    const rate = { rateLimit: { limit: 10, period: 'minute' as const, burst: 1 } };
    await workers.acquire(rulePacingKey(rule.id), rate, 'job-1');
    await workers.acquire(rulePacingKey(rule.id), rate, 'job-2');
    await workers.slowDown(rulePacingKey(rule.id), rate);
    const held = await workers.hold(rulePacingKey(rule.id), Date.now() + 60_000);
    expect((await get(`/rules/${rule.id}`)).pacing_state).toEqual({
      effective_limit: 5,
      period: 'minute',
      in_flight: 0,
      waiting: 1,
      held_until: new Date(Math.floor(held!.heldUntilMs)).toISOString(),
    });

    const key = destinationPacingKey(destination.id);
    for (const id of ['job-a', 'job-b', 'job-c']) await workers.acquire(key, { maxConcurrency: 2 }, id);
    expect((await get(`/rules/${rule.id}/destinations/${destination.id}`)).pacing_state).toEqual({
      effective_limit: null,
      period: null,
      in_flight: 2,
      waiting: 1,
      held_until: null,
    });

    const rules = (await get('/rules')) as unknown as { rules: object[] };
    expect(rules.rules[0]).not.toHaveProperty('pacing_state');
    const listed = (await get(`/rules/${rule.id}/destinations`)) as unknown as { destinations: object[] };
    expect(listed.destinations[0]).not.toHaveProperty('pacing_state');
  });

  it("is null for an unpaced rule without a hold, and never shows another organization's state", async () => {
    const plain = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'plain', target_url: 'https://example.com/plain' })
        .expect(201)
    ).body as { id: string };
    expect((await get(`/rules/${plain.id}`)).pacing_state).toBeNull();
    await workers.hold(rulePacingKey(plain.id), Date.now() + 60_000);
    expect((await get(`/rules/${plain.id}`)).pacing_state).toMatchObject({ held_until: expect.any(String) });

    // Another organization's admin gets a 404 for the rule, not its state.
    const other = await createOrganization(pipeline, 'pacing-other');
    const stranger = (await userCredential(pipeline, 'admin', other)).authorization;
    await pipeline.http.get(`/rules/${plain.id}`).set('authorization', stranger).expect(404);
  });
});
