import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'apps/cli');

describe('the relay executable', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'relay-bin-'));
    mkdirSync(path.join(dir, 'bin'));
    copyFileSync(path.join(CLI, 'bin/relay.mjs'), path.join(dir, 'bin/relay.mjs'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the package bin, a launcher of the bundle', () => {
    const pkg = JSON.parse(readFileSync(path.join(CLI, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ relay: './bin/relay.mjs' });
    expect(pkg.files).toEqual(expect.arrayContaining(['bin', 'dist']));
  });

  it('says how to build it when the bundle is missing', () => {
    const run = spawnSync(process.execPath, [path.join(dir, 'bin/relay.mjs'), '--version'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('the CLI is not built yet; run `pnpm build`');
  });

  it('runs the bundle with plain node and no node_modules beside it', () => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-cli.mjs'), '--outdir', path.join(dir, 'dist')]);
    const run = spawnSync(process.execPath, [path.join(dir, 'bin/relay.mjs'), '--version'], {
      encoding: 'utf8',
      cwd: dir,
    });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(CLI, 'package.json'), 'utf8')).version);
  });
});
