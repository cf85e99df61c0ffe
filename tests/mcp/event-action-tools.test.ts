import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ALL_SCOPES } from './mcp-harness';
import { callFails, callOk, startEventFixture, type EventFixture } from './event-fixture';

// The write tools act through the REST API as the key: a real effect, the same audit entries, the same refusals.
let fx: EventFixture;
let key: string;
let admin: Client;

beforeAll(async () => {
  fx = await startEventFixture();
  key = await fx.relay.key(ALL_SCOPES);
  admin = await fx.relay.connect(key);
});
afterAll(() => fx.close());

const auditOf = (action: string, resourceId?: string) =>
  fx.relay.pipeline.store.prisma.auditEntry.findMany({ where: { action, ...(resourceId ? { resourceId } : {}) } });

describe('event action tools', () => {
  it('retry_event delivers a failed event once its target answers 200, audited with the key', async () => {
    // Three attempts (the run's budget) answered 500, then the target recovers.
    const flaky = await fx.routeTo('flaky', 500, 500, 500, 200);
    const id = await fx.settled('flaky', 'failed');
    expect(await callOk(admin, 'retry_event', { id })).toEqual({
      id,
      status: 'queued',
      link: expect.stringMatching(new RegExp(`/app/events/${id}$`)),
    });
    expect(await fx.relay.pipeline.waitForStatus(id, 'delivered')).toMatchObject({ attemptCount: 4 });
    expect(flaky.requests).toHaveLength(4);
    const [entry] = await auditOf('event.retried', id);
    expect(entry?.metadata).toMatchObject({ api_key_id: await fx.keyIdOf(key) });
  });

  it('acknowledge_event takes a failed event out of needs attention; again changes nothing', async () => {
    await fx.routeTo('broken', 500);
    const id = await fx.settled('broken', 'failed');
    const acked = await callOk(admin, 'acknowledge_event', { id });
    expect(acked).toMatchObject({ id, status: 'failed', acknowledged: true });
    const first = (await fx.relay.pipeline.eventById(id))!.acknowledgedAt;
    expect(first).not.toBeNull();
    await callOk(admin, 'acknowledge_event', { id });
    expect((await fx.relay.pipeline.eventById(id))!.acknowledgedAt).toEqual(first);
    const attention = await callOk<{ events: { id: string }[] }>(admin, 'list_events', { needs_attention: true });
    expect(attention.events.map((e) => e.id)).not.toContain(id);
    const [entry] = await auditOf('event.acknowledged', id);
    expect(entry?.metadata).toMatchObject({ api_key_id: await fx.keyIdOf(key) });

    const delivered = await fx.settled('fine', 'delivered');
    expect(await callFails(admin, 'acknowledge_event', { id: delivered })).toMatch(/\[event_not_failed\]$/);
  });

  it('delete_event removes the event, audited with the key; a second delete says it is gone', async () => {
    const id = await fx.settled('doomed', 'delivered');
    expect(await callOk(admin, 'delete_event', { id })).toEqual({ id, deleted: true });
    expect(await fx.relay.pipeline.eventById(id)).toBeNull();
    const [entry] = await auditOf('event.deleted', id);
    expect(entry?.metadata).toMatchObject({ api_key_id: await fx.keyIdOf(key) });
    expect(await callFails(admin, 'delete_event', { id })).toBe('No such event. [not_found]');
  });

  it('bulk_retry_events retries the failed events a filter selects, and refuses an unbounded selection', async () => {
    const target = await fx.routeTo('bulk', 500);
    const ids = [await fx.settled('bulk', 'failed'), await fx.settled('bulk', 'failed')];
    const other = await fx.settled('bulk-other', 'delivered');
    target.replyWith(200);
    const result = await callOk<{ affected: number; ids: string[]; truncated: boolean; link: string }>(
      admin,
      'bulk_retry_events',
      { source: 'bulk', status: 'failed' },
    );
    expect(result).toMatchObject({ affected: 2, truncated: false });
    expect(new Set(result.ids)).toEqual(new Set(ids));
    expect(result.link).toMatch(/\/app\/events\?status=failed&source=bulk$/);
    for (const id of ids) await fx.relay.pipeline.waitForStatus(id, 'delivered');
    expect((await fx.relay.pipeline.eventById(other))!.attemptCount).toBe(1);
    const [entry] = await auditOf('events.bulk_retried');
    expect(entry?.metadata).toMatchObject({ api_key_id: await fx.keyIdOf(key), affected: 2, by: 'filter' });

    expect(await callFails(admin, 'bulk_retry_events', {})).toMatch(/\[bulk_all_required\]$/);
    expect(await callFails(admin, 'bulk_retry_events', { ids, source: 'bulk' })).toMatch(/either ids or filters/);
    const byIds = await callOk<{ affected: number }>(admin, 'bulk_retry_events', { ids: [other] });
    expect(byIds.affected).toBe(1);
  });

  it('annotates reads, destructive and idempotent tools', async () => {
    const { tools } = await admin.listTools();
    const hints = (name: string) => tools.find((t) => t.name === name)?.annotations;
    for (const read of ['list_events', 'get_event', 'get_event_payload', 'list_event_attempts', 'get_stats'])
      expect(hints(read)).toMatchObject({ readOnlyHint: true });
    expect(hints('retry_event')).toMatchObject({ destructiveHint: false, idempotentHint: false });
    expect(hints('acknowledge_event')).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(hints('delete_event')).toMatchObject({ destructiveHint: true });
    expect(hints('bulk_retry_events')).toMatchObject({ destructiveHint: true });
  });
});

describe('event tools outside the credential', () => {
  const WRITES = ['retry_event', 'acknowledge_event', 'delete_event', 'bulk_retry_events'];

  it('an events:read key sees no write tool, and retry_event is refused with the event untouched', async () => {
    await fx.routeTo('refused', 500);
    const id = await fx.settled('refused', 'failed');
    const before = (await fx.relay.pipeline.eventById(id))!;
    const reader = await fx.relay.connect(await fx.relay.key(['events:read']));
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_events', 'get_event', 'get_stats']));
    for (const write of WRITES) expect(names).not.toContain(write);

    expect(await callFails(reader, 'retry_event', { id })).toBe(
      'retry_event needs the webhooks:send scope with the admin role; this credential is admin with ' +
        'events:read. Nothing was done: ask an admin for a key with that scope.',
    );
    expect(await fx.relay.pipeline.eventById(id)).toEqual(before);
    expect(await auditOf('event.retried', id)).toEqual([]);
  });

  it("a viewer's token reads events but has no write tool", async () => {
    const id = await fx.settled('viewed', 'delivered');
    const viewer = await fx.relay.connect(await fx.relay.token('viewer'));
    const names = (await viewer.listTools()).tools.map((t) => t.name);
    for (const write of WRITES) expect(names).not.toContain(write);
    expect(await callOk(viewer, 'get_event', { id })).toMatchObject({ id, status: 'delivered' });
    expect(await callFails(viewer, 'delete_event', { id })).toMatch(/^delete_event needs the organization:manage/);
    expect(await fx.relay.pipeline.eventById(id)).not.toBeNull();
  });
});
