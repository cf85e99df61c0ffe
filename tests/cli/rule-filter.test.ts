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
  });
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

  it('relay rules dry-run tries a filter on the stored webhooks: a count, one line each, --json, --events', async () => {
    const created = await ok(['rules', 'create', '--source', 'cli-dry', '--target', 'https://x.example.com/in']);
    const id = /Created rule ([0-9a-f-]{36})/.exec(created)![1]!;
    const ids: string[] = [];
    for (const amount of [10, 200, 300]) {
      const answer = await relay.pipeline.http
        .post('/cli-dry')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ amount }))
        .expect(202);
      ids.push(answer.body.id as string);
    }
    const text = await ok(['rules', 'dry-run', id, '--filter', '{"body": {"amount": {"$gte": 100}}}']);
    expect(text).toContain('Matched 2 of the 3 webhooks tried.');
    expect(text).toMatch(new RegExp(`${ids[0]}\\s+ignored`));
    expect(text).toMatch(new RegExp(`${ids[1]}\\s+matched`));
    const json = JSON.parse(
      await ok(['rules', 'dry-run', id, '--filter-cel', 'body.amount < 100', '--event-id', ids[0]!, '--json']),
    ) as unknown;
    expect(json).toEqual({ matched: 1, not_matched: 0, results: [{ event_id: ids[0], matched: true }] });
    const two = JSON.parse(await ok(['rules', 'dry-run', id, '--filter', '{}', '--events', '2', '--json'])) as {
      results: unknown[];
    };
    expect(two.results).toHaveLength(2);
    const missing = await relay.run(admin, ['rules', 'dry-run', id]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/give the filter to try/);
    // Nothing was changed: the rule has no filter.
    expect(await stored(id)).toBeNull();
  });
});
