import { parseApiConfig } from '../../apps/api/src/config';
import { basicAuth, FAST_HASH_ENV, seedUser, startPipeline, type Pipeline } from './harness';

const TOKEN = 'bootstrap-token-of-at-least-32-characters';

// One limiter for every guessable secret: session login and HTTP Basic share the count per
// username + IP and per IP, the attempt is counted before the hash is verified, and the operator
// bootstrap token is limited the same way.
describe('brute force', () => {
  let pipeline: Pipeline;
  const failures = (username: string, mechanism?: string) =>
    pipeline.store.prisma.auditEntry.findMany({ where: { action: 'auth.login_failed' } }).then((entries) =>
      entries.filter((e) => {
        const meta = e.metadata as { username?: string; mechanism?: string };
        return meta.username === username && (mechanism === undefined || meta.mechanism === mechanism);
      }),
    );
  const login = (username: string, password: string) =>
    pipeline.http.post('/api/auth/login').send({ username, password });
  const me = (username: string, password: string) =>
    pipeline.http.get('/api/auth/me').set('authorization', basicAuth(username, password));

  beforeAll(async () => {
    pipeline = await startPipeline({
      api: {
        ...FAST_HASH_ENV,
        SESSION_SECRET: 'brute-force-secret',
        LOGIN_MAX_FAILURES_PER_USER: '5',
        LOGIN_MAX_FAILURES_PER_IP: '1000',
        PLATFORM_ADMIN_TOKEN: TOKEN,
      },
      worker: false,
    });
    for (const username of ['par', 'bas', 'locked', 'busy'])
      await seedUser(pipeline, { username, role: 'admin', password: `${username}-password-1` });
  });
  afterAll(() => pipeline.close());

  it('checks at most the limit of 40 parallel wrong logins: the rest are 429 before any hash is verified', async () => {
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => login('par', `wrong-${i}`)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    // Each checked password is audited once; the refused ones never reached argon2.
    expect(await failures('par')).toHaveLength(5);
    const refused = replies.find((r) => r.status === 429)!;
    expect(refused.body.code).toBe('too_many_attempts');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('limits HTTP Basic like login: 429 with Retry-After, and every checked failure audited as basic', async () => {
    for (let i = 0; i < 5; i++) expect((await me('bas', `wrong-${i}`)).status).toBe(401);
    const refused = await me('bas', 'wrong-5').expect(429);
    expect(refused.body.code).toBe('too_many_attempts');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Locked now: even the right password is refused, through Basic and through login.
    await me('bas', 'bas-password-1').expect(429);
    await login('bas', 'bas-password-1').expect(429);
    expect(await failures('bas', 'basic')).toHaveLength(5);
  });

  it('refuses Basic while the user is locked for login', async () => {
    for (let i = 0; i < 5; i++) await login('locked', `wrong-${i}`).expect(401);
    await login('locked', 'locked-password-1').expect(429);
    const basic = await me('locked', 'locked-password-1').expect(429);
    expect(basic.headers['retry-after']).toBeDefined();
  });

  it('serves a Basic client with more requests in flight than the limit allows failures', async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, () => me('busy', 'busy-password-1')));
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 200));
    // Successes give their attempt back: a wrong password afterwards is still only the first failure.
    await me('busy', 'wrong').expect(401);
    await me('busy', 'busy-password-1').expect(200);
  });

  it('limits wrong bootstrap tokens per IP, then refuses even the right one', async () => {
    const bootstrap = (token: string) =>
      pipeline.http
        .post('/api/platform/bootstrap/operator')
        .set('authorization', `Bearer ${token}`)
        .send({ username: 'root' });
    for (let i = 0; i < 5; i++) await bootstrap(`wrong-token-${i}`).expect(401);
    const refused = await bootstrap(TOKEN).expect(429);
    expect(refused.body.code).toBe('too_many_attempts');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await pipeline.store.prisma.platformOperator.count()).toBe(0);
  });
});

describe('per-IP limit', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({
      api: { ...FAST_HASH_ENV, LOGIN_MAX_FAILURES_PER_USER: '5', LOGIN_MAX_FAILURES_PER_IP: '3' },
      worker: false,
    });
    await seedUser(pipeline, { username: 'fresh', role: 'viewer', password: 'fresh-password-1' });
  });
  afterAll(() => pipeline.close());

  it('refuses an IP that failed too often, whichever username it tries next', async () => {
    for (const username of ['a', 'b', 'c']) {
      await pipeline.http.post('/api/auth/login').send({ username, password: 'x' }).expect(401);
    }
    await pipeline.http.post('/api/auth/login').send({ username: 'fresh', password: 'fresh-password-1' }).expect(429);
    await pipeline.http.get('/api/auth/me').set('authorization', basicAuth('fresh', 'fresh-password-1')).expect(429);
  });
});

describe('PLATFORM_ADMIN_TOKEN', () => {
  it('refuses a token shorter than 32 characters at start-up, saying why', () => {
    expect(() => parseApiConfig({ PLATFORM_ADMIN_TOKEN: 'abc' })).toThrow(
      /PLATFORM_ADMIN_TOKEN: must be at least 32 characters/,
    );
    expect(() => parseApiConfig({ PLATFORM_ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(/at least 32/);
    expect(parseApiConfig({ PLATFORM_ADMIN_TOKEN: 'x'.repeat(32) }).PLATFORM_ADMIN_TOKEN).toBe('x'.repeat(32));
    expect(parseApiConfig({}).PLATFORM_ADMIN_TOKEN).toBeUndefined();
  });
});
