import { createOperatorRepository } from '@relay/db';
import { deliveryQueuePrefix, QUEUES } from '@relay/queue';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type supertest from 'supertest';
import {
  FAST_HASH_ENV,
  REDIS_URL,
  seedUser,
  startPipeline,
  testPasswords,
  userCredential,
  type Pipeline,
} from './harness';

let pipeline: Pipeline;
let operatorCookie: string;
let adminCookie: string;
let adminToken: string;
let redis: Redis;
let deliveries: Queue;

const cookieOf = (res: supertest.Response) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('relay_session='))!
    .split(';')[0]!;

async function login(username: string, password: string): Promise<string> {
  return cookieOf(await pipeline.http.post('/api/auth/login').send({ username, password }).expect(200));
}

beforeAll(async () => {
  pipeline = await startPipeline({ api: { ...FAST_HASH_ENV, SESSION_SECRET: 's' }, worker: false });
  await createOperatorRepository(pipeline.store.prisma).bootstrap(
    'queue-op',
    await testPasswords.hash('op-password-1'),
  );
  operatorCookie = await login('queue-op', 'op-password-1');
  await seedUser(pipeline, { username: 'tenant-admin', role: 'admin', password: 'admin-password-1' });
  adminCookie = await login('tenant-admin', 'admin-password-1');
  adminToken = (await userCredential(pipeline, 'admin')).authorization;
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  deliveries = new Queue(QUEUES.delivery, { connection: redis, prefix: deliveryQueuePrefix(pipeline.prefix, 0) });
});
afterAll(async () => {
  await deliveries.close();
  redis.disconnect();
  await pipeline.close();
});

describe('the queue view at /admin/queues', () => {
  it('refuses a caller without credentials with a 401 problem document', async () => {
    const res = await pipeline.http.get('/admin/queues').expect(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('unauthenticated');
    expect((await pipeline.http.get('/admin/queues/api/queues').expect(401)).body.code).toBe('unauthenticated');
  });

  it('refuses a tenant admin (session or token) with a 403 problem document', async () => {
    for (const req of [
      pipeline.http.get('/admin/queues').set('cookie', adminCookie),
      pipeline.http.get('/admin/queues/api/queues').set('authorization', adminToken),
    ]) {
      const res = await req.expect(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('forbidden');
    }
  });

  it('serves an operator the page, its assets under the base path, and every queue read-only', async () => {
    const page = await pipeline.http.get('/admin/queues').set('cookie', operatorCookie).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<base href="/admin/queues/"');
    const script = /src="(static\/js\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    const asset = await pipeline.http.get(`/admin/queues/${script}`).set('cookie', operatorCookie).expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    // Deep links of the UI's own router load the same page.
    await pipeline.http.get(`/admin/queues/queue/${QUEUES.delivery}`).set('cookie', operatorCookie).expect(200);

    const api = await pipeline.http.get('/admin/queues/api/queues').set('cookie', operatorCookie).expect(200);
    const queues = api.body.queues as { name: string; readOnlyMode: boolean; allowRetries: boolean }[];
    expect(queues.map((q) => q.name).sort()).toEqual(Object.values(QUEUES).sort());
    expect(queues.every((q) => q.readOnlyMode && !q.allowRetries)).toBe(true);
  });

  it('refuses every action route, even for an operator, and leaves the job as it was', async () => {
    const job = await deliveries.add(
      'deliver',
      { orgId: '00000000-0000-7000-8000-000000000001', eventId: '00000000-0000-7000-8000-0000000000e1' },
      { jobId: 'queue-view-probe', delay: 60_000 },
    );
    const actions: [method: 'put' | 'post' | 'patch' | 'delete', path: string][] = [
      ['put', `/api/queues/${QUEUES.delivery}/${job.id}/promote`],
      ['put', `/api/queues/${QUEUES.delivery}/${job.id}/clean`],
      ['patch', `/api/queues/${QUEUES.delivery}/${job.id}/update-data`],
      ['put', `/api/queues/${QUEUES.delivery}/clean/delayed`],
      ['put', `/api/queues/${QUEUES.delivery}/pause`],
      ['put', `/api/queues/${QUEUES.delivery}/obliterate`],
      ['post', `/api/queues/${QUEUES.delivery}/add`],
      ['delete', `/api/queues/${QUEUES.delivery}`],
    ];
    for (const [method, path] of actions) {
      const res = await pipeline.http[method](`/admin/queues${path}`)
        .set('cookie', operatorCookie)
        .set('sec-fetch-site', 'same-origin')
        .send({ name: 'x', data: {} })
        .expect(405);
      expect(res.body.code).toBe('method_not_allowed');
      expect(res.headers.allow).toBe('GET, HEAD');
    }
    expect(await deliveries.getJobState(job.id!)).toBe('delayed');
    expect(await deliveries.isPaused()).toBe(false);
    expect(await deliveries.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 1 });
    expect((await deliveries.getJob(job.id!))?.data).toEqual(job.data);
  });

  it('makes admin and metrics reserved: ingest refuses them as webhook sources', async () => {
    for (const path of ['/admin', '/admin/other', '/metrics']) {
      const res = await pipeline.http.post(path).set('content-type', 'application/json').send('{}');
      expect([404, 405]).toContain(res.status);
      expect(res.body.id).toBeUndefined();
    }
    expect(await pipeline.store.prisma.event.count()).toBe(0);
  });
});
