import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startCliRelay, type CliRelay } from './cli-harness';

// `relay rules destinations add|list|show|update|remove|resume` (issue 29, routing) against the real api and worker.
describe('relay rules destinations', () => {
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

  const prisma = () => relay.pipeline.store.prisma;
  const ok = async (args: string[], input?: string) => {
    const result = await relay.run(admin, args, input === undefined ? {} : { input });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return result.stdout;
  };
  const createRule = async (source: string) =>
    /Created rule ([0-9a-f-]{36})/.exec(
      await ok(['rules', 'create', '--source', source, '--target', `${target.url}/${source}`]),
    )![1]!;

  it('adds with a filter file, headers and a policy; lists, shows by name, updates partly, removes', async () => {
    const ruleId = await createRule('cli-dest');
    const dir = await mkdtemp(path.join(tmpdir(), 'relay-cli-dest-'));
    const file = path.join(dir, 'filter.json');
    await writeFile(file, JSON.stringify({ body: { action: 'released' } }));
    const added = await ok(
      ['rules', 'destinations', 'add', ruleId, '--name', 'chat', '--target', 'https://chat.example.com/in'].concat(
        ['--filter', `@${file}`, '--set-header', 'x-team=ops', '--max-attempts', '3', '--timeout', '10s'],
        ['--description', 'releases to chat', '--signing-secret-stdin'],
      ),
      'a-destination-secret-0123\n',
    );
    const id = /Added destination ([0-9a-f-]{36})/.exec(added)![1]!;
    expect(added).toMatch(/filter:\s+\{"body":\{"action":"released"\}\}/);
    expect(added).toMatch(/signing:\s+own secret/);
    const row = await prisma().destination.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      ruleId,
      name: 'chat',
      targetUrl: 'https://chat.example.com/in',
      active: true,
      description: 'releases to chat',
      filter: { body: { action: 'released' } },
      outboundHeaders: { forward: [], set: { 'x-team': 'ops' }, remove: [] },
      deliveryPolicy: { max_attempts: 3, timeout_seconds: 10 },
    });
    expect(row.signingSecret).toEqual(expect.any(String));
    expect(row.signingSecret).not.toContain('a-destination-secret');

    // Without --name: the target's host; inactive.
    await ok(['rules', 'destinations', 'add', ruleId, '--target', 'https://archive.example.com/in', '--inactive']);
    const listed = await ok(['rules', 'destinations', 'list', ruleId]);
    expect(listed).toMatch(new RegExp(`${id}\\s+chat\\s+https://chat.example.com/in\\s+active`));
    expect(listed).toMatch(/archive\.example\.com\s+https:\/\/archive\.example\.com\/in\s+inactive/);
    const json = JSON.parse(await ok(['rules', 'dest', 'ls', ruleId, '--json'])) as {
      destinations: { name: string }[];
    };
    expect(json.destinations.map((d) => d.name)).toEqual(['chat', 'archive.example.com']);
    expect(await ok(['rules', 'destinations', 'show', ruleId, 'chat'])).toMatch(/delivery policy:\s+3 attempts/);

    // Partial changes keep the rest: --max-attempts keeps the timeout, --remove-header keeps the set headers.
    await ok(['rules', 'destinations', 'update', ruleId, 'chat', '--max-attempts', '8', '--remove-header', 'cookie']);
    await ok(['rules', 'destinations', 'update', ruleId, id, '--filter-cel', 'body.action == "published"']);
    expect(await prisma().destination.findUniqueOrThrow({ where: { id } })).toMatchObject({
      filter: { cel: 'body.action == "published"' },
      deliveryPolicy: { max_attempts: 8, timeout_seconds: 10 },
      outboundHeaders: { forward: [], set: { 'x-team': 'ops' }, remove: ['cookie'] },
    });
    const cleared = await ok(
      ['rules', 'destinations', 'update', ruleId, 'chat', '--no-filter', '--inactive', '--clear-signing-secret'].concat(
        ['--no-delivery-policy', '--clear-description', '--name', 'chat-2'],
      ),
    );
    expect(cleared).toMatch(/state:\s+inactive/);
    expect(await prisma().destination.findUniqueOrThrow({ where: { id } })).toMatchObject({
      name: 'chat-2',
      filter: null,
      active: false,
      signingSecret: null,
      deliveryPolicy: null,
      description: null,
    });

    const nothing = await relay.run(admin, ['rules', 'destinations', 'update', ruleId, id]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/nothing to change/);
    const unknown = await relay.run(admin, ['rules', 'destinations', 'show', ruleId, 'chat']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('has no destination named "chat"');
    const refused = await relay.run(admin, ['rules', 'destinations', 'add', ruleId, '--target', 'ftp://x.example']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/target_url/);

    const unconfirmed = await relay.run(admin, ['rules', 'destinations', 'remove', ruleId, 'chat-2']);
    expect(unconfirmed.code).toBe(2);
    expect(await ok(['rules', 'destinations', 'rm', ruleId, 'chat-2', '--yes'])).toContain(
      `Deleted destination chat-2 (${id}).`,
    );
    expect(await prisma().destination.findUnique({ where: { id } })).toBeNull();
    const audit = await prisma().auditEntry.findMany({ where: { resourceId: id }, orderBy: { createdAt: 'asc' } });
    expect(audit.map((a) => a.action)).toEqual([
      'destination.created',
      'destination.updated',
      'destination.updated',
      'destination.updated',
      'destination.deleted',
    ]);
  });

  it('shows an unhealthy destination and resumes it by name: its paused delivery is sent', async () => {
    const ruleId = await createRule('cli-dest-gone');
    const added = await ok([
      'rules',
      'destinations',
      'add',
      ruleId,
      '--name',
      'backup',
      '--target',
      `${target.url}/backup`,
    ]);
    const id = /Added destination ([0-9a-f-]{36})/.exec(added)![1]!;
    await prisma().destination.update({
      where: { id },
      data: { health: 'unhealthy', unhealthyReason: 'gone', unhealthySince: new Date('2026-01-02T03:04:05Z') },
    });
    const eventId = await relay.ingest('cli-dest-gone');
    await relay.pipeline.waitForStatus(eventId, 'delivered');
    const paused = () => prisma().delivery.findFirst({ where: { eventId, destinationId: id } });
    await waitFor(async () => ((await paused())?.status === 'paused' ? true : undefined), 15_000, 'a paused delivery');

    expect(await ok(['rules', 'destinations', 'show', ruleId, 'backup'])).toMatch(
      /health:\s+unhealthy since 2026-01-02T03:04:05.000Z \(the target answered 410 Gone\); deliveries pause/,
    );
    expect(await ok(['rules', 'destinations', 'list', ruleId])).toMatch(/backup\s+\S+\s+unhealthy/);
    const resumed = await ok(['rules', 'destinations', 'resume', ruleId, 'backup']);
    expect(resumed).toContain('Resumed destination backup: 1 paused delivery queued again.');
    expect(resumed).toMatch(/health:\s+healthy/);
    await waitFor(async () => ((await paused())?.status === 'delivered' ? true : undefined), 15_000, 'delivered');
    expect(target.requests.filter((r) => r.url === '/backup')).toHaveLength(1);
  });
});
