import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { ALL_SCOPES } from './mcp-harness';
import { callFails, callOk, startEventFixture, type EventFixture } from './event-fixture';

// Destination deliveries (issue 29, routing) through the event tools: get_event lists them, list_events filters
// by them, retry_event, acknowledge_event and bulk_retry_events act on one destination's delivery with
// destination_id, and dry_run_rule_filter tries a destination's saved filter.
let fx: EventFixture;
let admin: Client;
let primary: TargetServer;
let flaky: TargetServer;
let fine: TargetServer;
let ruleId: string;
let flakyId: string;
let fineId: string;

beforeAll(async () => {
  fx = await startEventFixture();
  admin = await fx.relay.connect(await fx.relay.key(ALL_SCOPES));
  primary = await fx.routeTo('mcp-fan', 200);
  [flaky, fine] = await Promise.all([startTargetServer(), startTargetServer()]);
  ruleId = (await callOk<{ rules: { id: string; source: string }[] }>(admin, 'list_rules', {})).rules.find(
    (r) => r.source === 'mcp-fan',
  )!.id;
  const add = async (name: string, target: TargetServer, extra: Record<string, unknown> = {}) =>
    (
      await callOk<{ destination: { id: string } }>(admin, 'create_destination', {
        rule_id: ruleId,
        name,
        target_url: `${target.url}/in`,
        delivery_policy: { max_attempts: 1 },
        ...extra,
      })
    ).destination.id;
  flakyId = await add('flaky', flaky);
  fineId = await add('fine', fine, { filter: { body: { n: { $gte: 0 } } } });
});
afterAll(async () => {
  await fx.close();
  await Promise.all([flaky, fine].map((t) => t.close()));
});

const prisma = () => fx.relay.pipeline.store.prisma;
const deliveryStatus = (eventId: string, destinationId: string, status: string) =>
  waitFor(
    async () => {
      const delivery = await prisma().delivery.findFirst({ where: { eventId, destinationId } });
      return delivery?.status === status ? delivery : undefined;
    },
    15_000,
    `the delivery of ${eventId} to ${destinationId} to be ${status}`,
  );
const listed = async (args: Record<string, unknown>) =>
  (await callOk<{ events: { id: string }[] }>(admin, 'list_events', args)).events.map((e) => e.id);

describe('MCP event tools: destination deliveries', () => {
  it('get_event lists them; list_events filters; acknowledge_event and retry_event act on one alone', async () => {
    flaky.replyWith(500);
    const id = await fx.settled('mcp-fan', 'delivered', { n: 1 });
    await deliveryStatus(id, flakyId, 'failed');
    await deliveryStatus(id, fineId, 'delivered');

    const event = await callOk<{ status: string; deliveries: Record<string, unknown>[] }>(admin, 'get_event', { id });
    expect(event.status).toBe('delivered');
    expect(event.deliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          destination_id: flakyId,
          status: 'failed',
          attempt_count: 1,
          last_error: 'HTTP 500',
        }),
        expect.objectContaining({ destination_id: fineId, status: 'delivered' }),
      ]),
    );
    const summary = (
      await callOk<{ events: { id: string; delivery_counts: unknown }[] }>(admin, 'list_events', { source: 'mcp-fan' })
    ).events.find((e) => e.id === id);
    expect(summary?.delivery_counts).toEqual({ total: 2, queued: 0, delivered: 1, failed: 1, paused: 0 });
    expect(await listed({ delivery_status: 'failed' })).toEqual([id]);
    expect(await listed({ delivery_status: 'failed', destination_id: fineId })).toEqual([]);
    const attempts = await callOk<{ attempts: { kind: string; destination_id: string | null }[] }>(
      admin,
      'list_event_attempts',
      { id },
    );
    expect(attempts.attempts).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'destination', destination_id: flakyId })]),
    );

    await callOk(admin, 'acknowledge_event', { id, destination_id: flakyId });
    expect(
      (await prisma().delivery.findFirstOrThrow({ where: { eventId: id, destinationId: flakyId } })).acknowledgedAt,
    ).not.toBeNull();
    expect(await callFails(admin, 'acknowledge_event', { id, destination_id: fineId })).toMatch(
      /\[delivery_not_failed\]$/,
    );

    flaky.replyWith(200);
    expect(await callOk(admin, 'retry_event', { id, destination_id: flakyId })).toEqual({
      id,
      status: 'queued',
      destination_id: flakyId,
      link: expect.stringMatching(new RegExp(`/app/events/${id}$`)),
    });
    await deliveryStatus(id, flakyId, 'delivered');
    // The primary target and the other destination were not sent again.
    expect(primary.requests).toHaveLength(1);
    expect(fine.requests).toHaveLength(1);
  });

  it("bulk_retry_events with destination_id retries that destination's failed deliveries alone", async () => {
    flaky.replyWith(500);
    const before = primary.requests.length;
    const ids = [await fx.ingest('mcp-fan', { n: 2 }), await fx.ingest('mcp-fan', { n: 3 })];
    for (const id of ids) await deliveryStatus(id, flakyId, 'failed');
    flaky.replyWith(200);
    const result = await callOk<{ affected: number }>(admin, 'bulk_retry_events', {
      destination_id: flakyId,
      delivery_status: 'failed',
    });
    expect(result.affected).toBe(2);
    for (const id of ids) await deliveryStatus(id, flakyId, 'delivered');
    expect(primary.requests).toHaveLength(before + 2);
  });

  it("dry_run_rule_filter with destination_id tries that destination's saved filter", async () => {
    const run = await callOk<{ matched: number; not_matched: number }>(admin, 'dry_run_rule_filter', {
      id: ruleId,
      destination_id: fineId,
    });
    expect(run).toMatchObject({ matched: 3, not_matched: 0 });
    const typed = await callOk<{ matched: number; not_matched: number }>(admin, 'dry_run_rule_filter', {
      id: ruleId,
      destination_id: fineId,
      filter: { body: { n: 1 } },
    });
    expect(typed).toMatchObject({ matched: 1, not_matched: 2 });
  });

  it('get_stats reports each destination with its deliveries and a link to its failed ones', async () => {
    const stats = await callOk<{ top_destinations: Record<string, unknown>[] }>(admin, 'get_stats', {
      window: '24h',
    });
    const flakyRow = stats.top_destinations.find((d) => d.destination_id === flakyId);
    expect(flakyRow).toMatchObject({ name: 'flaky', rule_id: ruleId, total: 3, delivered: 3, failed: 0 });
    expect(flakyRow?.link).toMatch(new RegExp(`/app/events\\?delivery_status=failed&destination_id=${flakyId}$`));
    expect(stats.top_destinations.find((d) => d.destination_id === fineId)).toMatchObject({ total: 3, delivered: 3 });
  });
});
