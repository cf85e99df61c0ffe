import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCliRelay, type CliRelay } from './cli-harness';

// `relay rules create/update/show` with the routing filter (issue 29).
describe('relay rules: the routing filter', () => {
  let relay: CliRelay;
  let admin: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    admin = await relay.loginAs('admin');
  }, 90_000);
  afterAll(() => relay.close());

  const stored = async (id: string) =>
    (await relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id } })).filter;
  const ok = async (args: string[]) => {
    const result = await relay.run(admin, args);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return result.stdout;
  };

  it('creates with --filter @file, replaces it with --filter-cel, shows it, and --no-filter removes it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'relay-cli-filter-'));
    const file = path.join(dir, 'filter.json');
    await writeFile(file, JSON.stringify({ body: { total: { $gt: 100 } } }));
    const created = await ok(
      ['rules', 'create', '--source', 'cli-filter', '--target', 'https://x.example.com/in'].concat([
        '--filter',
        `@${file}`,
      ]),
    );
    const id = /Created rule ([0-9a-f-]{36})/.exec(created)![1]!;
    expect(await stored(id)).toEqual({ body: { total: { $gt: 100 } } });
    expect(created).toMatch(/filter:\s+\{"body":\{"total":\{"\$gt":100\}\}\}/);

    await ok(['rules', 'update', id, '--filter-cel', 'body.type == "push"']);
    expect(await stored(id)).toEqual({ cel: 'body.type == "push"' });
    expect(await ok(['rules', 'show', id])).toMatch(/filter:\s+cel: body.type == "push"/);
    await ok(['rules', 'update', id, '--filter', '{"headers": {"x-env": "prod"}}']);
    expect(await stored(id)).toEqual({ headers: { 'x-env': 'prod' } });
    await ok(['rules', 'update', id, '--no-filter']);
    expect(await stored(id)).toBeNull();
  });

  it("prints the API's refusal naming the bad part of a filter, changing nothing", async () => {
    const created = await ok(['rules', 'create', '--source', 'cli-filter-bad', '--target', 'https://x.example.com/in']);
    const id = /Created rule ([0-9a-f-]{36})/.exec(created)![1]!;
    const refused = await relay.run(admin, ['rules', 'update', id, '--filter', '{"body": {"amount": {"$gtt": 1}}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('filter.body.amount.$gtt');
    expect(await stored(id)).toBeNull();
  });
});
