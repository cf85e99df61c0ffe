import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

// The V8 flags are part of how the api and the workers were measured (docs/performance.md): `pnpm start`, docker
// compose and the benchmark must start the processes alike, or the published figures describe another setup.
const API_FLAGS = ['--max-old-space-size=128', '--heap-growing-percent=50'];
const WORKER_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=128'];

const flagsIn = (command: string) => command.split(/[\s,'"[\]]+/).filter((word) => word.startsWith('--'));

/** The words between the last `node` before `entry` and `entry`: one command line's flags. */
function commandOf(text: string, entry: string): string {
  const at = text.indexOf(entry);
  if (at < 0) throw new Error(`no command starts ${entry}`);
  const before = text.slice(0, at);
  const start = Math.max(before.lastIndexOf('node '), before.lastIndexOf("'node'"));
  return before.slice(start);
}

describe('V8 flags of the api and the workers', () => {
  const sources = {
    'docker-compose.yml': read('docker-compose.yml'),
    'package.json': read('package.json'),
  };

  it.each(Object.keys(sources))('%s starts the api and the workers with the measured flags', (file) => {
    const text = sources[file as keyof typeof sources];
    expect(flagsIn(commandOf(text, 'apps/api/dist/main.mjs'))).toEqual(expect.arrayContaining(API_FLAGS));
    const worker = flagsIn(commandOf(text, 'apps/delivery-worker/dist/main.mjs'));
    expect(worker).toEqual(expect.arrayContaining(WORKER_FLAGS));
    // Measured without gain for the worker (docs/performance.md, section 7).
    expect(worker.some((flag) => flag.startsWith('--heap-growing-percent'))).toBe(false);
  });

  it('the benchmark starts them with the same flags', () => {
    const bench = read('bench/lib/processes.mjs');
    const api = /api: \[([^\]]*)\]/.exec(bench)?.[1] ?? '';
    const worker = /worker: \[([^\]]*)\]/.exec(bench)?.[1] ?? '';
    expect(flagsIn(api)).toEqual(expect.arrayContaining(API_FLAGS));
    expect(flagsIn(worker)).toEqual(expect.arrayContaining(WORKER_FLAGS));
  });
});
