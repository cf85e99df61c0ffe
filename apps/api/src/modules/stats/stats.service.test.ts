import { type EventStatus } from '@relay/core';
import { testPrincipal } from '@relay/test-support';
import { createStatsService, statsWindow } from './stats.service';
import { useServiceDatabase } from '../service-test-kit';

const viewer = testPrincipal({
  role: 'viewer',
  userId: '00000000-0000-7000-8000-0000000000b1',
  username: 'vi',
  email: 'vi@example.com',
});
const NOW = new Date('2030-01-02T00:00:00.000Z');

const store = useServiceDatabase();
const service = () => createStatsService({ repositories: store.repositories(), now: () => NOW });

const event = (status: EventStatus, source: string, createdAt: Date) => store.event(status, { source, createdAt });

describe('stats window', () => {
  it('defaults to the last 24 hours in the narrowest bucket giving at most 300', () => {
    expect(statsWindow({}, NOW)).toEqual({
      from: new Date('2030-01-01T00:00:00.000Z'),
      to: NOW,
      bucket: '5m',
      bucketSeconds: 300,
    });
  });

  it('refuses an empty or too long window and too many buckets, naming the field', () => {
    const field = (query: Parameters<typeof statsWindow>[0]) => {
      try {
        statsWindow(query, NOW);
      } catch (err) {
        return (err as { code: string; details: { errors: { field: string }[] } }).details.errors[0]!.field;
      }
      return null;
    };
    expect(field({ from: NOW.toISOString(), to: NOW.toISOString() })).toBe('from');
    expect(field({ from: '2029-01-01T00:00:00Z' })).toBe('from');
    expect(field({ from: '2029-12-01T00:00:00Z', bucket: '1m' })).toBe('bucket');
  });
});

describe('stats service', () => {
  it("summarises the organization's events created in the window", async () => {
    await event('delivered', 'a', new Date('2030-01-01T12:00:00Z'));
    await event('failed', 'a', new Date('2030-01-01T12:01:00Z'));
    await event('queued', 'b', new Date('2030-01-01T13:00:00Z'));
    await event('paused', 'b', new Date('2030-01-01T13:05:00Z'));
    await event('ignored', 'b', new Date('2030-01-01T13:06:00Z'));
    await event('delivered', 'a', new Date('2029-12-30T00:00:00Z')); // before the window
    const stats = await service().summary(viewer, { bucket: '1h' });
    expect(stats).toMatchObject({
      from: '2030-01-01T00:00:00.000Z',
      to: '2030-01-02T00:00:00.000Z',
      bucket: '1h',
      bucket_seconds: 3600,
      total: 5,
      by_status: { queued: 1, delivered: 1, failed: 1, paused: 1, ignored: 1 },
      needs_attention: 1,
      success_rate: 0.5,
    });
    expect(stats.by_source).toEqual([
      { source: 'b', total: 3, queued: 1, delivered: 0, failed: 0, paused: 1, ignored: 1 },
      { source: 'a', total: 2, queued: 0, delivered: 1, failed: 1, paused: 0, ignored: 0 },
    ]);
    expect(stats.series).toHaveLength(24);
    expect(stats.series[12]).toEqual({
      start: '2030-01-01T12:00:00.000Z',
      total: 2,
      queued: 0,
      delivered: 1,
      failed: 1,
      paused: 0,
      ignored: 0,
    });
    expect(stats.series[13]).toMatchObject({ total: 3, queued: 1, paused: 1, ignored: 1 });
  });

  it('reports destination deliveries per destination, with no success rate until one finished', async () => {
    const prisma = store.db.prisma;
    const rule = await prisma.rule.create({
      data: { organizationId: viewer.orgId, name: 'st-dest', source: 'st-dest', targetUrl: 'https://example.com/' },
    });
    const destination = await prisma.destination.create({
      data: {
        organizationId: viewer.orgId,
        ruleId: rule.id,
        name: 'waiting',
        targetUrl: 'https://example.com/d',
        updatedAt: new Date(),
      },
    });
    const eventId = await event('delivered', 'st-dest', new Date('2030-01-01T20:00:00Z'));
    await prisma.delivery.create({
      data: { organizationId: viewer.orgId, eventId, destinationId: destination.id, status: 'queued' },
    });
    const stats = await service().summary(viewer, {});
    expect(stats.by_destination).toEqual([
      {
        destination_id: destination.id,
        name: 'waiting',
        rule_id: rule.id,
        total: 1,
        queued: 1,
        delivered: 0,
        failed: 0,
        paused: 0,
        success_rate: null,
      },
    ]);
  });

  it('names the rules and destinations that failed most, leaving out those without a failure', async () => {
    const prisma = store.db.prisma;
    const rule = (name: string) =>
      prisma.rule.create({
        data: { organizationId: viewer.orgId, name, source: name, targetUrl: `https://${name}.example.com/` },
      });
    const [flaky, broken, solid] = [await rule('st-flaky'), await rule('st-broken'), await rule('st-solid')];
    const at = new Date('2030-01-01T21:00:00Z');
    const ofRule = async (ruleId: string, status: EventStatus, createdAt = at) => {
      return store.event(status, { source: 'st-fail', createdAt, ruleId });
    };
    const flakyEvents = [await ofRule(flaky.id, 'failed'), await ofRule(flaky.id, 'failed')];
    await ofRule(flaky.id, 'delivered');
    await ofRule(flaky.id, 'ignored'); // counted, but not finished: the rate is of delivered and failed, as success_rate
    await ofRule(broken.id, 'failed');
    await ofRule(broken.id, 'failed', new Date('2029-12-30T00:00:00Z')); // before the window
    await ofRule(solid.id, 'delivered');
    const destination = await prisma.destination.create({
      data: { organizationId: viewer.orgId, ruleId: flaky.id, name: 'crm', targetUrl: 'https://crm.example.com/' },
    });
    for (const [eventId, status] of [
      [flakyEvents[0]!, 'failed'],
      [flakyEvents[1]!, 'delivered'],
    ] as const)
      await prisma.delivery.create({
        data: { organizationId: viewer.orgId, eventId, destinationId: destination.id, status },
      });

    const stats = await service().summary(viewer, {});
    expect(stats.top_failing).toEqual({
      rules: [
        {
          rule_id: flaky.id,
          name: 'st-flaky',
          source: 'st-flaky',
          target_url: 'https://st-flaky.example.com/',
          total: 4,
          delivered: 1,
          failed: 2,
          failure_rate: 2 / 3,
        },
        {
          rule_id: broken.id,
          name: 'st-broken',
          source: 'st-broken',
          target_url: 'https://st-broken.example.com/',
          total: 1,
          delivered: 0,
          failed: 1,
          failure_rate: 1,
        },
      ],
      destinations: [
        {
          destination_id: destination.id,
          name: 'crm',
          rule_id: flaky.id,
          target_url: 'https://crm.example.com/',
          total: 2,
          delivered: 1,
          failed: 1,
          failure_rate: 0.5,
        },
      ],
    });
  });
});
