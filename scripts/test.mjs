// Runs every test runner — vitest (the dashboard's and the CLI's component tests), then jest — and ends with the one
// "N passed, N failed" line CI reads, counting both. Any failing runner fails the run.
// Arguments are passed to jest (e.g. a path filter).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'relay-test-'));
const run = (args, cwd, env = process.env) => spawnSync('pnpm', args, { cwd, env, stdio: 'inherit' }).status ?? 1;

// vitest in each app that has component tests: the dashboard (jsdom) and the CLI (its TUI is ESM-only ink).
const vitestApps = ['dashboard', 'cli'];
const vitestTotals = vitestApps.map((app) => path.join(dir, `vitest-${app}.json`));
const vitest = vitestApps.map((app, i) =>
  run(
    ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestTotals[i]}`],
    path.join(root, 'apps', app),
  ),
);
// jest's totals reporter adds the counts in these files (a missing file counts as one failure).
const jest = run(['exec', 'jest', ...process.argv.slice(2)], root, {
  ...process.env,
  EXTRA_TOTALS_FILES: vitestTotals.join(path.delimiter),
});

rmSync(dir, { recursive: true, force: true });
process.exit(vitest.find((code) => code !== 0) ?? jest);
