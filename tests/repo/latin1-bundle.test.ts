import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { latin1Bundle } from '../../scripts/lib/latin1-bundle.mjs';

// The app bundles are kept Latin-1, so V8 holds their source at one byte per character (scripts/lib/latin1-bundle.mjs).
describe('a Latin-1 bundle', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'latin1-bundle-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // The options of scripts/build.mjs that decide what the output's characters are.
  async function bundle(lines: string[]) {
    writeFileSync(path.join(dir, 'entry.ts'), lines.join('\n'));
    const outfile = path.join(dir, 'main.mjs');
    await build({
      entryPoints: [path.join(dir, 'entry.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      sourcemap: true,
      logLevel: 'silent',
    });
    return outfile;
  }

  it("rewrites the comments' other characters and leaves the code's strings as they were", async () => {
    // esbuild keeps a comment in an object literal (the settings schemas have them).
    const outfile = await bundle([
      'const settings = {',
      '  // host:port,… — the sentinels 🛰',
      "  text: 'héllo — ☃ 🛰',",
      '};',
      'console.log(`${settings.text} ${"a—b".length}`);',
    ]);
    const before = readFileSync(outfile, 'utf8');
    expect(before).toMatch(/[\u0100-\uffff]/);

    await latin1Bundle(outfile);

    const after = readFileSync(outfile, 'utf8');
    expect(after).not.toMatch(/[\u0100-\uffff]/);
    // One '?' per UTF-16 unit: the lines keep their lengths, so the source map still points at the right columns.
    expect(after.split('\n').map((line) => line.length)).toEqual(before.split('\n').map((line) => line.length));
    expect(after).toContain('// host:port,? ? the sentinels ??');
    const run = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('héllo — ☃ 🛰 3');
  });

  it('fails on such a character in code, which esbuild leaves as it is in a regular expression', async () => {
    const outfile = await bundle(['console.log(/[—…]/.test("a—b"));']);
    expect(readFileSync(outfile, 'utf8')).toMatch(/[\u0100-\uffff]/);
    await expect(latin1Bundle(outfile)).rejects.toThrow(/main\.mjs:2: a character beyond Latin-1 outside a comment/);
  });

  it('leaves a bundle that is Latin-1 already untouched', async () => {
    const file = path.join(dir, 'main.mjs');
    writeFileSync(file, '// caf\u00e9\nconsole.log(1);\n');
    await latin1Bundle(file);
    expect(readFileSync(file, 'utf8')).toBe('// caf\u00e9\nconsole.log(1);\n');
  });
});
