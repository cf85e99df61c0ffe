import { randomUUID } from 'node:crypto';
import { asOrgId, DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createDeliveryQueue, createRedisConnection } from '@relay/queue';
import { TEST_REDIS_URL, testPrincipal, uniqueQueuePrefix } from '@relay/test-support';
import pino from 'pino';
import type { IncomingWebhook } from '../ingest/incoming-webhook';
import { createIngestService } from '../ingest/ingest.service';
import { createSendService } from './send.service';
import { useServiceDatabase } from '../service-test-kit';

const admin = testPrincipal();

const store = useServiceDatabase();
let accepted: IncomingWebhook[];
let next = 0;
const service = (installDefaultTarget?: string) =>
  createSendService({
    // Ingest (group commit, queueing) has its own tests; here it only records what it was given.
    ingest: {
      accept: async (webhook) => {
        accepted.push(webhook);
        return `00000000-0000-7000-8000-${String(++next).padStart(12, '0')}`;
      },
    },
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    installDefaultTarget,
    maxPayloadDepth: 3,
  });
const rule = (source: string, active: boolean) =>
  store.db.prisma.rule.create({
    data: {
      name: randomUUID(),
      organizationId: DEFAULT_ORGANIZATION_ID,
      source,
      targetUrl: 'https://example.com/p',
      active,
    },
  });

beforeEach(() => {
  accepted = [];
});

describe('send service', () => {
  it("sends in rule mode to the rule's target and audits event.sent", async () => {
    const p = await rule('prov', true);
    const sent = await service().send(admin, { provider_id: p.id, body: { hello: 1 } });
    expect(sent).toMatchObject({ status: 'queued', source: 'prov', target_url: 'https://example.com/p' });
    expect(accepted[0]).toMatchObject({ source: 'prov', ruleId: p.id, targetOverride: 'https://example.com/p' });
    expect(accepted[0]!.body.toString()).toBe('{"hello":1}');
    expect(await store.auditOf(sent.id)).toEqual([
      expect.objectContaining({
        action: 'event.sent',
        resourceType: 'event',
        metadata: {
          mode: 'provider',
          source: 'prov',
          provider_id: p.id,
          target_url: 'https://example.com/p',
          mechanism: 'session',
        },
      }),
    ]);
  });

  it('refuses an unknown or inactive rule without sending', async () => {
    const idle = await rule('idle', false);
    await expect(service().send(admin, { provider_id: idle.id, body: 1 })).rejects.toMatchObject({
      code: 'provider_inactive',
    });
    const unknown = '00000000-0000-7000-8000-00000000dead';
    await expect(service().send(admin, { provider_id: unknown, body: 1 })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(accepted).toEqual([]);
  });

  it('sends in manual mode to a checked URL, and refuses a private one', async () => {
    const sent = await service().send(admin, { source: 'manual', target_url: 'https://example.com/m', body: [] });
    expect(sent).toMatchObject({ source: 'manual', target_url: 'https://example.com/m', provider_id: null });
    expect((await store.auditOf(sent.id))[0]!.metadata).toMatchObject({ mode: 'manual', provider_id: null });
    await expect(
      service().send(admin, { source: 'manual', target_url: 'http://127.0.0.1/', body: [] }),
    ).rejects.toMatchObject({ code: 'target_url_rejected' });
    expect(accepted).toHaveLength(1);
  });

  it("falls back to the organization's default, then the install default, else no_default_target", async () => {
    const manual = { source: 'fallback', target_url: '', body: null };
    await expect(service().send(admin, manual)).rejects.toMatchObject({ code: 'no_default_target' });
    expect(await service('https://install.example.com/').send(admin, manual)).toMatchObject({
      target_url: 'https://install.example.com/',
    });
    await store.db.prisma.organization.update({
      where: { id: DEFAULT_ORGANIZATION_ID },
      data: { defaultTargetUrl: 'https://own.example.com/' },
    });
    expect(await service('https://install.example.com/').send(admin, manual)).toMatchObject({
      target_url: 'https://own.example.com/',
    });
  });

  it('refuses a body nested deeper than MAX_PAYLOAD_DEPTH without sending', async () => {
    const manual = { source: 'deep', target_url: 'https://example.com/d' };
    await expect(service().send(admin, { ...manual, body: [[[[1]]]] })).rejects.toMatchObject({
      code: 'payload_too_deep',
    });
    expect(accepted).toEqual([]);
    await expect(service().send(admin, { ...manual, body: [[{ a: 1 }]] })).resolves.toMatchObject({ source: 'deep' });
  });
});

describe('send while its organization is deleted', () => {
  const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
  const queue = createDeliveryQueue({ connection: redis, prefix: uniqueQueuePrefix() });
  afterAll(async () => {
    await queue.close();
    await redis.quit();
  });

  it('answers not_found (404), not a failure of the relay, and stores nothing', async () => {
    const org = await store.db.prisma.organization.create({ data: { slug: 'deleted-while-sending', name: 'x' } });
    // The real ingest: its batched insert meets the foreign key of the organization deleted meanwhile.
    const sending = createSendService({
      ingest: createIngestService({
        events: store.repositories().events,
        queue,
        logger: pino({ level: 'silent' }),
        batch: { maxSize: 100, maxWaitMs: 0 },
      }),
      repositories: store.repositories(),
      targetPolicy: { allowPrivate: false, allowlist: [] },
      installDefaultTarget: undefined,
      maxPayloadDepth: 3,
    });
    // The caller was signed in to the organization when the request began; it is deleted before the insert.
    await store.db.prisma.organization.delete({ where: { id: org.id } });
    const manual = { source: 'orphan', target_url: 'https://example.com/o', body: { a: 1 } };
    await expect(sending.send(testPrincipal({ orgId: asOrgId(org.id) }), manual)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await store.db.prisma.event.count({ where: { source: 'orphan' } })).toBe(0);
  });
});
