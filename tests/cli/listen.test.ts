import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@relay/test-support';
import { startCliRelay, type CliRelay, type SpawnedRelay } from './cli-harness';

// `relay listen`: the tunnel from the relay's live feed to a program on the developer's machine.
interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The developer's local program: records every request and answers `status`. */
async function startLocalServer(status = 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    byEvent: (id: string) => received.filter((r) => r.headers['x-relay-event-id'] === id),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let relay: CliRelay;
let viewer: string;
beforeAll(async () => {
  relay = await startCliRelay();
  viewer = await relay.loginAs('viewer');
});
afterAll(() => relay.close());

/** Sends a webhook to the relay over HTTP (works across api restarts), exactly these bytes. */
async function ingest(source: string, body: Buffer, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${relay.url}/${source}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function listen(args: string[]): Promise<SpawnedRelay> {
  const child = relay.spawn(viewer, ['listen', ...args]);
  await child.waitForOutput('stderr', /Forwarding .*Ctrl-C to stop/);
  return child;
}

/**
 * Ctrl-C ends it cleanly: exit code 0 (the default SIGINT death has none). A listen that kept waiting (its open
 * stream, a backoff) never exits and fails by the test's time-out; how fast a loaded machine exits is not bounded.
 */
async function interrupt(child: SpawnedRelay) {
  child.child.kill('SIGINT');
  expect(await child.exited).toBe(0);
}

describe('relay listen', () => {
  it("forwards each event's exact bytes and the sender's headers, one line per event", async () => {
    const local = await startLocalServer(204);
    const child = await listen(['--forward-to', local.url]);
    expect(child.stderr()).toMatch(/Send webhooks to http:\/\/\S+/);
    const bodies = [
      Buffer.from('{ "b":1,  "a" : "\\u00e9t\u00e9",\n "a":2, "n": 1.50 }\n'),
      Buffer.from('[ 3 , 2,1 ]'),
      Buffer.from('{"emoji":"🚀","zh":"中文","esc":"\\t\\"q\\""}  \r\n '),
    ];
    const ids: string[] = [];
    for (const [n, body] of bodies.entries())
      ids.push(
        await ingest('tunnel', body, {
          'content-type': 'application/vnd.shop+json; charset=utf-8',
          'x-hub-signature-256': `sha256=${n}abc`,
          'x-github-event': 'push',
          'user-agent': 'GitHub-Hookshot/abc123',
        }),
      );
    await waitFor(async () => (local.received.length >= 3 ? true : undefined), 10_000, 'three forwards');
    for (const [n, id] of ids.entries()) {
      const [got] = local.byEvent(id);
      expect(got!.body.toString('hex')).toBe(bodies[n]!.toString('hex'));
      expect(got!.headers).toMatchObject({
        'content-type': 'application/vnd.shop+json; charset=utf-8',
        'x-hub-signature-256': `sha256=${n}abc`,
        'x-github-event': 'push',
        'user-agent': 'GitHub-Hookshot/abc123',
        'content-length': String(bodies[n]!.length),
      });
    }
    await child.waitForOutput('stdout', new RegExp(`${ids[2]}  → 204  \\d+ ms`));
    const lines = child.stdout().trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  tunnel\\s+${ids[0]}  → 204  \\d+ ms$`));
    await interrupt(child);
    await local.close();
  });

  it('resumes after the api restarts and forwards nothing twice', async () => {
    const local = await startLocalServer();
    const child = await listen(['--forward-to', local.url]);
    const before = [await ingest('restart', Buffer.from('{"n":1}')), await ingest('restart', Buffer.from('{"n":2}'))];
    await waitFor(async () => (local.received.length >= 2 ? true : undefined), 10_000, 'the first forwards');
    // Within the api's replay slack of the last message: the new api replays these two on resumption.
    await relay.restartApi();
    await child.waitForOutput('stderr', /reconnecting…/);
    await child.waitForOutput('stderr', /reconnected/, 20_000);
    const after = [await ingest('restart', Buffer.from('{"n":3}')), await ingest('restart', Buffer.from('{"n":4}'))];
    await waitFor(async () => (local.received.length >= 4 ? true : undefined), 10_000, 'the forwards after');
    // Long enough for a replay or a late duplicate to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const id of [...before, ...after]) expect(local.byEvent(id)).toHaveLength(1);
    expect(local.received).toHaveLength(4);
    expect(child.stdout().trim().split('\n')).toHaveLength(4);
    await interrupt(child);
    await local.close();
  });

  it('prints an error line for a local program that is down and goes on; --json gives JSON lines', async () => {
    const local = await startLocalServer();
    const down = local.url;
    await local.close();
    const child = await listen(['--forward-to', down, '--json']);
    const first = await ingest('downstream', Buffer.from('{"a":1}'));
    const second = await ingest('downstream', Buffer.from('{"a":2}'));
    await child.waitForOutput('stdout', new RegExp(second));
    const lines = child
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => l.event_id)).toEqual([first, second]);
    expect(lines[0]).toMatchObject({ source: 'downstream', status: null, error: 'ECONNREFUSED' });
    expect(typeof lines[0]!.duration_ms).toBe('number');
    await interrupt(child);
  });

  it('--source forwards only that source; --status forwards an event when it reaches the status', async () => {
    const local = await startLocalServer();
    const bySource = await listen(['--forward-to', local.url, '--source', 'keep']);
    const skipped = await ingest('skip', Buffer.from('{}'));
    const kept = await ingest('keep', Buffer.from('{}'));
    await bySource.waitForOutput('stdout', new RegExp(kept));
    expect(local.byEvent(skipped)).toHaveLength(0);
    await interrupt(bySource);

    // No rule and no default target: the worker fails the event, and only then is it forwarded.
    const onFailure = await listen(['--forward-to', local.url, '--status', 'failed']);
    const failing = await ingest('no-target', Buffer.from('{"x":1}'));
    await relay.pipeline.waitForStatus(failing, 'failed');
    await onFailure.waitForOutput('stdout', new RegExp(failing));
    expect(local.byEvent(failing)).toHaveLength(1);
    await interrupt(onFailure);
    await local.close();
  });

  it('ends with exit 1 and the API message when the relay no longer accepts the credential', async () => {
    const local = await startLocalServer();
    const home = await relay.loginAs('viewer');
    const child = relay.spawn(home, ['listen', '--forward-to', local.url]);
    await child.waitForOutput('stderr', /Forwarding .*Ctrl-C to stop/);
    // The open stream was authorised when it began; the reconnection after a restart is checked again.
    expect((await relay.run(home, ['logout'])).code).toBe(0);
    await relay.restartApi();
    expect(await child.exited).toBe(1);
    expect(child.stderr()).toMatch(/^error: .*\[unauthenticated\].*relay login/m);
    await local.close();
  });

  it('refuses a --forward-to that is not an http URL with a usage error', async () => {
    const result = await relay.run(viewer, ['listen', '--forward-to', 'ftp://localhost/x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--forward-to must be an http:// or https:// URL');
  });
});
