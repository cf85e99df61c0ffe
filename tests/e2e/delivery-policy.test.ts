import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { startPipeline, type Pipeline } from './harness';

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());

async function ingestTo(pipeline: Pipeline, source: string, targetUrl: string): Promise<string> {
  await pipeline.store.prisma.rule.create({
    data: { name: randomUUID(), organizationId: DEFAULT_ORGANIZATION_ID, source, targetUrl },
  });
  const res = await pipeline.http.post(`/${source}`).set('content-type', 'application/json').send('{}').expect(202);
  return res.body.id as string;
}

describe('default network policy at send time', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: { TARGET_ALLOW_PRIVATE: 'false' } });
  });
  afterAll(() => pipeline.close());

  it('stores an event with no target at all and fails it with no_target', async () => {
    const res = await pipeline.http
      .post('/orphan')
      .set('content-type', 'application/json')
      .send('{"kept":true}')
      .expect(202);
    const event = await pipeline.waitForStatus(res.body.id, 'failed');
    expect(event).toMatchObject({ failureReason: 'no_target', targetUrl: null, attemptCount: 0 });
    expect(Buffer.from(event.body).toString()).toBe('{"kept":true}');
  });

  it('refuses a host name that resolves to 127.0.0.1, without retrying and without connecting', async () => {
    const id = await ingestTo(pipeline, 'local-name', `http://localhost:${target.port}/hook`);
    const event = await pipeline.waitForStatus(id, 'failed');
    expect(event).toMatchObject({ failureReason: 'target_blocked', attemptCount: 1 });
    expect((await pipeline.attemptsOf(id))[0]!.error).toMatch(/blocked/i);
    expect(target.requests).toHaveLength(0);
  });

  it('refuses a literal private address', async () => {
    const id = await ingestTo(pipeline, 'literal', `http://127.0.0.1:${target.port}/hook`);
    expect((await pipeline.waitForStatus(id, 'failed')).failureReason).toBe('target_blocked');
    expect(target.requests).toHaveLength(0);
  });
});

describe('TARGET_ALLOWLIST opens a hole for a named internal host', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: { TARGET_ALLOW_PRIVATE: 'false', TARGET_ALLOWLIST: 'localhost' } });
  });
  afterAll(() => pipeline.close());

  it('delivers to localhost when it is allowlisted', async () => {
    const id = await ingestTo(pipeline, 'allowed', `http://localhost:${target.port}/allowed`);
    await pipeline.waitForStatus(id, 'delivered');
    expect(target.requests.some((r) => r.url === '/allowed')).toBe(true);
  });
});
