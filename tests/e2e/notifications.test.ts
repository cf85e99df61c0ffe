import { createHmac } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, sealedKeyId } from '@relay/core';
import { startTargetServer, type ReceivedRequest, type TargetServer } from '@relay/test-support';
import { Webhook } from 'standardwebhooks';
import { createNotificationRepository } from '@relay/db';
import { pino } from 'pino';
import supertest from 'supertest';
import { createFailureDigest } from '../../apps/delivery-worker/src/notifications/failure-digest';
import { apiKeyCredential, startApiReplica, startPipeline, userCredential, type Pipeline } from './harness';

const SECRET = 'the-notification-secret-0';
const PATH = '/api/organization/notifications';
const INTERVAL_MS = 900_000;

// What a receiver of the relay's deliveries runs: the reference Standard Webhooks library, and the
// X-Relay-Signature HMAC over the raw body.
const verifies = (secret: string, request: ReceivedRequest) => {
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
const json = (request: ReceivedRequest) => JSON.parse(request.body.toString()) as Record<string, unknown>;

describe('organization notifications', () => {
  let pipeline: Pipeline;
  let notices: TargetServer;
  let target: TargetServer;
  let admin: string;
  beforeAll(async () => {
    notices = await startTargetServer();
    target = await startTargetServer();
    pipeline = await startPipeline({ worker: { NOTIFICATION_BACKOFF_MS: '50', NOTIFICATION_MAX_ATTEMPTS: '3' } });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(async () => {
    await pipeline.close();
    await notices.close();
    await target.close();
  });
  const org = () => pipeline.store.prisma.organization.findUniqueOrThrow({ where: { id: DEFAULT_ORGANIZATION_ID } });
  const put = (body: unknown, auth = admin) =>
    pipeline.http
      .put(PATH)
      .set('authorization', auth)
      .send(body as object);

  it('GET and PUT: the URL checked by the target policy, the secret write-only and sealed, audited', async () => {
    expect((await pipeline.http.get(PATH).set('authorization', admin).expect(200)).body).toEqual({
      url: null,
      has_secret: false,
    });
    for (const body of [{}, { url: 5 }, { url: `${notices.url}/n`, secret: 'short' }, { url: null, secret: SECRET }]) {
      expect((await put(body).expect(400)).body).toMatchObject({ code: 'validation_failed' });
    }
    for (const url of ['ftp://example.com/', 'https://user:pw@example.com/']) {
      expect((await put({ url }).expect(422)).body).toMatchObject({ code: 'target_url_rejected' });
    }
    expect((await org()).notificationUrl).toBeNull();

    const before = Date.now();
    const saved = await put({ url: `${notices.url}/notices`, secret: SECRET }).expect(200);
    expect(saved.body).toEqual({ url: `${notices.url}/notices`, has_secret: true });
    const row = await org();
    expect(row.notificationSecret).not.toContain(SECRET);
    expect(sealedKeyId(row.notificationSecret!)).toBe('test');
    // Turning notices on starts the digest: earlier failures are not reported.
    expect(row.failureDigestUntil!.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect((await pipeline.http.get(PATH).set('authorization', admin).expect(200)).body).toEqual(saved.body);

    // Omitted, the secret stays.
    await put({ url: `${notices.url}/notices` }).expect(200);
    expect((await org()).notificationSecret).toBe(row.notificationSecret);
    const audit = await pipeline.store.prisma.auditEntry.findMany({
      where: { action: 'organization.notifications_updated' },
      orderBy: { createdAt: 'asc' },
    });
    expect(audit.map((a) => a.metadata)).toEqual([
      expect.objectContaining({ from: null, to: `${notices.url}/notices`, secret: 'replaced' }),
      expect.objectContaining({ from: `${notices.url}/notices`, to: `${notices.url}/notices`, secret: 'kept' }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
  });

  it('is organization management: viewers, editors and keys without organization:manage are refused', async () => {
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const rulesKey = await apiKeyCredential(pipeline, ['rules:read', 'rules:write']);
    for (const auth of [viewer, rulesKey]) {
      await pipeline.http.get(PATH).set('authorization', auth).expect(403);
      await put({ url: null }, auth).expect(403);
    }
    await pipeline.http.get(PATH).expect(401);
  });

  it('refuses a secret when SECRET_ENCRYPTION_KEYS is not set', async () => {
    const keyless = startApiReplica(pipeline, { SECRET_ENCRYPTION_KEYS: '' });
    try {
      const res = await supertest(keyless.app)
        .put(PATH)
        .set('authorization', admin)
        .send({ url: `${notices.url}/other`, secret: SECRET })
        .expect(422);
      expect(res.body.code).toBe('secrets_not_configured');
    } finally {
      await keyless.close();
    }
    expect((await org()).notificationUrl).toBe(`${notices.url}/notices`);
  });

  it('a notice arrives signed like deliveries, retried after a failure with the same id', async () => {
    await put({ url: `${notices.url}/notices`, secret: SECRET }).expect(200);
    notices.requests.length = 0;
    notices.replyWith(500, 200);
    await pipeline.worker!.notify(DEFAULT_ORGANIZATION_ID, { type: 'rule.unhealthy', data: { rule_id: 'r1' } });
    const [first, second] = await notices.waitForRequests(2);
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(second!.url).toBe('/notices');
    expect(second!.headers['x-relay-notice-type']).toBe('rule.unhealthy');
    expect(verifies(SECRET, second!)).toBe(true);
    expect(verifies('some-other-secret-99', second!)).toBe(false);
    expect(second!.headers['x-relay-signature']).toBe(relaySignature(SECRET, second!.body));
    expect(json(second!)).toMatchObject({
      id: second!.headers['webhook-id'],
      type: 'rule.unhealthy',
      organization_id: DEFAULT_ORGANIZATION_ID,
      data: { rule_id: 'r1' },
    });
    expect(Date.parse(String(json(second!).at))).toBeGreaterThan(Date.now() - 60_000);
    notices.replyWith(200);
  });

  it('without a secret of its own a notice is signed with DEFAULT_SIGNING_SECRET, else unsigned', async () => {
    await put({ url: `${notices.url}/plain`, secret: null }).expect(200);
    expect((await pipeline.http.get(PATH).set('authorization', admin).expect(200)).body.has_secret).toBe(false);
    notices.requests.length = 0;
    await pipeline.worker!.notify(DEFAULT_ORGANIZATION_ID, { type: 'rule.unhealthy', data: {} });
    const [plain] = await notices.waitForRequests(1);
    expect(plain!.url).toBe('/plain');
    expect(plain!.headers['x-relay-signature']).toBeUndefined();
    expect(plain!.headers['webhook-signature']).toBeUndefined();
    expect(plain!.headers['webhook-id']).toBe(json(plain!).id);

    // With DEFAULT_SIGNING_SECRET on the worker, that signs instead.
    await pipeline.worker!.close();
    pipeline.worker = undefined;
    pipeline.startWorker({ DEFAULT_SIGNING_SECRET: 'the-install-default-secret' });
    notices.requests.length = 0;
    await pipeline.worker!.notify(DEFAULT_ORGANIZATION_ID, { type: 'rule.unhealthy', data: {} });
    const [signed] = await notices.waitForRequests(1);
    expect(verifies('the-install-default-secret', signed!)).toBe(true);
  });

  it('the digest lists newly failed events once, not again, and once per slot across runs', async () => {
    await put({ url: `${notices.url}/notices`, secret: SECRET }).expect(200);
    // Failures before this mark were reported (or predate notices): only later ones are news.
    await pipeline.store.prisma.organization.update({
      where: { id: DEFAULT_ORGANIZATION_ID },
      data: { failureDigestUntil: new Date(Date.now() - 1_000) },
    });
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'doomed', target_url: `${target.url}/in` })
      .expect(201);
    target.replyWith(400);
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const res = await pipeline.http.post('/doomed').set('content-type', 'application/json').send({ n }).expect(202);
      ids.push(res.body.id as string);
    }
    for (const id of ids) await pipeline.waitForStatus(id, 'failed');

    notices.requests.length = 0;
    // Two slots ahead, so the digest's end (its slot's start, less the settle time) is after the failures.
    const at = new Date(Date.now() + 2 * INTERVAL_MS);
    // Two workers running the same slot at once build one notice.
    const runs = await Promise.all([pipeline.worker!.digestNow(at), pipeline.worker!.digestNow(at)]);
    expect(runs.map((r) => r.organizations)).toEqual([1, 1]);
    const [digest] = await notices.waitForRequests(1);
    expect(verifies(SECRET, digest!)).toBe(true);
    const body = json(digest!) as {
      type: string;
      data: { count: number; since: string; until: string; events: unknown[] };
    };
    expect(body.type).toBe('events.failed');
    expect(body.data.count).toBe(2);
    // In the order they failed, which two deliveries at once may reverse.
    expect(body.data.events).toHaveLength(2);
    expect(body.data.events).toEqual(
      expect.arrayContaining(
        ids.map((id) => ({ id, source: 'doomed', failure_reason: 'http_status', last_error: 'HTTP 400' })),
      ),
    );
    expect(Date.parse(body.data.until)).toBeGreaterThan(Date.now());
    expect((await org()).failureDigestUntil!.toISOString()).toBe(body.data.until);

    // Again in the same slot, and in a later one: nothing new failed, so no notice.
    await pipeline.worker!.digestNow(at);
    await pipeline.worker!.digestNow(new Date(at.getTime() + INTERVAL_MS));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(notices.requests).toHaveLength(1);
  });

  it('a target answering 410 makes the rule unhealthy and the notification URL hears of it', async () => {
    await put({ url: `${notices.url}/notices`, secret: SECRET }).expect(200);
    const rule = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'gone', target_url: `${target.url}/gone` })
      .expect(201);
    target.replyWith(410);
    notices.requests.length = 0;
    await pipeline.http.post('/gone').set('content-type', 'application/json').send({ n: 1 }).expect(202);
    const [notice] = await notices.waitForRequests(1);
    expect(verifies(SECRET, notice!)).toBe(true);
    expect(json(notice!)).toMatchObject({
      type: 'rule.unhealthy',
      organization_id: DEFAULT_ORGANIZATION_ID,
      data: { rule: { id: rule.body.id, source: 'gone' }, reason: 'gone' },
    });
  });

  it('keeps the digest mark when the notice cannot be queued: the failures are reported next time', async () => {
    const mark = new Date(Date.now() - 3_600_000);
    await pipeline.store.prisma.organization.update({
      where: { id: DEFAULT_ORGANIZATION_ID },
      data: { failureDigestUntil: mark },
    });
    const digest = createFailureDigest({
      notifications: createNotificationRepository(pipeline.store.pool),
      enqueue: () => Promise.reject(new Error('Redis is down')),
      intervalMs: INTERVAL_MS,
      logger: pino({ level: 'silent' }),
    });
    await expect(digest.runOnce(new Date(Date.now() + 2 * INTERVAL_MS))).rejects.toThrow('Redis is down');
    expect((await org()).failureDigestUntil).toEqual(mark);
  });

  it('null turns notices off: nothing is sent and the digest skips the organization', async () => {
    expect((await put({ url: null }).expect(200)).body).toEqual({ url: null, has_secret: false });
    expect((await org()).notificationSecret).toBeNull();
    notices.requests.length = 0;
    await pipeline.worker!.notify(DEFAULT_ORGANIZATION_ID, { type: 'rule.unhealthy', data: {} });
    expect((await pipeline.worker!.digestNow(new Date(Date.now() + 10 * INTERVAL_MS))).organizations).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(notices.requests).toHaveLength(0);
  });
});
