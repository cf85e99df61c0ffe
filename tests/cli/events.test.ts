import type { TargetServer } from '@relay/test-support';
import { userCredential } from '../e2e/harness';
import type { CliRelay } from './cli-harness';
import { startEventsFixture, type EventsFixture } from './events-fixture';

// `relay events …` against a real api and worker (see events-fixture.ts for the targets).
describe('relay events', () => {
  let fx: EventsFixture;
  let relay: CliRelay;
  let bad: TargetServer;
  let admin: string;
  let adminHome: string;
  beforeAll(async () => {
    fx = await startEventsFixture();
    ({ relay, admin, bad } = fx);
    adminHome = await relay.loginAs('admin');
  });
  afterAll(() => fx.close());

  const delivered = (source: string) => fx.settled(source, 'delivered');
  const failed = (body?: object) => fx.settled('broken', 'failed', body);
  const api = async (path: string) => (await relay.pipeline.http.get(path).set('authorization', admin)).body;
  const run = (args: string[], input?: string) => relay.run(adminHome, args, { input });

  it('lists events with the filters of GET /events; --json is the API answer', async () => {
    const a = await delivered('github');
    const b = await delivered('github');
    const c = await failed();

    const byStatus = await run(['events', 'list', '--status', 'failed', '--json']);
    expect(byStatus.code).toBe(0);
    const page = JSON.parse(byStatus.stdout);
    expect(page).toMatchObject({ page: 1, per_page: 50 });
    expect(page.events.map((e: { id: string }) => e.id)).toContain(c);
    expect(page.events.every((e: { status: string }) => e.status === 'failed')).toBe(true);

    const bySource = await run(['events', 'list', '--source', 'github', '--from', '1h']);
    expect(bySource.code).toBe(0);
    const [header, ...rows] = bySource.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+SOURCE\s+STATUS\s+ATTEMPTS\s+DELIVERIES\s+REASON\s+RECEIVED$/);
    expect(rows).toHaveLength(2);
    // Newest first, full ids.
    expect(rows[0]).toMatch(new RegExp(`^${b}\\s+github\\s+delivered\\s+1\\s+\\d+s ago$`));
    expect(rows[1]).toContain(a);
    expect(bySource.stderr).toContain('page 1 of 1 (2 events)');

    const paged = JSON.parse((await run(['events', 'list', '--per-page', '1', '--page', '2', '--json'])).stdout);
    expect(paged).toMatchObject({ page: 2, per_page: 1, total: page.total + 2 });

    const none = await run(['events', 'list', '--to', '1h']);
    expect(none.stdout.trim()).toBe('No events match.');
    const tooMany = await run(['events', 'list', '--per-page', '201']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain('at most 200');
    const badStatus = await run(['events', 'list', '--status', 'lost']);
    expect(badStatus.code).toBe(2);
  });

  it('shows an event (summary, headers, payload) and its attempts', async () => {
    const id = await failed({ order: { id: 42, items: ['a'] } });
    const show = await run(['events', 'show', id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`Event ${id}`);
    expect(show.stdout).toMatch(/source:\s+broken/);
    expect(show.stdout).toMatch(/status:\s+failed/);
    expect(show.stdout).toMatch(/Headers\n(.*\n)*\s+content-type: application\/json/);
    expect(show.stdout).toContain('Payload\n{\n  "order": {\n    "id": 42,');
    const json = JSON.parse((await run(['events', 'show', id, '--json'])).stdout);
    expect(json).toMatchObject({ id, source: 'broken', status: 'failed', payload: { order: { id: 42 } } });

    const attempts = await run(['events', 'attempts', id]);
    const lines = attempts.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\s*#\s+KIND\s+RESULT\s+DURATION\s+TARGET\s+ERROR\s+FINISHED$/);
    expect(lines.slice(1)).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^\\s*1\\s+main\\s+500\\s+\\d+ ms\\s+${bad.url}/in`));
    const asJson = JSON.parse((await run(['events', 'attempts', id, '--json'])).stdout);
    expect(asJson.attempts.map((a: { response_status: number }) => a.response_status)).toEqual([500, 500, 500]);

    const missing = await run(['events', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: No such event\. \[not_found\]$/m);
  });

  it('shows credential headers masked, and finds no event by one', async () => {
    const res = await relay.pipeline.http
      .post('/cli-sensitive')
      .set({ 'content-type': 'application/json', 'x-api-key': 'cli-secret-123', authorization: 'Bearer cli-abc-456' })
      .send('{"n":1}')
      .expect(202);
    const id = res.body.id as string;
    const show = await run(['events', 'show', id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/x-api-key: \[masked\]/);
    expect(show.stdout).toMatch(/authorization: Bearer \[masked\]/);
    expect(show.stdout + (await run(['events', 'show', id, '--json'])).stdout).not.toMatch(
      /cli-secret-123|cli-abc-456/,
    );
    const found = await run(['events', 'list', '--search', 'cli-secret-123']);
    expect(found.stdout.trim()).toBe('No events match.');
  });

  it('retries a failed event (a new attempt) and acknowledges another', async () => {
    const id = await failed();
    bad.replyWith(200);
    try {
      const retry = await run(['events', 'retry', id]);
      expect(retry.code).toBe(0);
      expect(retry.stdout).toContain(`Event ${id} is queued`);
      await relay.pipeline.waitForStatus(id, 'delivered');
      expect((await relay.pipeline.attemptsOf(id)).map((a) => a.responseStatus)).toEqual([500, 500, 500, 200]);
    } finally {
      bad.replyWith(500);
    }
    const other = await failed();
    const ack = await run(['events', 'ack', other, '--json']);
    expect(ack.code).toBe(0);
    expect(JSON.parse(ack.stdout)).toMatchObject({ id: other, acknowledged: true });
    expect((await api(`/events/${other}`)).acknowledged).toBe(true);
    const attention = JSON.parse((await run(['events', 'list', '--needs-attention', '--json'])).stdout);
    expect(attention.events.map((e: { id: string }) => e.id)).not.toContain(other);
    // Acknowledging a delivered event is the API's refusal, exit 1 with its code.
    const again = await run(['events', 'ack', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/\[event_not_failed\]$/m);
  });

  it('deletes an event with --yes; without it, on a non-terminal, refuses (exit 2) and deletes nothing', async () => {
    const id = await delivered('github');
    const refused = await run(['events', 'delete', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(await relay.pipeline.eventById(id)).not.toBeNull();
    const deleted = await run(['events', 'delete', id, '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(`Deleted event ${id}`);
    expect(await relay.pipeline.eventById(id)).toBeNull();
  });

  it("refuses a viewer's retry with exit 1 and the API's message and code", async () => {
    const id = await failed();
    const viewer = await relay.loginAs('viewer');
    const direct = await relay.pipeline.http
      .post(`/events/${id}/retry`)
      .set('authorization', (await userCredential(relay.pipeline, 'viewer')).authorization);
    expect(direct.status).toBe(403);
    const refused = await relay.run(viewer, ['events', 'retry', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`error: ${direct.body.detail ?? direct.body.title} [${direct.body.code}]`);
    expect((await relay.pipeline.attemptsOf(id)).length).toBe(3);
  });
});
