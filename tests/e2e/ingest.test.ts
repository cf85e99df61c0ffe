import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

let pipeline: Pipeline;
let target: TargetServer;

beforeAll(async () => {
  target = await startTargetServer();
  pipeline = await startPipeline({
    api: { DEFAULT_TARGET_URL: target.url, INGEST_MAX_BODY_BYTES: '1024' },
    worker: false,
  });
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});

const post = (path: string) => pipeline.http.post(path).set('content-type', 'application/json');

describe('ingest: source selection', () => {
  it('takes the source from the first path segment', async () => {
    const res = await post('/github').send('{"a":1}').expect(202);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued' });
    expect((await pipeline.eventById(res.body.id))?.source).toBe('github');
  });

  it('takes the first segment of a nested path', async () => {
    const res = await post('/stripe/acct_1/events?x=1').send('{"a":1}').expect(202);
    expect((await pipeline.eventById(res.body.id))?.source).toBe('stripe');
  });

  it('lets X-Webhook-Source override the path', async () => {
    const res = await post('/github').set('x-webhook-source', 'gitlab').send('{"a":1}').expect(202);
    expect((await pipeline.eventById(res.body.id))?.source).toBe('gitlab');
  });

  it('uses the default source for POST / without the header', async () => {
    const res = await post('/').send('{"a":1}').expect(202);
    expect((await pipeline.eventById(res.body.id))?.source).toBe('default');
  });

  it('refuses an invalid source name', async () => {
    const res = await post('/github').set('x-webhook-source', 'bad source!').send('{}').expect(400);
    expect(res.body.code).toBe('invalid_source');
  });

  it('does not treat the API namespace as a source', async () => {
    const res = await post('/api/anything').send('{}').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('ingest: path and query', () => {
  it('stores the path after the source segment and the query, and the event shows them', async () => {
    const res = await post('/shop/orders/create?shop=acme&tag=a&tag=b%20c').send('{"a":1}').expect(202);
    const stored = await pipeline.eventById(res.body.id);
    expect(stored).toMatchObject({ path: '/orders/create', query: { shop: 'acme', tag: ['a', 'b c'] } });
    const { authorization } = await userCredential(pipeline, 'viewer');
    const detail = await pipeline.http.get(`/events/${res.body.id}`).set('authorization', authorization).expect(200);
    expect(detail.body).toMatchObject({ path: '/orders/create', query: { shop: 'acme', tag: ['a', 'b c'] } });
  });

  it('stores "" and {} without a deeper path or query', async () => {
    const res = await post('/shop').send('{"a":1}').expect(202);
    expect(await pipeline.eventById(res.body.id)).toMatchObject({ path: '', query: {} });
  });

  it('reads events stored before the columns existed as "" and {}', async () => {
    const res = await post('/shop/x?y=1').send('{}').expect(202);
    // A row as an older release wrote it: the columns take their defaults.
    await pipeline.store.prisma.$executeRawUnsafe(
      `UPDATE events SET path = DEFAULT, query = DEFAULT WHERE id = '${res.body.id}'`,
    );
    const { authorization } = await userCredential(pipeline, 'viewer');
    const detail = await pipeline.http.get(`/events/${res.body.id}`).set('authorization', authorization).expect(200);
    expect(detail.body).toMatchObject({ path: '', query: {} });
  });
});

describe('ingest: body rules', () => {
  it('accepts application/json with a charset and +json types', async () => {
    await pipeline.http.post('/a').set('content-type', 'application/json; charset=utf-8').send('{}').expect(202);
    await pipeline.http.post('/a').set('content-type', 'application/vnd.github+json').send('[]').expect(202);
  });

  it('answers 415 problem+json for other content types', async () => {
    const res = await pipeline.http.post('/a').set('content-type', 'text/plain').send('{}').expect(415);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'unsupported_media_type', status: 415, request_id: expect.any(String) });
  });

  it('answers 400 for malformed JSON and stores nothing', async () => {
    const before = await pipeline.store.prisma.event.count();
    const res = await post('/a').send('{"a":').expect(400);
    expect(res.body.code).toBe('invalid_json');
    expect(await pipeline.store.prisma.event.count()).toBe(before);
  });

  it('answers 413 above INGEST_MAX_BODY_BYTES', async () => {
    const res = await post('/a')
      .send(JSON.stringify({ pad: 'x'.repeat(2000) }))
      .expect(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('answers 413 for a chunked body (no Content-Length) that grows past the limit', async () => {
    const server = pipeline.api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          { port, host: '127.0.0.1', method: 'POST', path: '/a', headers: { 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write('{"pad":"');
        for (let i = 0; i < 10; i++) req.write('y'.repeat(500));
        req.end('"}');
      });
      expect(status).toBe(413);
    } finally {
      server.close();
    }
  });
});

describe('ingest: X-Target-Url', () => {
  it('is refused while the override setting is off', async () => {
    const res = await post('/a').set('x-target-url', 'https://example.com/hook').send('{}').expect(400);
    expect(res.body.code).toBe('target_override_disabled');
  });

  it('stores the event with its chosen target and the id is readable from the database', async () => {
    const res = await post('/a').send('{"k":"v"}').expect(202);
    const event = await pipeline.eventById(res.body.id);
    expect(event).toMatchObject({ status: 'queued', targetUrl: target.url, attemptCount: 0 });
  });
});
