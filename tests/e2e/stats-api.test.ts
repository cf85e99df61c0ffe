import type { OrgId } from '@relay/core';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';

type DeliveryStatus = 'queued' | 'delivered' | 'failed' | 'paused';
import { apiKeyCredential, createOrganization, startPipeline, userCredential, type Pipeline } from './harness';
import { newEventId } from '@relay/test-support';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

describe('GET /stats', () => {
  let pipeline: Pipeline;
  let viewer: string;
  let crm: { id: string; ruleId: string };
  let archive: { id: string; ruleId: string };
  const seed = (
    orgId: OrgId,
    source: string,
    status: 'queued' | 'delivered' | 'failed',
    createdAt: Date,
    extra: { latencyMs?: number; acknowledged?: boolean } = {},
  ) =>
    pipeline.store.prisma.event.create({
      data: {
        id: newEventId(),
        organizationId: orgId,
        source,
        status,
        body: Buffer.from('{}'),
        headers: {},
        createdAt,
        deliveredAt: extra.latencyMs === undefined ? null : new Date(createdAt.getTime() + extra.latencyMs),
        acknowledgedAt: extra.acknowledged ? createdAt : null,
      },
    });

  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
    viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const other = await createOrganization(pipeline, 'stats-other');
    const org = DEFAULT_ORGANIZATION_ID;
    const e10 = await seed(org, 'a', 'delivered', at(10), { latencyMs: 100 });
    const e70 = await seed(org, 'a', 'delivered', at(70), { latencyMs: 200 });
    const e80 = await seed(org, 'a', 'failed', at(80));
    await seed(org, 'a', 'failed', at(125), { acknowledged: true });
    await seed(org, 'b', 'queued', at(150));
    const early = await seed(org, 'a', 'delivered', at(-1), { latencyMs: 9000 }); // before the window
    await seed(org, 'a', 'delivered', at(180), { latencyMs: 9000 }); // the end is exclusive
    const foreign = await seed(other, 'a', 'delivered', at(20), { latencyMs: 5000 }); // another organization
    await seed(org, 'recent', 'delivered', new Date(Date.now() - 3600_000), { latencyMs: 50 });

    // Destination deliveries (routing): counted per destination, for the window's events only.
    const destination = async (orgId: OrgId, name: string) => {
      const rule = await pipeline.store.prisma.rule.create({
        data: { organizationId: orgId, name: `r-${name}`, source: `s-${name}`, targetUrl: 'https://example.com/' },
      });
      const row = await pipeline.store.prisma.destination.create({
        data: {
          organizationId: orgId,
          ruleId: rule.id,
          name,
          targetUrl: 'https://example.com/d',
          updatedAt: new Date(),
        },
      });
      return { id: row.id, ruleId: rule.id };
    };
    const deliver = (orgId: OrgId, eventId: string, destinationId: string, status: DeliveryStatus) =>
      pipeline.store.prisma.delivery.create({ data: { organizationId: orgId, eventId, destinationId, status } });
    crm = await destination(org, 'crm');
    archive = await destination(org, 'archive');
    const theirs = await destination(other, 'theirs');
    await deliver(org, e10.id, crm.id, 'delivered');
    await deliver(org, e70.id, crm.id, 'failed');
    await deliver(org, e80.id, crm.id, 'paused');
    await deliver(org, e10.id, archive.id, 'delivered');
    await deliver(org, early.id, archive.id, 'failed'); // its event is before the window
    await deliver(other, foreign.id, theirs.id, 'delivered');
  });
  afterAll(() => pipeline.close());

  it('counts by status and source, success rate, latency percentiles and a bucketed series', async () => {
    const res = await pipeline.http
      .get('/stats')
      .query({ from: at(0).toISOString(), to: at(180).toISOString(), bucket: '1h' })
      .set('authorization', viewer)
      .expect(200);
    expect(res.body).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-01T03:00:00.000Z',
      bucket: '1h',
      bucket_seconds: 3600,
      total: 5,
      by_status: { queued: 1, delivered: 2, failed: 2, paused: 0, ignored: 0 },
      needs_attention: 1,
      success_rate: 0.5,
      latency_ms: { p50: 150, p95: 195, p99: 199 },
      by_source: [
        { source: 'a', total: 4, queued: 0, delivered: 2, failed: 2, paused: 0, ignored: 0 },
        { source: 'b', total: 1, queued: 1, delivered: 0, failed: 0, paused: 0, ignored: 0 },
      ],
      by_destination: [
        {
          destination_id: crm.id,
          name: 'crm',
          rule_id: crm.ruleId,
          total: 3,
          queued: 0,
          delivered: 1,
          failed: 1,
          paused: 1,
          success_rate: 0.5,
        },
        {
          destination_id: archive.id,
          name: 'archive',
          rule_id: archive.ruleId,
          total: 1,
          queued: 0,
          delivered: 1,
          failed: 0,
          paused: 0,
          success_rate: 1,
        },
      ],
      // The seeded events name no rule; crm's failed delivery is the window's only failing target.
      top_failing: {
        rules: [],
        destinations: [
          {
            destination_id: crm.id,
            name: 'crm',
            rule_id: crm.ruleId,
            target_url: 'https://example.com/d',
            total: 3,
            delivered: 1,
            failed: 1,
            failure_rate: 0.5, // a paused delivery has not finished
          },
        ],
      },
      series: [
        { start: '2026-01-01T00:00:00.000Z', total: 1, queued: 0, delivered: 1, failed: 0, paused: 0, ignored: 0 },
        { start: '2026-01-01T01:00:00.000Z', total: 2, queued: 0, delivered: 1, failed: 1, paused: 0, ignored: 0 },
        { start: '2026-01-01T02:00:00.000Z', total: 2, queued: 1, delivered: 0, failed: 1, paused: 0, ignored: 0 },
      ],
    });
  });

  it('defaults to the last 24 hours in 5-minute buckets, and an empty window has nulls, not zeros', async () => {
    // The window ends when the api answers: bracketed by the clock before and after the request.
    const before = Date.now();
    const res = await pipeline.http.get('/stats').set('authorization', viewer).expect(200);
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(24 * 3600_000);
    expect(Date.parse(res.body.to)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(res.body.to)).toBeLessThanOrEqual(Date.now());
    expect(res.body).toMatchObject({
      bucket: '5m',
      total: 1,
      by_status: { delivered: 1 },
      success_rate: 1,
      latency_ms: { p50: 50 },
    });
    expect(res.body.series).toHaveLength(288);
    expect(res.body.series.reduce((n: number, b: { total: number }) => n + b.total, 0)).toBe(1);

    const empty = await pipeline.http
      .get('/stats')
      .query({ from: '2020-01-01T00:00:00Z', to: '2020-03-31T00:00:00Z' })
      .set('authorization', viewer)
      .expect(200);
    expect(empty.body).toMatchObject({
      bucket: '1d',
      total: 0,
      success_rate: null,
      latency_ms: { p50: null, p95: null, p99: null },
      by_source: [],
      by_destination: [],
      top_failing: { rules: [], destinations: [] },
    });
    expect(empty.body.series).toHaveLength(90);
  });

  it('refuses bad windows and buckets with the field named', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ from: at(60).toISOString(), to: at(0).toISOString() }, 'from'],
      [{ from: '2025-01-01T00:00:00Z', to: '2025-06-01T00:00:00Z' }, 'from'],
      [{ from: '2025-01-01T00:00:00Z', to: '2025-02-01T00:00:00Z', bucket: '1m' }, 'bucket'],
      [{ bucket: '2h' }, 'bucket'],
      [{ from: 'yesterday' }, 'from'],
      [{ window: '1d' }, ''],
    ];
    for (const [query, field] of cases) {
      const res = await pipeline.http.get('/stats').query(query).set('authorization', viewer).expect(400);
      expect({ query, code: res.body.code, fields: res.body.errors.map((e: { field: string }) => e.field) }).toEqual({
        query,
        code: 'validation_failed',
        fields: [field],
      });
    }
  });

  it('needs events:read', async () => {
    await pipeline.http.get('/stats').expect(401);
    await pipeline.http
      .get('/stats')
      .set('authorization', await apiKeyCredential(pipeline, ['rules:read', 'webhooks:send']))
      .expect(403);
    await pipeline.http
      .get('/stats')
      .set('authorization', await apiKeyCredential(pipeline, ['events:read']))
      .expect(200);
  });
});
