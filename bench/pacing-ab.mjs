// pnpm bench --pacing-ab [--smoke] [--pacing-ab-base DIR] [--rounds N]
// Issue 30, item 5: "rules without pacing pay nothing measurable". An interleaved A/B of the delivery path
// (ingest → delivered) of a rule with neither `rate_limit` nor `max_concurrency` (nor a transform), between
//   A: the build just before the delivery worker learnt pacing and transforms (commit PACING_BASE, the first parent
//      of the merge "issue 30 worker wiring"), on its own schema (its own migrations), and
//   B: this checkout as it is,
// round after round, the order alternating (bench/routing-cost-ab.mjs runs the phases: fresh database, a backlog
// drained by the workers, then an open loop for the end-to-end latency). The old build runs against its own
// migrations, so no code path is bypassed: what B pays, pacing included (the Retry-After hold check of every
// delivery, the pacing read of a rule without pacing), is in the difference. Commits between the base and this
// checkout that are not issue 30's (issue 31's rule state, audit filters) are in it too: a difference is an upper
// bound of pacing's cost. Results: bench/results/pacing-ab.json.
//
// The base checkout is made once (git archive of PACING_BASE, pnpm install --offline, prisma generate, build) under
// the system's temp directory, unless --pacing-ab-base names one already built; it needs the repository's history.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PACING_BASE = '83a0db0';

function prepareBase(root, log) {
  const dir = path.join(os.tmpdir(), `relay-pacing-base-${PACING_BASE}`);
  if (existsSync(path.join(dir, 'apps/delivery-worker/dist/main.mjs'))) return dir;
  log(`pacing A/B: preparing the base build ${PACING_BASE} in ${dir} (once)`);
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git -C "${root}" archive ${PACING_BASE} | tar -x -C "${dir}"`], { stdio: 'inherit' });
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  run('pnpm', ['install', '--frozen-lockfile', '--offline']);
  run(process.execPath, ['scripts/prisma-generate.mjs']);
  run(process.execPath, ['scripts/build.mjs']);
  return dir;
}

export async function runPacingAb({ root, smoke, log }) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const base = option('--pacing-ab-base') ?? prepareBase(root, log);
  log(`pacing A/B: building this checkout; base ${base}`);
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  const variants = [
    { name: `before pacing (${PACING_BASE})`, root: base },
    { name: 'pacing (this checkout)', root },
  ];
  execFileSync(process.execPath, [path.join(here, 'routing-cost-ab.mjs')], {
    stdio: 'inherit',
    env: {
      ...process.env,
      VARIANTS: JSON.stringify(variants),
      ROUNDS: option('--rounds') ?? (smoke ? '1' : '5'),
      EVENTS: smoke ? '300' : (process.env.EVENTS ?? '4000'),
      DURATION_S: smoke ? '1' : (process.env.DURATION_S ?? '8'),
      OUT: smoke ? 'pacing-ab-smoke.json' : 'pacing-ab.json',
      WHAT: 'bench/pacing-ab.mjs: a rule without pacing, the build before pacing against this checkout',
    },
  });
}
