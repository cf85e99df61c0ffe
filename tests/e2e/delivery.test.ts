import { createHmac, randomUUID } from 'node:crypto';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { Webhook } from 'standardwebhooks';
import { startPipeline, type Pipeline } from './harness';

const SECRET = 'test-signing-secret';
let pipeline: Pipeline;
let target: TargetServer;

beforeAll(async () => {
  target = await startTargetServer();
  pipeline = await startPipeline({
    api: { DEFAULT_TARGET_URL: `${target.url}/default` },
    worker: { DEFAULT_SIGNING_SECRET: SECRET },
  });
});
afterAll(async () => {
  await pipeline.close();
  await target.close();
});
beforeEach(() => {
  target.requests.length = 0;
  target.replyWith(200);
});

async function ingest(source: string, body: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await pipeline.http
    .post(`/${source}`)
    .set({ 'content-type': 'application/json', ...headers })
    .send(body)
    .expect(202);
  return res.body.id as string;
}

describe('delivery outcomes', () => {
  it('2xx marks the event delivered with one attempt', async () => {
    const id = await ingest('ok', '{"n":1}');
    const event = await pipeline.waitForStatus(id, 'delivered');
    expect(event.attemptCount).toBe(1);
    const attempts = await pipeline.attemptsOf(id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      attemptNumber: 1,
      kind: 'main',
      responseStatus: 200,
      responseBody: 'ok',
      error: null,
    });
    expect(target.requests[0]?.url).toBe('/default');
  });

  it('500 then 200 is retried and delivered with two attempts', async () => {
    target.replyWith(500, 200);
    const id = await ingest('flaky', '{}');
    await pipeline.waitForStatus(id, 'delivered');
    expect((await pipeline.attemptsOf(id)).map((a) => a.responseStatus)).toEqual([500, 200]);
  });

  it('404 fails at once', async () => {
    target.replyWith(404);
    const id = await ingest('gone', '{}');
    const event = await pipeline.waitForStatus(id, 'failed');
    expect(event).toMatchObject({ attemptCount: 1, failureReason: 'http_status', lastError: 'HTTP 404' });
  });

  it('always 500 fails after DELIVERY_MAX_ATTEMPTS (3 here)', async () => {
    target.replyWith(500);
    const id = await ingest('down', '{}');
    const event = await pipeline.waitForStatus(id, 'failed');
    expect(event).toMatchObject({ attemptCount: 3, failureReason: 'retries_exhausted' });
    expect(await pipeline.attemptsOf(id)).toHaveLength(3);
  });

  it('429 and 408 are retried', async () => {
    target.replyWith(429, 408, 200);
    const id = await ingest('busy', '{}');
    await pipeline.waitForStatus(id, 'delivered');
    expect((await pipeline.attemptsOf(id)).map((a) => a.responseStatus)).toEqual([429, 408, 200]);
  });

  it('302 fails at once and the Location is never requested', async () => {
    target.replyWith({ status: 302, headers: { location: `${target.url}/elsewhere` } });
    const id = await ingest('moved', '{}');
    const event = await pipeline.waitForStatus(id, 'failed');
    expect(event.failureReason).toBe('http_status');
    expect(target.requests.map((r) => r.url)).toEqual(['/default']);
  });
});

describe('what the target receives', () => {
  const raw = '{ "z": 1,\n  "a": [3, 2, 1], "text": "h\\u00e9llo ✓ 😀",\t"n": 1.50 }';

  it('gets the stored body byte for byte, with the sender headers but not cookies or hop-by-hop headers', async () => {
    const id = await ingest('github', raw, {
      'x-hub-signature-256': 'sha256=abc',
      'x-github-event': 'push',
      'x-github-delivery': 'd-1',
      cookie: 'session=secret',
      'x-target-url-not': 'kept',
    });
    await pipeline.waitForStatus(id, 'delivered');
    const [req] = target.requests;
    expect(req!.body.equals(Buffer.from(raw))).toBe(true);
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-hub-signature-256': 'sha256=abc',
      'x-github-event': 'push',
      'x-github-delivery': 'd-1',
      'x-relay-event-id': id,
      'user-agent': expect.stringMatching(/^webhook-relay\//),
    });
    expect(req!.headers.cookie).toBeUndefined();
    const stored = await pipeline.eventById(id);
    expect(Buffer.from(stored!.body).equals(Buffer.from(raw))).toBe(true);
    expect(stored!.headers).not.toHaveProperty('cookie');
  });

  it('carries X-Relay-Signature equal to an independently computed HMAC-SHA256 of the raw body', async () => {
    const id = await ingest('signed', raw);
    await pipeline.waitForStatus(id, 'delivered');
    const expected = `sha256=${createHmac('sha256', SECRET).update(Buffer.from(raw)).digest('hex')}`;
    expect(target.requests[0]!.headers['x-relay-signature']).toBe(expected);
  });

  it('carries Standard Webhooks headers that verify, with a webhook-id stable across retries', async () => {
    target.replyWith(503, 200);
    const id = await ingest('std', raw);
    await pipeline.waitForStatus(id, 'delivered');
    const [first, second] = target.requests;
    const verifier = new Webhook(Buffer.from(SECRET).toString('base64'));
    for (const req of [first!, second!]) {
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      expect(verifier.verify(req.body.toString('utf8'), headers)).toEqual(JSON.parse(raw));
      expect(headers['webhook-id']).toBe(id);
    }
    expect(() =>
      verifier.verify('{"tampered":true}', {
        'webhook-id': String(first!.headers['webhook-id']),
        'webhook-timestamp': String(first!.headers['webhook-timestamp']),
        'webhook-signature': String(first!.headers['webhook-signature']),
      }),
    ).toThrow();
  });
});

describe('target selection', () => {
  it('an active rule for the source beats the default target, and signs with its own secret', async () => {
    const org = '00000000-0000-7000-8000-000000000001';
    await pipeline.store.prisma.rule.create({
      data: {
        name: randomUUID(),
        organizationId: org,
        source: 'shop',
        targetUrl: `${target.url}/rule`,
        signingSecret: 'rule-secret',
      },
    });
    const id = await ingest('shop', '{"order":1}');
    await pipeline.waitForStatus(id, 'delivered');
    expect(target.requests[0]!.url).toBe('/rule');
    const expected = `sha256=${createHmac('sha256', 'rule-secret').update('{"order":1}').digest('hex')}`;
    expect(target.requests[0]!.headers['x-relay-signature']).toBe(expected);
    expect((await pipeline.eventById(id))?.ruleId).not.toBeNull();
  });

  it('ignores an inactive rule', async () => {
    const org = '00000000-0000-7000-8000-000000000001';
    await pipeline.store.prisma.rule.create({
      data: {
        name: randomUUID(),
        organizationId: org,
        source: 'paused',
        targetUrl: `${target.url}/inactive`,
        active: false,
      },
    });
    const id = await ingest('paused', '{}');
    await pipeline.waitForStatus(id, 'delivered');
    expect(target.requests[0]!.url).toBe('/default');
  });
});

describe('timeouts', () => {
  it('a hanging target times out and the attempt is retried', async () => {
    target.replyWith('hang', 200);
    const id = await ingest('slow', '{}');
    await pipeline.waitForStatus(id, 'delivered', 15_000);
    const attempts = await pipeline.attemptsOf(id);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.error).toMatch(/ETIMEDOUT/);
    expect(attempts[0]!.responseStatus).toBeNull();
    await waitFor(() => target.requests.length === 2);
  });
});
