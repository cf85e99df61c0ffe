// A throw-away PostgreSQL cluster for `pnpm bench --profile`: pg_stat_statements needs
// shared_preload_libraries, which the machine's own server does not load (and must not be changed
// for a benchmark). initdb on a spare port in a temporary folder, removed afterwards.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './processes.mjs';

function pgBin(tool) {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return path.join('/usr/lib/postgresql', versions[0], 'bin', tool);
}

// initdb refuses to run as root: as root, the cluster belongs to the postgres user.
function runAsOwner(tool, args) {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', pgBin(tool), ...args]] : [pgBin(tool), args];
  execFileSync(cmd, argv, { stdio: 'ignore' });
}

export async function startProfileCluster() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-bench-pg-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  runAsOwner('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=200',
    '-c shared_preload_libraries=pg_stat_statements',
    '-c pg_stat_statements.track=all',
    '-c track_io_timing=on',
  ].join(' ');
  runAsOwner('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', options, 'start']);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        runAsOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
