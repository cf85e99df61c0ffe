import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { openSecret, parseSecretKeys, sealedKeyId } from '@relay/core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { Webhook } from 'standardwebhooks';
import supertest from 'supertest';
import { startApiReplica, startPipeline, TEST_SECRET_KEYS, userCredential, type Pipeline } from './harness';

const OLD = 'the-old-signing-secret-0';
const NEW = 'the-new-signing-secret-1';
// A plain secret is used as its UTF-8 bytes; the reference library takes the key base64-encoded.
const verifies = (secret: string, request: { body: Buffer; headers: Record<string, unknown> }) => {
  try {
    new Webhook(Buffer.from(secret).toString('base64')).verify(request.body.toString(), {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
};
const relaySignature = (secret: string, body: Buffer) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('signing secrets: sealed at rest, rotated with a window', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  let admin: string;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline();
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });
  const row = (id: string) => pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id } });

  async function deliver(source: string) {
    target.requests.length = 0;
    const res = await pipeline.http
      .post(`/${source}`)
      .set('content-type', 'application/json')
      .send(`{"source":"${source}"}`)
      .expect(202);
    await pipeline.waitForStatus(res.body.id, 'delivered');
    return (await target.waitForRequests(1))[0]!;
  }

  it('signs with both secrets during the window (either verifies), X-Relay-Signature with the newer', async () => {
    const rule = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'rotating', target_url: `${target.url}/in`, signing_secret: OLD })
      .expect(201);
    const id = rule.body.id as string;
    const stored = await row(id);
    expect(stored.signingSecret).not.toContain(OLD);
    expect(sealedKeyId(stored.signingSecret!)).toBe('test');

    const rotated = await pipeline.http
      .post(`/rules/${id}/secret/rotate`)
      .set('authorization', admin)
      .send({ signing_secret: NEW, previous_secret_valid_for_seconds: 3600 })
      .expect(200);
    const expiresAt = Date.parse(rotated.body.previous_secret_expires_at);
    expect(expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
    expect(JSON.stringify(rotated.body)).not.toContain('signing-secret');
    const audit = await pipeline.store.prisma.auditEntry.findFirst({ where: { action: 'rule.secret_rotated' } });
    expect(audit).toMatchObject({ resourceId: id });
    expect(JSON.stringify(audit)).not.toContain('signing-secret');
    // The row's counters are BigInt, which JSON cannot write: they are written as text here.
    const storedRow = JSON.stringify(await row(id), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect(storedRow).not.toContain('signing-secret');

    const during = await deliver('rotating');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifies(NEW, during), verifies(OLD, during), verifies('some-other-secret-9', during)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(during.headers['x-relay-signature']).toBe(relaySignature(NEW, during.body));

    // The window over, only the new secret signs.
    await pipeline.store.prisma.rule.update({
      where: { id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    const after = await deliver('rotating');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([verifies(NEW, after), verifies(OLD, after)]).toEqual([true, false]);
    expect((await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body).toMatchObject({
      previous_secret_expires_at: null,
    });
  });

  it('needs rules:write and a known rule', async () => {
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const body = { signing_secret: NEW };
    const unknown = '00000000-0000-7000-8000-00000000dead';
    await pipeline.http.post(`/rules/${unknown}/secret/rotate`).set('authorization', viewer).send(body).expect(403);
    await pipeline.http.post(`/rules/${unknown}/secret/rotate`).set('authorization', admin).send(body).expect(404);
    await pipeline.http
      .post(`/rules/${unknown}/secret/rotate`)
      .set('authorization', admin)
      .send({ ...body, previous_secret_valid_for_seconds: 31 * 86_400 })
      .expect(400);
  });

  it('seals plaintext rows from before encryption and re-seals under a new key at start', async () => {
    const legacy = await pipeline.store.prisma.rule.create({
      data: {
        name: randomUUID(),
        organizationId: (await pipeline.store.prisma.organization.findFirstOrThrow()).id,
        source: 'legacy',
        targetUrl: `${target.url}/legacy`,
        signingSecret: OLD,
      },
    });
    const newKey = `next:${randomBytes(32).toString('base64')}`;
    const keys = `${newKey},${TEST_SECRET_KEYS}`;
    const replica = startApiReplica(pipeline, { SECRET_ENCRYPTION_KEYS: keys });
    try {
      await replica.start();
    } finally {
      await replica.close();
    }
    const sealed = (await row(legacy.id)).signingSecret!;
    expect(sealedKeyId(sealed)).toBe('next');
    expect(openSecret(parseSecretKeys(keys), sealed)).toBe(OLD);
    // Rows sealed with the old key moved to the new one too.
    const others = await pipeline.store.prisma.rule.findMany({ where: { signingSecret: { not: null } } });
    expect(others.map((p) => sealedKeyId(p.signingSecret!))).toEqual(others.map(() => 'next'));

    // A worker holding both keys (as during the key rotation) signs with the unchanged secret.
    await pipeline.worker!.close();
    pipeline.worker = undefined;
    pipeline.startWorker({ SECRET_ENCRYPTION_KEYS: keys });
    const request = await deliver('legacy');
    expect(verifies(OLD, request)).toBe(true);
    expect(request.headers['x-relay-signature']).toBe(relaySignature(OLD, request.body));
  });

  it('refuses to store a secret when SECRET_ENCRYPTION_KEYS is not set', async () => {
    const keyless = startApiReplica(pipeline, { SECRET_ENCRYPTION_KEYS: '' });
    try {
      const auth = (await userCredential(pipeline, 'admin')).authorization;
      const res = await supertest(keyless.app)
        .post('/rules')
        .set('authorization', auth)
        .send({ source: 'keyless', target_url: `${target.url}/k`, signing_secret: NEW })
        .expect(422);
      expect(res.body.code).toBe('secrets_not_configured');
    } finally {
      await keyless.close();
    }
    expect(await pipeline.store.prisma.rule.count({ where: { source: 'keyless' } })).toBe(0);
  });

  it('never sends unsigned when the worker cannot open a secret: the event fails as a relay fault', async () => {
    await pipeline.worker!.close();
    pipeline.worker = undefined;
    pipeline.startWorker({ SECRET_ENCRYPTION_KEYS: '', DELIVERY_FAULT_MAX_DEFERS: '0' });
    target.requests.length = 0;
    const res = await pipeline.http
      .post('/rotating')
      .set('content-type', 'application/json')
      .send('{"keyless":true}')
      .expect(202);
    const event = await pipeline.waitForStatus(res.body.id, 'failed');
    expect(event.failureReason).toBe('relay_error');
    expect(target.requests).toHaveLength(0);
  });
});
