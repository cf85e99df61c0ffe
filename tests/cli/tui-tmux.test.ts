// `relay tui` in a real terminal: tmux runs the built binary at 80×24 against a real relay; the test types with
// send-keys and reads the screen with capture-pane.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { userCredential } from '../e2e/harness';
import { startCliRelay, type CliRelay } from './cli-harness';

const SOCKET = `relay-tui-test-${process.pid}`;
const SESSION = 'tui';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', SESSION);
const keys = (...k: string[]) => tmux('send-keys', '-t', SESSION, ...k);
const selectedLine = () =>
  screen()
    .split('\n')
    .find((l) => l.startsWith('> ')) ?? '';

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('relay tui in tmux', () => {
  let relay: CliRelay;
  let target: http.Server;
  let failedId: string;
  const deliveredIds: string[] = [];

  beforeAll(async () => {
    relay = await startCliRelay();
    // The delivery target: /ok answers 200, /down 500 (its events fail after the worker's attempts).
    target = http.createServer((req, res) => {
      req.resume();
      res.writeHead(req.url === '/ok' ? 200 : 500).end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const { authorization } = await userCredential(relay.pipeline, 'admin');
    for (const [source, url] of [
      ['github', `${base}/ok`],
      ['billing', `${base}/down`],
    ])
      await relay.pipeline.http
        .post('/rules')
        .set('authorization', authorization)
        .send({ source, target_url: url })
        .expect(201);
    const ingest = (source: string, n: number) =>
      relay.ingest(source, { n, repository: { full_name: `octo/repo-${n}` } });
    // Oldest first: the failed event ends up fourth in the newest-first list.
    failedId = await ingest('billing', 0);
    await relay.pipeline.waitForStatus(failedId, 'failed');
    for (const n of [1, 2, 3]) {
      deliveredIds.unshift(await ingest('github', n));
      await relay.pipeline.waitForStatus(deliveredIds[0]!, 'delivered');
    }

    const home = await relay.loginAs('admin');
    // CI=true as on a CI machine (and in some developers' shells): the UI must still draw live.
    const env = [
      `HOME=${home}`,
      `XDG_CONFIG_HOME=${path.join(home, '.config')}`,
      'NO_COLOR=1',
      'TERM=xterm-256color',
      'CI=true',
    ];
    tmux(
      'new-session',
      '-d',
      '-x',
      '80',
      '-y',
      '24',
      '-s',
      SESSION,
      // After the UI, the shell says how it ended and keeps the pane open to be read.
      `env ${env.join(' ')} ${process.execPath} ${relay.bin} tui; echo "relay exited with $?"; sleep 60`,
    );
  });

  afterAll(async () => {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
    target?.close();
    await relay?.close();
  });

  it('shows the events newest first with the live stream, within 80 columns', async () => {
    await until(() => screen().includes(deliveredIds[0]!), 'the first row');
    await until(() => screen().includes('● live'), 'the live stream');
    const lines = screen().split('\n');
    expect(lines[0]).toContain(relay.url);
    expect(lines[1]).toMatch(/STATUS\s+SOURCE\s+ID\s+ATT\s+AGE/);
    expect(lines[2]).toMatch(new RegExp(`^> delivered\\s+github\\s+${deliveredIds[0]}`));
    expect(lines[5]).toMatch(new RegExp(`^  failed\\s+billing\\s+${failedId}`));
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('moves the selection with j and k', async () => {
    keys('j', 'j');
    await until(() => selectedLine().includes(deliveredIds[2]!), 'the third row selected');
    keys('k');
    await until(() => selectedLine().includes(deliveredIds[1]!), 'the second row selected');
    keys('j', 'j');
    await until(() => selectedLine().includes(failedId), 'the failed event selected');
  });

  it('opens the detail with the payload and attempts, and goes back with Escape', async () => {
    keys('Enter');
    await until(() => screen().includes(`Event ${failedId}`), 'the detail');
    await until(() => /#3 {2}HTTP 500/.test(screen()), 'the attempts');
    expect(screen()).toMatch(/failure: +retries_exhausted/);
    // The payload comes after the attempts and headers: j scrolls down to it.
    keys('j', 'j', 'j', 'j', 'j', 'j', 'j', 'j');
    await until(() => screen().includes('"full_name": "octo/repo-0"'), 'the payload');
    keys('Escape');
    await until(() => screen().includes('STATUS'), 'the list again');
    expect(selectedLine()).toContain(failedId);
  });

  it('retries the failed event with r: the relay starts a new delivery run', async () => {
    const before = (await relay.pipeline.attemptsOf(failedId)).length;
    keys('r');
    await until(() => screen().includes(`Retry of ${failedId.slice(0, 8)} queued.`), 'the retry notice');
    await until(async () => (await relay.pipeline.attemptsOf(failedId)).length > before, 'a new attempt');
  });

  it('refuses to start without a terminal (exit 2), and loads ink only for this command', async () => {
    const home = await relay.loginAs('viewer');
    const piped = await relay.run(home, ['tui']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('relay tui needs a terminal');
    // ink and React live in a chunk beside relay.mjs, which only `relay tui` imports.
    const main = readFileSync(relay.bin, 'utf8');
    expect(main).not.toContain('useInput');
    const chunks = readdirSync(path.dirname(relay.bin)).filter((f) => f !== 'relay.mjs' && f.endsWith('.mjs'));
    expect(chunks.some((f) => readFileSync(path.join(path.dirname(relay.bin), f), 'utf8').includes('useInput'))).toBe(
      true,
    );
  });

  it('quits with q: the program exits 0 and the terminal leaves the UI screen', async () => {
    keys('q');
    // The shell around the program prints its exit status on the terminal the UI left.
    await until(() => screen().includes('relay exited with'), 'the exit');
    expect(screen()).toContain('relay exited with 0');
    expect(screen()).not.toContain('STATUS');
  });
});
