import { TEST_REDIS_URL, uniqueQueuePrefix } from '@relay/test-support';
import { createClient, type RedisClientType } from 'redis';
import { createLoginLimiter } from './login-limiter';

const redis: RedisClientType = createClient({ url: TEST_REDIS_URL });
beforeAll(() => redis.connect());
afterAll(() => redis.close());
const limiter = () =>
  createLoginLimiter({
    client: redis,
    prefix: uniqueQueuePrefix(),
    maxPerUser: 3,
    maxPerAccount: 5,
    maxPerIp: 100,
    windowSeconds: 60,
  });

describe('login limiter', () => {
  it('bounds guesses at one account spread over many addresses', async () => {
    const limits = limiter();
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await limits.attempt('password', 'dana', `198.51.100.${i}`));
    expect(answers.map((a) => a.ok)).toEqual([true, true, true, true, true, false, false, false]);
    expect(answers[5]).toEqual({ ok: false, retryAfterSeconds: expect.any(Number) as number });
    // Another account is not affected.
    expect(await limits.attempt('password', 'eve', '198.51.100.9')).toEqual({ ok: true });
  });

  it('counts per account + address before the account limit, and a success gives the attempt back', async () => {
    const limits = limiter();
    for (let i = 0; i < 3; i++) expect((await limits.attempt('password', 'dana', '203.0.113.1')).ok).toBe(true);
    expect((await limits.attempt('password', 'dana', '203.0.113.1')).ok).toBe(false);
    // From another address the account still has attempts left (4 of 5 used).
    expect((await limits.attempt('password', 'dana', '203.0.113.2')).ok).toBe(true);
    await limits.succeeded('password', 'dana', '203.0.113.2');
    expect((await limits.attempt('password', 'dana', '203.0.113.3')).ok).toBe(true);
    expect((await limits.attempt('password', 'dana', '203.0.113.4')).ok).toBe(false);
  });
});
