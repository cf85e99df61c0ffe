import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * One of the relay's processes as it runs in production (its main.ts, its own environment), with what it printed.
 * A setting given as undefined is unset, even when the test runner's own environment has it.
 */
export function runProcess(app: 'api' | 'delivery-worker', env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps', app, 'src/main.ts')], {
    cwd: ROOT,
    env: Object.fromEntries(
      Object.entries({ ...process.env, LOG_LEVEL: 'info', ...env }).filter(([, value]) => value !== undefined),
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}
