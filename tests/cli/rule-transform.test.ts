import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCliRelay, type CliRelay } from './cli-harness';

// Transforms and pacing in the CLI (issue 30): the flags of `relay rules create|update` and `rules destinations
// add|update`, what `show` prints, and `relay rules transform-test` against the real api's sandbox.

const TO_CHAT = [
  "addHandler('transform', (request, context) => {",
  "  console.log('pushed by', request.body.pusher.name);",
  '  request.body = { text: `${request.body.pusher.name} pushed to ${request.body.repository.full_name}` };',
  "  request.headers['x-kind'] = 'chat';",
  '  return request;',
  '});',
].join('\n');
const THROWS = "addHandler('transform', (request) => {\n  const x = 1;\n  throw new Error('no chat today');\n});";
const KEEP = "addHandler('transform', (request) => request);";
const PUSH = { pusher: { name: 'ada' }, repository: { full_name: 'acme/relay' } };

describe('relay rules: transform and pacing', () => {
  let relay: CliRelay;
  let admin: string;
  let file: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    admin = await relay.loginAs('admin');
    const dir = await mkdtemp(path.join(tmpdir(), 'relay-cli-transform-'));
    file = path.join(dir, 'to-chat.js');
    await writeFile(file, TO_CHAT);
  });
  afterAll(() => relay.close());

  const prisma = () => relay.pipeline.store.prisma;
  const ok = async (args: string[], input?: string) => {
    const result = await relay.run(admin, args, input === undefined ? {} : { input });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return result.stdout;
  };
  const createRule = async (source: string, ...flags: string[]) =>
    /Created rule ([0-9a-f-]{36})/.exec(
      await ok(['rules', 'create', '--source', source, '--target', `https://x.example.com/${source}`, ...flags]),
    )![1]!;

  it('creates a rule with a transform file and pacing, shows them, and changes them in part or turns them off', async () => {
    const id = await createRule(
      'cli-transform',
      ...['--transform', `@${file}`, '--rate-limit', '5/second', '--burst', '10'],
      ...['--max-concurrency', '2', '--forward-path-query'],
    );
    expect(await prisma().rule.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transform: TO_CHAT,
      forwardPathQuery: true,
      rateLimit: { limit: 5, period: 'second', burst: 10 },
      maxConcurrency: 2,
    });
    const show = await ok(['rules', 'show', id]);
    expect(show).toMatch(/transform:\s+set \(6 lines; --json shows the code\)/);
    expect(show).toMatch(/forward path\/query:\s+yes/);
    expect(show).toMatch(/rate limit:\s+5\/second, burst 10/);
    expect(show).toMatch(/max concurrency:\s+2/);
    expect(show).not.toContain('pushed to');

    // --burst alone keeps the stored limit and period; the code from stdin.
    await ok(['rules', 'update', id, '--burst', '20', '--transform', '-'], KEEP);
    expect(await prisma().rule.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transform: KEEP,
      rateLimit: { limit: 5, period: 'second', burst: 20 },
    });
    const off = await ok([
      'rules',
      'update',
      id,
      '--no-transform',
      '--no-rate-limit',
      '--no-max-concurrency',
      '--no-forward-path-query',
    ]);
    expect(off).toMatch(/transform:\s+- \(webhooks go as received\)/);
    expect(off).toMatch(/rate limit:\s+-/);
    expect(await prisma().rule.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transform: null,
      forwardPathQuery: false,
      rateLimit: null,
      maxConcurrency: null,
    });
  });

  it("refuses code that does not compile with the API's field error, and two inputs on stdin", async () => {
    const id = await createRule('cli-transform-bad');
    const bad = await relay.run(admin, ['rules', 'update', id, '--transform', "addHandler('transform', (r) => {"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/transform: .*\[validation_failed\]/);
    const burst = await relay.run(admin, ['rules', 'update', id, '--burst', '3']);
    expect(burst).toMatchObject({ code: 2, stderr: expect.stringContaining('--burst needs --rate-limit') });
    const twice = await relay.run(admin, ['rules', 'update', id, '--transform', '-', '--signing-secret-stdin'], {
      input: KEEP,
    });
    expect(twice).toMatchObject({ code: 2, stderr: expect.stringContaining('stdin holds one input') });
    const period = await relay.run(admin, ['rules', 'update', id, '--rate-limit', '5/day']);
    expect(period).toMatchObject({ code: 2, stderr: expect.stringContaining('second, minute, hour') });
    expect(await prisma().rule.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transform: null,
      rateLimit: null,
    });
  });

  it('adds and updates a destination with a transform and pacing, and shows them', async () => {
    const ruleId = await createRule('cli-transform-dest');
    const added = await ok([
      ...['rules', 'destinations', 'add', ruleId, '--name', 'chat', '--target', 'https://chat.example.com/in'],
      ...['--transform', `@${file}`, '--rate-limit', '30/minute', '--max-concurrency', '1'],
    ]);
    const id = /Added destination ([0-9a-f-]{36})/.exec(added)![1]!;
    expect(added).toMatch(/transform:\s+set \(6 lines/);
    expect(added).toMatch(/rate limit:\s+30\/minute, burst 30 \(the limit\)/);
    expect(added).toMatch(/max concurrency:\s+1/);
    await ok(['rules', 'destinations', 'update', ruleId, 'chat', '--burst', '5', '--forward-path-query']);
    expect(await prisma().destination.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transform: TO_CHAT,
      forwardPathQuery: true,
      rateLimit: { limit: 30, period: 'minute', burst: 5 },
      maxConcurrency: 1,
    });
    const shown = await ok(['rules', 'destinations', 'show', ruleId, 'chat']);
    expect(shown).toMatch(/forward path\/query:\s+yes/);
    await ok(['rules', 'destinations', 'update', ruleId, 'chat', '--no-transform', '--no-rate-limit']);
    expect(await prisma().destination.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transform: null,
      rateLimit: null,
      maxConcurrency: 1,
    });
  });

  it('transform-test prints the returned request and logs; a failing transform its line and exit code 1', async () => {
    const ruleId = await createRule('cli-transform-test', '--transform', KEEP);
    await ok(
      ['rules', 'destinations', 'add', ruleId, '--name', 'chat', '--target', 'https://chat.example.com/in'].concat([
        '--transform',
        `@${file}`,
      ]),
    );
    const eventId = await relay.ingest('cli-transform-test', PUSH);
    const run = (...flags: string[]) =>
      relay.run(admin, ['rules', 'transform-test', ruleId, '--event', eventId, ...flags]);

    const tried = await run('--transform', `@${file}`);
    expect(tried).toMatchObject({ code: 0, stderr: '' });
    expect(tried.stdout).toContain('The transform returns (nothing was sent):');
    expect(tried.stdout).toContain('x-kind: chat');
    expect(tried.stdout).toContain('"text": "ada pushed to acme/relay"');
    expect(tried.stdout).toMatch(/logs:\n\s+pushed by ada/);

    // Without --transform: the saved one (the rule's, or the destination's named with --destination).
    const saved = await run('--json');
    expect(saved.code).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ ok: true, request: { body: PUSH }, logs: '' });
    const destination = await run('--destination', 'chat', '--json');
    expect(JSON.parse(destination.stdout)).toMatchObject({
      ok: true,
      request: { body: { text: 'ada pushed to acme/relay' } },
    });

    const empty = await run('--transform', '-');
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringContaining('the transform from stdin is empty') });
    const thrown = await relay.run(admin, ['rules', 'transform-test', ruleId, '--event', eventId, '--transform', '-'], {
      input: THROWS,
    });
    expect(thrown.code).toBe(1);
    expect(thrown.stdout).toMatch(/The transform failed at line 3 \(error\): .*no chat today/);
    expect(thrown.stderr).toContain('error: the transform failed (error)');
  });

  it('transform-test is for admins (it runs code on a stored payload)', async () => {
    const ruleId = await createRule('cli-transform-viewer', '--transform', KEEP);
    const eventId = await relay.ingest('cli-transform-viewer', PUSH);
    const viewer = await relay.loginAs('viewer');
    const refused = await relay.run(viewer, ['rules', 'transform-test', ruleId, '--event', eventId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('[forbidden]');
  });
});
