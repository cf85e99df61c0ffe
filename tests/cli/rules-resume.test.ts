import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { startCliRelay, type CliRelay } from './cli-harness';

// `relay rules resume <id>` and `paused` in the CLI: the event filter, the rule's health in its detail.
describe('relay rules resume', () => {
  let relay: CliRelay;
  let target: TargetServer;
  let admin: string;
  beforeAll(async () => {
    [relay, target] = await Promise.all([startCliRelay(), startTargetServer()]);
    admin = await relay.loginAs('admin');
  });
  afterAll(async () => {
    await relay.close();
    await target.close();
  });

  it('shows an unhealthy rule, lists its paused events, and resumes it: the events are delivered', async () => {
    const prisma = relay.pipeline.store.prisma;
    const rule = await prisma.rule.create({
      data: {
        name: randomUUID(),
        organizationId: DEFAULT_ORGANIZATION_ID,
        source: 'cli-gone',
        targetUrl: `${target.url}/cli-gone`,
        health: 'unhealthy',
        unhealthyReason: 'gone',
        unhealthySince: new Date('2026-01-02T03:04:05Z'),
      },
    });
    const res = await relay.pipeline.http
      .post('/cli-gone')
      .set('content-type', 'application/json')
      .send('{"n":1}')
      .expect(202);
    const id = res.body.id as string;
    await relay.pipeline.waitForStatus(id, 'paused');

    const shown = await relay.run(admin, ['rules', 'show', rule.id]);
    expect(shown.stdout).toMatch(/health:\s+unhealthy since 2026-01-02T03:04:05.000Z \(the target answered 410 Gone\)/);
    const paused = await relay.run(admin, ['events', 'list', '--status', 'paused', '--json']);
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout).events.map((e: { id: string }) => e.id)).toEqual([id]);

    const resumed = await relay.run(admin, ['rules', 'resume', rule.id]);
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(resumed.stdout).toContain(`Resumed rule ${rule.id}: 1 paused event queued again.`);
    expect(resumed.stdout).toMatch(/health:\s+healthy/);
    await relay.pipeline.waitForStatus(id, 'delivered');

    const unknown = await relay.run(admin, ['rules', 'resume', '00000000-0000-7000-8000-00000000dead']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('not_found');
  });
});
