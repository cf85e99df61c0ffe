import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { newEventId, type TargetServer, waitFor } from '@relay/test-support';
import type { CliRelay } from './cli-harness';
import { startEventsFixture, type EventsFixture } from './events-fixture';

// `relay events bulk-retry|bulk-delete` against a real api and worker (see events-fixture.ts for the targets).
describe('relay events bulk-retry and bulk-delete', () => {
  let fx: EventsFixture;
  let relay: CliRelay;
  let ok: TargetServer;
  let admin: string;
  let home: string;
  beforeAll(async () => {
    fx = await startEventsFixture();
    ({ relay, admin, ok } = fx);
    home = await relay.loginAs('admin');
  });
  afterAll(() => fx.close());

  const ingest = (source: string) => relay.ingest(source);
  const settled = (source: string, status: 'delivered' | 'failed') => fx.settled(source, status);
  const run = (args: string[]) => relay.run(home, args);
  const attemptCount = async (id: string) => (await relay.pipeline.eventById(id))!.attemptCount;
  const total = async (query = '') =>
    (await relay.pipeline.http.get(`/events?per_page=1${query}`).set('authorization', admin)).body.total as number;

  it('retries the events a filter selects, and only those', async () => {
    const failedIds = [await settled('broken', 'failed'), await settled('broken', 'failed')];
    const deliveredId = await settled('github', 'delivered');
    const retried = await run(['events', 'bulk-retry', '--status', 'failed', '--json']);
    expect(retried.code).toBe(0);
    const answer = JSON.parse(retried.stdout);
    expect(answer).toMatchObject({ affected: 2, calls: 1 });
    expect([...answer.ids].sort()).toEqual([...failedIds].sort());
    // Each retried event ran again (three more 500s); the delivered one was left alone.
    for (const id of failedIds)
      await waitFor(
        async () => (await attemptCount(id)) === 6 && (await relay.pipeline.eventById(id))!.status === 'failed',
      );
    expect(await attemptCount(deliveredId)).toBe(1);
    expect(ok.requests.filter((r) => r.headers['webhook-id'] === deliveredId)).toHaveLength(1);
  });

  it('retries the events given by --id (repeated or comma-separated)', async () => {
    const [a, b, c] = [await settled('github', 'delivered'), await settled('github', 'delivered'), await ingest('x')];
    await relay.pipeline.waitForStatus(c, 'delivered');
    const retried = await run(['events', 'bulk-retry', '--id', `${a},${b}`, '--id', c]);
    expect(retried.code).toBe(0);
    expect(retried.stdout.trim()).toBe('Retried 3 event(s) (queued events are skipped).');
    for (const id of [a, b, c]) await waitFor(async () => (await attemptCount(id)) === 2);
  });

  it('refuses a bulk action without a selection, or with two (exit 2), touching nothing', async () => {
    const before = await total();
    for (const args of [
      ['events', 'bulk-retry'],
      ['events', 'bulk-delete', '--yes'],
      ['events', 'bulk-delete', '--all', '--status', 'failed', '--yes'],
    ]) {
      const refused = await run(args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^error: choose the events/m);
    }
    expect(await total()).toBe(before);
  });

  it('deletes by filter across calls when more than the cap of 1000 match', async () => {
    // Seeded straight into the database: 1205 deliveries would only slow the test down.
    const now = Date.now();
    await relay.pipeline.store.prisma.event.createMany({
      data: Array.from({ length: 1205 }, (_, i) => ({
        id: newEventId(),
        organizationId: DEFAULT_ORGANIZATION_ID,
        source: 'seeded',
        body: Buffer.from('{}'),
        headers: {},
        status: 'delivered' as const,
        createdAt: new Date(now - i),
      })),
    });
    const keep = await settled('github', 'delivered');
    const deleted = await run(['events', 'bulk-delete', '--source', 'seeded', '--yes', '--json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ affected: 1205, calls: 2 });
    expect(await total('&source=seeded')).toBe(0);
    expect(await relay.pipeline.eventById(keep)).not.toBeNull();
  });

  it('bulk-delete --all asks first (refused without a terminal), then deletes everything with --yes', async () => {
    await settled('github', 'delivered');
    const before = await total();
    const refused = await run(['events', 'bulk-delete', '--all']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Delete ${before} event(s) (all)`);
    expect(await total()).toBe(before);
    const deleted = await run(['events', 'bulk-delete', '--all', '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout.trim()).toBe(`Deleted ${before} event(s).`);
    expect(await total()).toBe(0);
  });
});
