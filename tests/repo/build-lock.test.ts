import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@relay/test-support';

const root = path.resolve(__dirname, '../..');
const STEP = path.join(__dirname, 'fixtures/locked-step.mjs');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'relay-build-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One build step (the fixture) under the lock of `dir`; its gate is opened by `open(name)`. */
function step(name: string) {
  const child = spawn(process.execPath, [STEP, path.join(dir, 'build.lock'), path.join(dir, 'log'), name, dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { exited, stderr: () => stderr };
}
const log = () => (existsSync(path.join(dir, 'log')) ? readFileSync(path.join(dir, 'log'), 'utf8') : '');
const open = (name: string) => writeFileSync(path.join(dir, name), '');

// `pnpm start:api` and `pnpm start:worker` (or two workers) started together each build first.
describe('the build lock', () => {
  it('makes two builds started together take turns: the second waits until the first has finished', async () => {
    const first = step('first');
    await waitFor(() => log() === 'start first\n', 10_000, 'the first build to start');
    const second = step('second');
    // The second found the lock taken (it says so) and has not started while the first holds it.
    await waitFor(() => second.stderr().includes('waiting for another build to finish'), 10_000, 'the second to wait');
    expect(log()).toBe('start first\n');
    open('first');
    expect(await first.exited).toBe(0);
    await waitFor(() => log().includes('start second'), 10_000, 'the second build to start');
    open('second');
    expect(await second.exited).toBe(0);
    expect(log().trim().split('\n')).toEqual(['start first', 'end first', 'start second', 'end second']);
    expect(existsSync(path.join(dir, 'build.lock'))).toBe(false);
  });

  it('takes over the lock of a build that died holding it', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(path.join(dir, 'build.lock'), dead.stdout);
    open('late');
    const late = step('late');
    expect(await late.exited).toBe(0);
    expect(log()).toBe('start late\nend late\n');
  });
});

describe('the start scripts', () => {
  const scripts = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const build = readFileSync(path.join(root, 'scripts/build.mjs'), 'utf8');

  it('build only their own app, under the lock', () => {
    expect(scripts['start:api']).toMatch(/^node scripts\/build\.mjs api && node /);
    expect(scripts['start:worker']).toMatch(/^node scripts\/build\.mjs worker && node /);
    expect(build).toMatch(/await withBuildLock\(/);
  });
});
