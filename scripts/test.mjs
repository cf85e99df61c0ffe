// Runs every test runner — vitest (the dashboard's component tests), then jest — and ends with the one
// "N passed, N failed" line CI reads, counting both. Any failing runner fails the run.
// Arguments are passed to jest (e.g. a path filter).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'relay-test-'));
const vitestTotals = path.join(dir, 'vitest.json');

const run = (args, cwd, env = process.env) => spawnSync('pnpm', args, { cwd, env, stdio: 'inherit' }).status ?? 1;

const vitest = run(
  ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestTotals}`],
  path.join(root, 'apps', 'dashboard'),
);
// jest's totals reporter adds the counts in this file (a missing file counts as one failure).
const jest = run(['exec', 'jest', ...process.argv.slice(2)], root, {
  ...process.env,
  EXTRA_TOTALS_FILES: vitestTotals,
});

rmSync(dir, { recursive: true, force: true });
process.exit(vitest !== 0 ? vitest : jest);
