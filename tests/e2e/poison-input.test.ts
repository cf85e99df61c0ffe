import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startPipeline, userCredential, type Pipeline } from './harness';
import { newEventId } from '@relay/test-support';

let pipeline: Pipeline;
let admin: string;

beforeAll(async () => {
  // Batches stay open 20 ms, so concurrent webhooks share them.
  pipeline = await startPipeline({
    api: { INGEST_BATCH_WAIT_MS: '20', INGEST_BATCH_MAX: '50', DEFAULT_TARGET_URL: 'https://example.com/hook' },
    worker: false,
  });
  admin = (await userCredential(pipeline)).authorization;
});
afterAll(() => pipeline.close());

// Raw bytes: superagent would otherwise serialise a Buffer as JSON.
const ingest = (body: Buffer | string) =>
  pipeline.http
    .post('/poison')
    .set('content-type', 'application/json')
    .serialize((raw: Buffer | string) => raw as string)
    .send(body);
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('invalid UTF-8 on ingest', () => {
  it('answers 400 invalid_encoding to each bad body and 202 to every legitimate one in the same batches', async () => {
    const before = await pipeline.store.prisma.event.count();
    const bad = (i: number) => Buffer.concat([Buffer.from(`{"n":${i},"a":"`), Buffer.from([0xff]), Buffer.from('"}')]);
    const requests = Array.from({ length: 90 }, (_, i) => ({ i, poison: i % 6 === 3 }));
    const answers = await Promise.all(requests.map(({ i, poison }) => ingest(poison ? bad(i) : `{"n":${i},"a":"ü"}`)));
    requests.forEach(({ poison }, k) => {
      const res = answers[k]!;
      if (poison) {
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'invalid_encoding' });
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      } else {
        expect(res.status).toBe(202);
      }
    });
    expect(await pipeline.store.prisma.event.count()).toBe(before + 75);
  });
});

describe('payload nesting depth', () => {
  it('refuses a payload nested deeper than MAX_PAYLOAD_DEPTH (128) on ingest, and takes one at the limit', async () => {
    const deep = await ingest(nested(5_000)).expect(400);
    expect(deep.body).toMatchObject({ code: 'payload_too_deep', limit_depth: 128 });
    await ingest(nested(129)).expect(400);
    const atLimit = await ingest(nested(128)).expect(202);
    const shown = await pipeline.http.get(`/events/${atLimit.body.id}`).set('authorization', admin).expect(200);
    expect(JSON.stringify(shown.body.payload)).toBe(nested(128));
    expect(shown.body.payload_as_text).toBeUndefined();
  });

  it('refuses a deep /api/send body with 400, with or without an Idempotency-Key', async () => {
    const send = (body: string, key?: string) => {
      const req = pipeline.http.post('/api/send').set('authorization', admin).set('content-type', 'application/json');
      return (key ? req.set('idempotency-key', key) : req).send(body);
    };
    const envelope = (payload: string) => `{"source":"deep","target_url":"","body":${payload}}`;
    for (const key of [undefined, randomUUID()]) {
      const res = await send(envelope(nested(100_000)), key).expect(400);
      expect(res.body.code).toBe('payload_too_deep');
      expect((await send(envelope(nested(129)), key).expect(400)).body.code).toBe('payload_too_deep');
    }
    await send(envelope(nested(128))).expect(202);
  });

  it('shows a stored payload too deep to re-serialise as its text, never a 500', async () => {
    const body = Buffer.from(`{"a":${nested(5_000)}}`);
    const event = await pipeline.store.prisma.event.create({
      data: { id: newEventId(), organizationId: DEFAULT_ORGANIZATION_ID, source: 'legacy', body, headers: {} },
    });
    const res = await pipeline.http.get(`/events/${event.id}`).set('authorization', admin).expect(200);
    expect(res.body).toMatchObject({ id: event.id, payload: body.toString(), payload_as_text: true });
  });
});
