// The parts of the Redis Cluster and Sentinel harnesses (redis-cluster.ts, redis-sentinel.ts) that start and remove
// servers: spare ports, a temporary folder per deployment, detached processes whose pids are kept in the folder's
// state.json (scripts/redis-cluster.mjs `up` leaves them running; `down` removes them from that file).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface RedisNode {
  host: string;
  port: number;
}

/** What scripts/redis-cluster.mjs needs to find and remove servers it left running. */
export interface RedisDeploymentState {
  dir: string;
  pids: number[];
}

export const HOST = '127.0.0.1';
export const STARTUP_TIMEOUT_MS = 60_000;
export const run = promisify(execFile);

/** `redis-cli` against one server: the reply as text; an error reply (or no connection) rejects. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args], { timeout: 10_000 });
  return stdout.trim();
}

export async function poll<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = STARTUP_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const reason = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function killPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // already gone
  }
  // A child of this process stays a zombie (still "alive" to kill 0) until Node reaps it, which it does promptly.
  await poll(async () => (alive(pid) ? undefined : true), `redis process ${pid} to exit`, 10_000);
}

/** Kills the servers of a deployment and deletes its folder (also for one a crashed start or another process left). */
export async function removeRedisDeployment(target: RedisDeploymentState | string): Promise<void> {
  // A folder: its state.json (what scripts/redis-cluster.mjs `down` finds).
  const state =
    typeof target === 'string'
      ? (JSON.parse(readFileSync(path.join(target, 'state.json'), 'utf8')) as RedisDeploymentState)
      : target;
  try {
    await Promise.all(state.pids.map(killPid));
  } finally {
    rmSync(state.dir, { recursive: true, force: true });
  }
}

export class Deployment {
  readonly dir: string;
  readonly pids = new Map<number, number>(); // port → pid
  private closed = false;
  private readonly onExit?: () => void;

  constructor(kind: string, keepAfterExit: boolean) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), `relay-redis-${kind}-`));
    if (keepAfterExit) return;
    // A test process that ends without close() (a failed beforeAll, an interrupted run) takes its servers with it.
    this.onExit = () => {
      for (const pid of this.pids.values()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      rmSync(this.dir, { recursive: true, force: true });
    };
    process.on('exit', this.onExit);
  }

  /** Starts `binary args…` detached (a manual `up` leaves it running) and waits until it answers PING. */
  async start(port: number, binary: string, args: string[]): Promise<void> {
    const child = spawn(binary, args, { cwd: this.dir, detached: true, stdio: 'ignore' });
    child.unref();
    const failed = new Promise<never>((_, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`${binary} on port ${port} exited with ${code}, see ${this.dir}`)));
    });
    failed.catch(() => {}); // only awaited during startup
    this.pids.set(port, child.pid!);
    this.save();
    await Promise.race([
      failed,
      poll(async () => ((await redisCli(port, 'PING')) === 'PONG' ? true : undefined), `${port}`),
    ]);
  }

  async kill(port: number): Promise<void> {
    const pid = this.pids.get(port);
    if (pid === undefined) throw new Error(`no redis server of this deployment on port ${port}`);
    await killPid(pid);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.onExit) process.off('exit', this.onExit);
    await removeRedisDeployment(this.state());
  }

  state(): RedisDeploymentState {
    return { dir: this.dir, pids: [...this.pids.values()] };
  }

  private save() {
    writeFileSync(path.join(this.dir, 'state.json'), JSON.stringify(this.state()));
  }
}

// Nothing on disk (no RDB, no AOF): a killed node comes back empty, as a lost machine would.
export const serverArgs = (port: number, dir: string) => [
  '--port',
  String(port),
  '--bind',
  HOST,
  '--dir',
  dir,
  '--save',
  '',
  '--appendonly',
  'no',
  '--maxmemory-policy',
  'noeviction',
  '--logfile',
  path.join(dir, `redis-${port}.log`),
];

export interface StartOptions {
  /** Leave the servers running when this process exits (scripts/redis-cluster.mjs `up`); tests never do. */
  keepAfterExit?: boolean;
}

// A spare port can be taken by another process between choosing it and the server binding it (other test runs share
// the machine): the server exits at once, and a new start on new ports is the remedy.
export async function retryPortClash<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error) || !err.message.includes('exited with')) throw err;
    }
  }
}

export const field = (info: string, name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
