import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { parseCliEnv } from '../src/cli-env';
import type { CliDeps } from '../src/context';

/** Streams that record what the CLI writes, and a fresh config home: a CLI run without a terminal. */
export function fakeDeps(env: Record<string, string> = {}): CliDeps & { out: () => string; err: () => string } {
  const home = mkdtempSync(path.join(tmpdir(), 'relay-cli-unit-'));
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const stdin = new PassThrough();
  stdin.end();
  return {
    env: parseCliEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), ...env }),
    stdin,
    stdout,
    stderr,
    fetch: globalThis.fetch,
    out: () => out,
    err: () => err,
  };
}
