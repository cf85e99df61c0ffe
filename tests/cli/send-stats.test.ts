import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { userCredential } from '../e2e/harness';
import { startCliRelay, type CliRelay } from './cli-harness';

describe('relay send, stats and sources', () => {
  let relay: CliRelay;
  let target: TargetServer;
  let admin: string;
  let home: string;
  beforeAll(async () => {
    target = await startTargetServer();
    relay = await startCliRelay({ DEFAULT_TARGET_URL: `${target.url}/default` });
    admin = (await userCredential(relay.pipeline, 'admin')).authorization;
    home = await relay.loginAs('admin');
  });
  afterAll(async () => {
    await relay.close();
    await target.close();
  });
  const run = (args: string[], input?: string) => relay.run(home, args, { input });
  const received = (id: string) => target.requests.find((r) => r.headers['webhook-id'] === id)!;

  it('sends in manual mode: --data to a --target, and stdin (--file -) to the default target', async () => {
    const sent = await run([
      'send',
      '--source',
      'manual',
      '--target',
      `${target.url}/m`,
      '--data',
      '{"x":1}',
      '--json',
    ]);
    expect(sent.code).toBe(0);
    const answer = JSON.parse(sent.stdout);
    expect(answer).toMatchObject({ status: 'queued', source: 'manual', target_url: `${target.url}/m` });
    await relay.pipeline.waitForStatus(answer.id, 'delivered');
    expect(received(answer.id).url).toBe('/m');
    expect(JSON.parse(received(answer.id).body.toString())).toEqual({ x: 1 });

    const piped = await run(['send', '--source', 'piped', '--file', '-'], '{"from":"stdin"}\n');
    expect(piped.code).toBe(0);
    const [, id] = /^Event (\S+) queued: piped → (.*)$/.exec(piped.stdout.trim())!;
    await relay.pipeline.waitForStatus(id!, 'delivered');
    expect(received(id!).url).toBe('/default');
    expect(JSON.parse(received(id!).body.toString())).toEqual({ from: 'stdin' });
  });

  it("sends in rule mode: a rule's source and target, the body from a file", async () => {
    const rule = await relay.pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'through-rule', target_url: `${target.url}/rule` })
      .expect(201);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'relay-send-')), 'payload.json');
    writeFileSync(file, JSON.stringify({ order: 7 }));
    const sent = await run(['send', '--rule', rule.body.id as string, '--file', file, '--json']);
    expect(sent.code).toBe(0);
    const answer = JSON.parse(sent.stdout);
    expect(answer).toMatchObject({ source: 'through-rule', provider_id: rule.body.id });
    await relay.pipeline.waitForStatus(answer.id, 'delivered');
    expect(received(answer.id).url).toBe('/rule');
    expect(JSON.parse(received(answer.id).body.toString())).toEqual({ order: 7 });
  });

  it('refuses bad usage with exit 2 and an API refusal with exit 1, sending nothing', async () => {
    const before = await relay.pipeline.store.prisma.event.count();
    const both = await run(['send', '--rule', 'r', '--source', 's', '--data', '{}']);
    expect(both.code).toBe(2);
    const notJson = await run(['send', '--source', 's', '--data', '{nope']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--data is not JSON/);
    const badTarget = await run(['send', '--source', 's', '--target', 'ftp://example.com/x', '--data', '{}']);
    expect(badTarget.code).toBe(1);
    expect(badTarget.stderr).toMatch(/\[target_url_rejected\]$/m);
    const viewer = await relay.loginAs('viewer');
    const refused = await relay.run(viewer, ['send', '--source', 's', '--data', '{}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*\[forbidden\]$/m);
    expect(await relay.pipeline.store.prisma.event.count()).toBe(before);
  });

  it('prints the statistics as a readable block, and --json as the API answer', async () => {
    const apiStats = (await relay.pipeline.http.get('/stats').set('authorization', admin).expect(200)).body;
    const human = await run(['stats', '--window', '1h']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Deliveries from \S+ to \S+$/m);
    expect(human.stdout).toMatch(new RegExp(`events:\\s+${apiStats.total}\\n`));
    expect(human.stdout).toMatch(/success rate:\s+100\.0%/);
    expect(human.stdout).toMatch(/latency:\s+p50 \d+ ms, p95 \d+ ms, p99 \d+ ms/);
    expect(human.stdout).toMatch(/SOURCE\s+EVENTS\s+DELIVERED\s+FAILED\s+QUEUED\s+PAUSED\s+IGNORED\n/);
    expect(human.stdout).toMatch(/^through-rule\s+1\s+1\s+0\s+0\s+0\s+0$/m);
    const json = JSON.parse((await run(['stats', '--json', '--window', '2h'])).stdout);
    expect(json).toMatchObject({ total: apiStats.total, by_status: apiStats.by_status });
    expect(Date.parse(json.to) - Date.parse(json.from)).toBeGreaterThan(2 * 3600_000 - 60_000);
    const badWindow = await run(['stats', '--window', 'forever']);
    expect(badWindow.code).toBe(2);
  });

  it('lists sources with their event counts', async () => {
    const table = await run(['sources']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^SOURCE\s+EVENTS\n/);
    expect(table.stdout).toMatch(/^manual\s+1$/m);
    expect(table.stdout).toMatch(/^through-rule\s+1$/m);
    const json = JSON.parse((await run(['sources', '--json'])).stdout);
    expect(json.sources).toEqual(expect.arrayContaining([{ source: 'piped', count: 1 }]));
  });
});
