// A throw-away PostgreSQL cluster on spare ports in a temporary folder, removed afterwards: the bench's profile
// (pg_stat_statements needs shared_preload_libraries, which the machine's own server does not load and must not be
// changed for a benchmark) and the read-replica tests (a primary and a streaming replica of it).
//
// Only Node's built-in modules are imported, and spare-port.ts by its full name: the bench (plain `node`, .mjs)
// imports this file directly and Node strips its types, which works for a file without extension-less imports.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './spare-port.ts';

export interface PgServer {
  port: number;
  /** The `postgres` database of the server. */
  url: string;
  /** Starts the server again after stop(). */
  start(): void;
  /** A fast shutdown: open connections are cut; the data stays for another start(). */
  stop(): void;
  /** SIGSTOP to the server and its processes: connections stay open and nothing answers (a hung server). */
  freeze(): void;
  /** SIGCONT to what freeze() stopped. */
  thaw(): void;
}

export interface PgCluster extends PgServer {
  /** A streaming replica of the primary (`pg_basebackup -R`), when asked for. */
  replica?: PgServer;
  /** Stops every server and deletes the folder. */
  remove(): void;
}

export interface PgClusterOptions {
  /** `-c name=value` settings of the primary (the replica copies its postgresql.conf, and so these). */
  settings?: string[];
  /** Also start a streaming replica of the primary. */
  replica?: boolean;
}

function pgBin(tool: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return path.join('/usr/lib/postgresql', versions[0]!, 'bin', tool);
}

// initdb and postgres refuse to run as root: as root, the cluster belongs to the postgres user.
function runAsOwner(tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', pgBin(tool), ...args]] : [pgBin(tool), args];
  execFileSync(cmd, argv, { stdio: 'ignore' });
}

function server(dir: string, data: string, port: number, settings: string[]): PgServer {
  const options = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', ...settings].join(' ');
  const log = path.join(dir, `log-${port}`);
  const pgCtl = (...args: string[]) => runAsOwner('pg_ctl', ['-D', data, ...args]);
  const running = { value: false };
  let frozen: number[] = [];
  const processes = () => {
    const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' });
    return [
      postmaster,
      ...children
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map(Number),
    ];
  };
  const thaw = () => {
    for (const pid of frozen) process.kill(pid, 'SIGCONT');
    frozen = [];
  };
  return {
    port,
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    start() {
      pgCtl('-l', log, '-w', '-t', '120', '-o', options, 'start');
      running.value = true;
    },
    stop() {
      if (!running.value) return;
      thaw();
      pgCtl('-m', 'fast', '-w', '-t', '120', 'stop');
      running.value = false;
    },
    freeze() {
      frozen = processes();
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    },
    thaw,
  };
}

/** initdb on a spare port (trust authentication), started; with `replica`, a streaming replica beside it. */
export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-pg-cluster-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const primaryData = path.join(dir, 'primary');
  const servers: PgServer[] = [];
  const remove = () => {
    try {
      for (const s of servers.reverse()) s.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    runAsOwner('initdb', ['-D', primaryData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // initdb's pg_hba.conf already trusts replication connections from 127.0.0.1, and wal_level is `replica`.
    const primary = server(dir, primaryData, await freePort(), ['-c max_connections=200', ...(options.settings ?? [])]);
    servers.push(primary);
    primary.start();
    let replica: PgServer | undefined;
    if (options.replica) {
      const replicaData = path.join(dir, 'replica');
      // -R writes standby.signal and primary_conninfo: the copy starts as a hot standby streaming from the primary.
      const base = ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', replicaData];
      runAsOwner('pg_basebackup', [...base, '-R', '-X', 'stream', '--no-sync']);
      replica = server(dir, replicaData, await freePort(), ['-c max_connections=200', ...(options.settings ?? [])]);
      servers.push(replica);
      replica.start();
    }
    return { ...primary, replica, remove };
  } catch (err) {
    remove();
    throw err;
  }
}
