import type { OrgId } from '@relay/core';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { apiKeyCredential, createOrganization, startPipeline, userCredential, type Pipeline } from './harness';
import { newEventId } from '@relay/test-support';

const T0 = Date.parse('2026-02-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const zero = { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0, ignored: 0 };

// GET /stats/rules (a traffic chart per rule in one call) and GET /events?rule_id= (a rule's recent events).
describe('GET /stats/rules and the events list by rule', () => {
  let pipeline: Pipeline;
  let viewer: string;
  let crm: string;
  let billing: string;
  let quiet: string;
  const rule = async (orgId: OrgId, name: string) =>
    (
      await pipeline.store.prisma.rule.create({
        data: { organizationId: orgId, name, source: `src-${name}`, targetUrl: 'https://example.com/' },
      })
    ).id;
  const seed = (orgId: OrgId, ruleId: string | null, status: 'queued' | 'delivered' | 'failed', createdAt: Date) =>
    pipeline.store.prisma.event.create({
      data: {
        id: newEventId(),
        organizationId: orgId,
        source: 'rs',
        ruleId,
        status,
        body: Buffer.from('{}'),
        headers: {},
        createdAt,
      },
    });

  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
    viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const org = DEFAULT_ORGANIZATION_ID;
    const other = await createOrganization(pipeline, 'rule-stats-other');
    crm = await rule(org, 'rs-crm');
    billing = await rule(org, 'rs-billing');
    quiet = await rule(org, 'rs-quiet');
    const theirs = await rule(other, 'rs-theirs');
    await seed(org, crm, 'delivered', at(5));
    await seed(org, crm, 'delivered', at(10));
    await seed(org, crm, 'failed', at(70));
    await seed(org, billing, 'queued', at(130));
    await seed(org, null, 'delivered', at(20)); // no rule routed it (the default target)
    await seed(org, crm, 'delivered', at(-1)); // before the window
    await seed(other, theirs, 'delivered', at(30)); // another organization's rule
  });
  afterAll(() => pipeline.close());

  it('counts per rule with a series each, the busiest first, in one call', async () => {
    const res = await pipeline.http
      .get('/stats/rules')
      .query({ from: at(0).toISOString(), to: at(180).toISOString() })
      .set('authorization', viewer)
      .expect(200);
    expect(res.body).toEqual({
      from: '2026-02-01T00:00:00.000Z',
      to: '2026-02-01T03:00:00.000Z',
      // At most 48 buckets by default: 5 minutes over 3 hours gives 36.
      bucket: '5m',
      bucket_seconds: 300,
      rules: [
        expect.objectContaining({ rule_id: crm, total: 3, delivered: 2, failed: 1, queued: 0 }),
        expect.objectContaining({ rule_id: billing, total: 1, queued: 1, delivered: 0 }),
      ],
    });
    const [crmSeries] = res.body.rules;
    expect(crmSeries.series).toHaveLength(36);
    expect(crmSeries.series[0]).toEqual({ start: '2026-02-01T00:00:00.000Z', ...zero });
    expect(crmSeries.series[1]).toEqual({ start: '2026-02-01T00:05:00.000Z', ...zero, total: 1, delivered: 1 });
    expect(crmSeries.series[2]).toEqual({ start: '2026-02-01T00:10:00.000Z', ...zero, total: 1, delivered: 1 });
    expect(crmSeries.series[14]).toEqual({ start: '2026-02-01T01:10:00.000Z', ...zero, total: 1, failed: 1 });
  });

  it('defaults to the last 24 hours hourly, and narrows to one rule with rule_id', async () => {
    const recent = await seed(DEFAULT_ORGANIZATION_ID, quiet, 'failed', new Date(Date.now() - 3600_000));
    const all = await pipeline.http.get('/stats/rules').set('authorization', viewer).expect(200);
    expect(all.body).toMatchObject({ bucket: '1h', bucket_seconds: 3600 });
    expect(all.body.rules).toEqual([expect.objectContaining({ rule_id: quiet, total: 1, failed: 1 })]);
    expect(all.body.rules[0].series).toHaveLength(24);

    const one = await pipeline.http
      .get('/stats/rules')
      .query({ from: at(0).toISOString(), to: at(180).toISOString(), bucket: '1h', rule_id: billing })
      .set('authorization', viewer)
      .expect(200);
    expect(one.body.rules).toEqual([
      {
        rule_id: billing,
        ...zero,
        total: 1,
        queued: 1,
        series: [
          { start: '2026-02-01T00:00:00.000Z', ...zero },
          { start: '2026-02-01T01:00:00.000Z', ...zero },
          { start: '2026-02-01T02:00:00.000Z', ...zero, total: 1, queued: 1 },
        ],
      },
    ]);
    await pipeline.store.prisma.event.delete({ where: { id: recent.id } });
  });

  it('refuses a bad rule_id or bucket with the field named, and needs events:read', async () => {
    for (const [query, field] of [
      [{ rule_id: 'crm' }, 'rule_id'],
      [{ bucket: '2h' }, 'bucket'],
    ] as const) {
      const res = await pipeline.http.get('/stats/rules').query(query).set('authorization', viewer).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    await pipeline.http.get('/stats/rules').expect(401);
    await pipeline.http
      .get('/stats/rules')
      .set('authorization', await apiKeyCredential(pipeline, ['rules:read']))
      .expect(403);
  });

  it('lists the events a rule routed with GET /events?rule_id=, newest first', async () => {
    const res = await pipeline.http.get('/events').query({ rule_id: crm }).set('authorization', viewer).expect(200);
    expect(res.body.events.map((e: { provider_id: string; status: string }) => [e.provider_id, e.status])).toEqual([
      [crm, 'failed'],
      [crm, 'delivered'],
      [crm, 'delivered'],
      [crm, 'delivered'],
    ]);
    const bad = await pipeline.http.get('/events').query({ rule_id: 'x' }).set('authorization', viewer).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['rule_id']);
  });
});
