import { randomUUID } from 'node:crypto';
import { DEFAULT_SENSITIVE_HEADERS, type EventStatus, type FeedMessage } from '@relay/core';
import pino from 'pino';
import { testPrincipal, unauditable } from '@relay/test-support';
import { createEventService } from './event.service';
import { useServiceDatabase } from '../service-test-kit';

const admin = testPrincipal();
const broken = unauditable(admin);

const store = useServiceDatabase();
// The queue and the live feed are the outside world here: the service only has to tell them.
let enqueued: string[];
let enqueuedDeliveries: string[];
let published: FeedMessage[];
const service = (bulkCap = 1000) =>
  createEventService({
    repositories: store.repositories(),
    reads: store.reads(),
    queue: {
      enqueue: async (jobs) => void enqueued.push(...jobs.map((j) => j.eventId)),
      enqueueDestinations: async (jobs) => void enqueuedDeliveries.push(...jobs.map((j) => j.deliveryId)),
    },
    feed: { publish: async (_org, messages) => void published.push(...messages) },
    logger: pino({ enabled: false }),
    bulkCap,
    sensitiveHeaders: DEFAULT_SENSITIVE_HEADERS,
  });

const event = (status: EventStatus, source = 'svc') => store.event(status, { source });
const statusOf = async (id: string) => (await store.db.prisma.event.findUnique({ where: { id } }))?.status;

beforeEach(() => {
  enqueued = [];
  enqueuedDeliveries = [];
  published = [];
});

describe('event service', () => {
  it('shows an event, its attempts and the list; an unknown id is not_found', async () => {
    const id = await event('queued', 'svc-list');
    expect(await service().find(admin, id)).toMatchObject({ id, status: 'queued', payload: { a: 1 } });
    expect(await service().attempts(admin, id)).toEqual({ attempts: [] });
    const page = await service().list(admin, { page: 1, per_page: 10, source: 'svc-list' });
    expect(page).toMatchObject({ total: 1, page: 1, per_page: 10, pages: 1, events: [{ id }] });
    await expect(service().find(admin, randomUUID())).rejects.toMatchObject({ code: 'not_found' });
    await expect(service().attempts(admin, randomUUID())).rejects.toMatchObject({ code: 'not_found' });
  });

  it("lists a rule's events alone by rule_id, whatever other rule shares its source", async () => {
    const prisma = store.db.prisma;
    const rule = (name: string) =>
      prisma.rule.create({
        data: { organizationId: admin.orgId, name, source: 'svc-shared', targetUrl: 'https://example.com/' },
      });
    const [mine, theirs] = [await rule('svc-mine'), await rule('svc-theirs')];
    const ofRule = async (ruleId: string, status: EventStatus) => {
      return store.event(status, { source: 'svc-shared', ruleId });
    };
    const failed = await ofRule(mine.id, 'failed');
    await ofRule(mine.id, 'delivered');
    await ofRule(theirs.id, 'failed');
    const page = await service().list(admin, { page: 1, per_page: 10, rule_id: mine.id, status: 'failed' });
    expect(page).toMatchObject({ total: 1, events: [{ id: failed }] });
    expect((await service().list(admin, { page: 1, per_page: 10, rule_id: mine.id })).total).toBe(2);
  });

  it('retries a failed event: audited, enqueued, announced', async () => {
    const id = await event('failed');
    expect(await service().retry(admin, id)).toEqual({ id, status: 'queued' });
    expect(await statusOf(id)).toBe('queued');
    const [entry] = await store.auditOf(id);
    expect(entry).toMatchObject({
      action: 'event.retried',
      resourceType: 'event',
      actorUserId: admin.userId,
      metadata: { mechanism: 'session' },
    });
    expect(enqueued).toEqual([id]);
    expect(published).toMatchObject([{ type: 'event.status', data: { id, status: 'queued' } }]);
  });

  it('refuses to retry a queued event and to acknowledge a delivered one, auditing nothing', async () => {
    const queued = await event('queued');
    await expect(service().retry(admin, queued)).rejects.toMatchObject({ code: 'event_not_retryable' });
    const delivered = await event('delivered');
    await expect(service().acknowledge(admin, delivered)).rejects.toMatchObject({ code: 'event_not_failed' });
    expect([...(await store.auditOf(queued)), ...(await store.auditOf(delivered))]).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('acknowledges a failed event and answers it as it is now', async () => {
    const id = await event('failed');
    expect(await service().acknowledge(admin, id)).toMatchObject({ id, status: 'failed', acknowledged: true });
    expect((await store.auditOf(id)).map((e) => e.action)).toEqual(['event.acknowledged']);
  });

  it('deletes with an audit entry; a second delete is not_found', async () => {
    const id = await event('delivered');
    await service().delete(admin, id);
    expect(await statusOf(id)).toBeUndefined();
    expect((await store.auditOf(id)).map((e) => e.action)).toEqual(['event.deleted']);
    expect(published).toMatchObject([{ type: 'event.deleted', data: { id } }]);
    await expect(service().delete(admin, id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('changes nothing when the audit entry cannot be written', async () => {
    const failed = await event('failed');
    await expect(service().retry(broken, failed)).rejects.toThrow();
    await expect(service().acknowledge(broken, failed)).rejects.toThrow();
    await expect(service().delete(broken, failed)).rejects.toThrow();
    await expect(service().bulkDelete(broken, { ids: [failed] })).rejects.toThrow();
    const row = await store.db.prisma.event.findUnique({ where: { id: failed } });
    expect(row).toMatchObject({ status: 'failed', acknowledgedAt: null });
    expect(await store.auditOf(failed)).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('bulk retries by ids, skipping queued events, with one audit entry', async () => {
    const [failed, queued] = [await event('failed'), await event('queued')];
    const before = await store.db.prisma.auditEntry.count({ where: { action: 'events.bulk_retried' } });
    expect(await service().bulkRetry(admin, { ids: [failed, queued] })).toEqual({
      affected: 1,
      ids: [failed],
      truncated: false,
    });
    const entries = await store.db.prisma.auditEntry.findMany({ where: { action: 'events.bulk_retried' } });
    expect(entries).toHaveLength(before + 1);
    expect(entries.at(-1)).toMatchObject({
      // A new id of the bulk operation; the events it touched are in the metadata.
      resourceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      metadata: { by: 'ids', requested: 2, affected: 1, ids: [failed], mechanism: 'session' },
    });
    expect(enqueued).toEqual([failed]);
  });

  it('bulk deletes by filter up to the cap and says when more matched', async () => {
    const ids = [
      await event('failed', 'svc-bulk'),
      await event('failed', 'svc-bulk'),
      await event('failed', 'svc-bulk'),
    ];
    const result = await service(2).bulkDelete(admin, { filter: { source: 'svc-bulk' } });
    expect(result).toMatchObject({ affected: 2, truncated: true });
    const [entry] = await store.db.prisma.auditEntry.findMany({ where: { action: 'events.bulk_deleted' } });
    expect(entry?.metadata).toMatchObject({ by: 'filter', filter: { source: 'svc-bulk' }, affected: 2 });
    const left = await store.db.prisma.event.findMany({ where: { source: 'svc-bulk' } });
    expect(left.map((e) => e.id)).toEqual(ids.filter((id) => !result.ids.includes(id)));
  });
});
