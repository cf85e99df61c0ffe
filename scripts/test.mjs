// Runs every test runner — vitest (the dashboard's and the CLI's component tests), jest, the pipeline suite again on a
// Redis Cluster (`pnpm test:cluster`), then the docker compose suite (`pnpm test:compose`) — and ends with the one
// "N passed, N failed" line CI reads, counting them all. Any failing runner fails the run.
// Arguments are passed to jest (e.g. a path filter); a run given some skips the cluster and compose suites, and says so.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'relay-test-'));
const run = (args, cwd, env = process.env) => spawnSync('pnpm', args, { cwd, env, stdio: 'inherit' }).status ?? 1;
const jestArgs = process.argv.slice(2);
const compose = jestArgs.length === 0;

// vitest in each app that has component tests: the dashboard (jsdom) and the CLI (its TUI is ESM-only ink).
const vitestApps = ['dashboard', 'cli'];
const vitestTotals = vitestApps.map((app) => path.join(dir, `vitest-${app}.json`));
const vitest = vitestApps.map((app, i) =>
  run(
    ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestTotals[i]}`],
    path.join(root, 'apps', app),
  ),
);
// Each jest run's totals reporter adds the counts in these files (a missing file counts as one failure): the last run
// prints the line. Before the compose suite, jest writes its own report and leaves the line to it.
const jestTotals = path.join(dir, 'jest.json');
const jest = compose
  ? run(['exec', 'jest', '--json', `--outputFile=${jestTotals}`], root, { ...process.env, TOTALS_LINE: 'off' })
  : run(['exec', 'jest', ...jestArgs], root, { ...process.env, EXTRA_TOTALS_FILES: vitestTotals.join(path.delimiter) });
if (!compose)
  console.log(
    'the cluster and docker compose suites are skipped: jest was given arguments (run them: pnpm test:cluster, ' +
      'pnpm test:compose)',
  );
const clusterTotals = path.join(dir, 'jest-cluster.json');
const cluster = compose
  ? run(['test:cluster', '--json', `--outputFile=${clusterTotals}`], root, { ...process.env, TOTALS_LINE: 'off' })
  : 0;
const composeSuite = compose
  ? run(['test:compose'], root, {
      ...process.env,
      EXTRA_TOTALS_FILES: [...vitestTotals, jestTotals, clusterTotals].join(path.delimiter),
    })
  : 0;

rmSync(dir, { recursive: true, force: true });
process.exit([...vitest, jest, cluster, composeSuite].find((code) => code !== 0) ?? 0);
