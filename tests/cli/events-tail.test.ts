import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startCliRelay, type CliRelay } from './cli-harness';

interface Tail {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// `relay events tail` runs until Ctrl-C, so it is spawned here rather than through relay.run.
function startTail(relay: CliRelay, home: string, args: string[]): Tail {
  const child = spawn(process.execPath, [relay.bin, 'events', 'tail', ...args], {
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

describe('relay events tail', () => {
  let relay: CliRelay;
  let target: TargetServer;
  let home: string;
  const tails: Tail[] = [];
  beforeAll(async () => {
    target = await startTargetServer();
    relay = await startCliRelay({ DEFAULT_TARGET_URL: `${target.url}/hook` });
    home = await relay.loginAs('viewer');
  });
  afterAll(async () => {
    for (const tail of tails) if (tail.child.exitCode === null) tail.child.kill('SIGKILL');
    await relay.close();
    await target.close();
  });

  const ingest = (source: string) => relay.ingest(source);
  const jsonLines = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; data: { id?: string; event_id?: string; source?: string } });

  it('prints a new event as a JSON line, and exits 0 on Ctrl-C (SIGINT)', async () => {
    const tail = startTail(relay, home, ['--json']);
    tails.push(tail);
    // --json prints no "connected" note: ingest until the stream (once connected) shows one of ours.
    const ids: string[] = [];
    const created = await waitFor(
      async () => {
        ids.push(await ingest('tailed'));
        await new Promise((resolve) => setTimeout(resolve, 200));
        return jsonLines(tail.stdout()).find((m) => m.type === 'event.created' && ids.includes(m.data.id!));
      },
      15_000,
      'a created event on the tail',
    );
    expect(created.data).toMatchObject({ source: 'tailed', status: 'queued' });
    // Its delivery follows on the same stream: an attempt and the status change.
    await waitFor(() =>
      jsonLines(tail.stdout()).some((m) => m.type === 'attempt' && m.data.event_id === created.data.id),
    );
    tail.child.kill('SIGINT');
    expect(await tail.exited).toEqual({ code: 0, signal: null });
    expect(tail.stderr()).toBe('');
  });

  it('prints human lines and keeps only the --source asked for', async () => {
    const tail = startTail(relay, home, ['--source', 'wanted']);
    tails.push(tail);
    await waitFor(() => tail.stderr().includes('Following events on'), 15_000, 'the tail to connect');
    const other = await ingest('unwanted');
    const wanted = await ingest('wanted');
    await waitFor(() => tail.stdout().includes(`event.created  ${wanted}  wanted  queued`), 10_000, 'the line');
    await waitFor(() => new RegExp(`attempt\\s+${wanted}  #1 main 200 \\d+ ms`).test(tail.stdout()));
    await relay.pipeline.waitForStatus(other, 'delivered');
    tail.child.kill('SIGINT');
    expect((await tail.exited).code).toBe(0);
    expect(tail.stdout()).not.toContain(other);
    expect(tail.stdout()).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  event\\.status   ${wanted}  delivered$`, 'm'));
  });
});
