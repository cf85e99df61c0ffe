import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startCliRelay, type CliRelay } from './cli-harness';

// Destination deliveries in the CLI (issue 29, routing): `events show` lists them, `events list` filters by them,
// `events retry|ack --destination` and `bulk-retry --destination` act on one destination's delivery alone, and
// `rules dry-run --destination` tries a destination's saved filter.
describe('relay events: destination deliveries', () => {
  let relay: CliRelay;
  let primary: TargetServer;
  let fine: TargetServer;
  let flaky: TargetServer;
  let admin: string;
  beforeAll(async () => {
    // The test counts each target's requests: long job locks and attempt timeouts, so a loaded machine's stalled
    // event loop neither redelivers a job past the harness's 1 s lock nor times out an answer and retries it.
    [relay, primary, fine, flaky] = await Promise.all([
      startCliRelay({}, { WORKER_LOCK_DURATION_MS: '30000', DELIVERY_TIMEOUT_MS: '30000' }),
      startTargetServer(),
      startTargetServer(),
      startTargetServer(),
    ]);
    admin = await relay.loginAs('admin');
  });
  afterAll(async () => {
    await relay.close();
    await Promise.all([primary, fine, flaky].map((t) => t.close()));
  });

  const prisma = () => relay.pipeline.store.prisma;
  const ok = async (args: string[]) => {
    const result = await relay.run(admin, args);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return result.stdout;
  };
  const idIn = (pattern: RegExp, text: string) => pattern.exec(text)![1]!;
  const deliveryStatus = (eventId: string, destinationId: string, status: string) =>
    waitFor(
      async () => {
        const delivery = await prisma().delivery.findFirst({ where: { eventId, destinationId } });
        return delivery?.status === status ? delivery : undefined;
      },
      15_000,
      `the delivery of ${eventId} to ${destinationId} to be ${status}`,
    );
  const listed = async (args: string[]) =>
    (JSON.parse(await ok(['events', 'list', ...args, '--json'])) as { events: { id: string }[] }).events.map(
      (e) => e.id,
    );

  let ruleId: string;
  let fineId: string;
  let flakyId: string;
  beforeAll(async () => {
    ruleId = idIn(
      /Created rule ([0-9a-f-]{36})/,
      await ok(['rules', 'create', '--source', 'cli-fan', '--target', `${primary.url}/in`]),
    );
    const add = async (name: string, target: TargetServer) =>
      idIn(
        /Added destination ([0-9a-f-]{36})/,
        await ok([
          'rules',
          'dest',
          'add',
          ruleId,
          '--name',
          name,
          '--target',
          `${target.url}/in`,
          '--max-attempts',
          '1',
        ]),
      );
    fineId = await add('fine', fine);
    flakyId = await add('flaky', flaky);
  });

  it('shows the deliveries, filters the list by them, and acks then retries the failed one alone', async () => {
    flaky.replyWith(500);
    const eventId = await relay.ingest('cli-fan', { n: 1 });
    await relay.pipeline.waitForStatus(eventId, 'delivered');
    await deliveryStatus(eventId, fineId, 'delivered');
    await deliveryStatus(eventId, flakyId, 'failed');

    const shown = await ok(['events', 'show', eventId]);
    expect(shown).toMatch(/status:\s+delivered/);
    expect(shown).toMatch(/Deliveries \(2\)\n\s+DESTINATION\s+STATUS\s+ATTEMPTS\s+REASON\s+LAST ERROR/);
    expect(shown).toMatch(/\n\s+fine\s+delivered\s+1\s/);
    expect(shown).toMatch(/\n\s+flaky\s+failed\s+1\s+\S+\s+HTTP 500/);
    const table = await relay.run(admin, ['events', 'list', '--source', 'cli-fan']);
    // The primary's attempt count is not this test's business (a loaded machine may time one out and retry it).
    expect(table.stdout).toMatch(new RegExp(`${eventId}\\s+cli-fan\\s+delivered\\s+\\d+\\s+1/2 delivered, 1 failed`));

    expect(await listed(['--delivery-status', 'failed'])).toEqual([eventId]);
    expect(await listed(['--delivery-status', 'failed', '--destination', fineId])).toEqual([]);
    expect(await listed(['--destination', fineId])).toEqual([eventId]);
    const bad = await relay.run(admin, ['events', 'list', '--delivery-status', 'ignored']);
    expect(bad.code).toBe(2);

    const acked = await ok(['events', 'ack', eventId, '--destination', 'flaky']);
    expect(acked).toContain(`The delivery of event ${eventId} to destination ${flakyId} is acknowledged.`);
    expect(await ok(['events', 'show', eventId])).toMatch(/\n\s+flaky\s+failed \(ack\)/);

    flaky.replyWith(200);
    const retried = await ok(['events', 'retry', eventId, '--destination', flakyId]);
    expect(retried).toContain(`The delivery of event ${eventId} to destination ${flakyId} is queued`);
    await deliveryStatus(eventId, flakyId, 'delivered');
    // The primary and the other destination were not sent again.
    expect(primary.requests).toHaveLength(1);
    expect(fine.requests).toHaveLength(1);
    expect(await listed(['--delivery-status', 'failed'])).toEqual([]);

    const unknown = await relay.run(admin, ['events', 'retry', eventId, '--destination', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`rule ${ruleId} has no destination named "nope"`);
  });

  it("bulk-retry --destination retries that destination's failed deliveries, not the primary", async () => {
    flaky.replyWith(500);
    const before = { primary: primary.requests.length, flaky: flaky.requests.length };
    const events = [await relay.ingest('cli-fan', { n: 2 }), await relay.ingest('cli-fan', { n: 3 })];
    for (const id of events) await deliveryStatus(id, flakyId, 'failed');
    for (const id of events) await relay.pipeline.waitForStatus(id, 'delivered');
    flaky.replyWith(200);
    const bulk = await ok(['events', 'bulk-retry', '--destination', flakyId, '--delivery-status', 'failed']);
    expect(bulk).toContain(`Retried the deliveries to destination ${flakyId} of 2 event(s)`);
    for (const id of events) await deliveryStatus(id, flakyId, 'delivered');
    expect(primary.requests).toHaveLength(before.primary + 2);
    expect(flaky.requests).toHaveLength(before.flaky + 4);
  });

  it("rules dry-run --destination tries the destination's saved filter, or a typed one for it", async () => {
    const dryRule = idIn(
      /Created rule ([0-9a-f-]{36})/,
      await ok(['rules', 'create', '--source', 'cli-fan-dry', '--target', `${primary.url}/dry`]),
    );
    await ok(
      ['rules', 'dest', 'add', dryRule, '--name', 'big', '--target', `${fine.url}/big`].concat([
        '--filter',
        '{"body": {"total": {"$gt": 100}}}',
      ]),
    );
    const ids = [];
    for (const total of [50, 150, 250]) ids.push(await relay.ingest('cli-fan-dry', { total }));
    const saved = await ok(['rules', 'dry-run', dryRule, '--destination', 'big']);
    expect(saved).toContain('Matched 2 of the 3 webhooks tried.');
    expect(saved).toMatch(new RegExp(`${ids[0]}\\s+ignored`));
    const typed = JSON.parse(
      await ok(['rules', 'dry-run', dryRule, '--destination', 'big', '--filter-cel', 'body.total < 100', '--json']),
    ) as { matched: number; not_matched: number };
    expect(typed).toMatchObject({ matched: 1, not_matched: 2 });
  });
});
