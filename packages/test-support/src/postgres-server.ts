import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './spare-port';
import { waitFor } from './wait-for';

const BIN = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
const ROOT = path.resolve(__dirname, '../../..');

export interface OwnPostgres {
  port: number;
  /** The `relay` database of the cluster, migrated by `migrate()`. */
  url: string;
  start(): Promise<void>;
  /** Stops the server (a fast shutdown: open connections are cut); its data stays for another start(). */
  stop(): Promise<void>;
  /** Creates the `relay` database and applies the migrations, as `node scripts/db.mjs migrate` does. */
  migrate(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  remove(): Promise<void>;
}

const canQuery = async (url: string) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
};

// Postgres refuses to run as root: as root, the cluster belongs to (and runs as) the `postgres` user.
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Creates the `relay` database on the server of `adminUrl` (any database of it) and applies the migrations, as
 * `node scripts/db.mjs migrate` does; its URL.
 */
export async function createRelayDatabase(adminUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE relay').finally(() => admin.end());
  const url = new URL(adminUrl);
  url.pathname = '/relay';
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/db.mjs'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: url.toString() },
    stdio: 'pipe',
  });
  return url.toString();
}

// Fault tests stop and restart a Postgres of their own on a spare port, never the machine's.
export async function ownPostgres(): Promise<OwnPostgres> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-pg-'));
  const user = runAs();
  if (user) chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  execFileSync(path.join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    stdio: 'ignore',
    ...user,
  });
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const url = `postgresql://postgres@127.0.0.1:${port}/relay`;
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  };
  return {
    port,
    url,
    async start() {
      const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', `unix_socket_directories=${dir}`];
      child = spawn(path.join(BIN, 'postgres'), ['-D', data, '-p', String(port), ...settings], {
        stdio: 'ignore',
        ...user,
      });
      await waitFor(async () => (await canQuery(adminUrl)) || undefined, 20_000, `postgres on ${port}`);
    },
    stop,
    async migrate() {
      await createRelayDatabase(adminUrl);
    },
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
